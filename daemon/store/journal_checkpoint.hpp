// Small files next to the segments that recovery reads (docs/JOURNAL.md 4):
// - the sync checkpoint `journal.checkpoint`, and its copy `journal.checkpoint2`: how far the
//   journal was synced, both rewritten in place after each sync. A cut before it is lost synced
//   data, not a torn append; the copy proves the journal's end when one file is lost.
// - the gap log `journal.gaps`: one line per range of offsets lost to damage or to a repair,
//   appended and synced when found. Offsets in it are never given out again.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

namespace objwire::daemon {

inline constexpr const char* checkpoint_file_name = "journal.checkpoint";
inline constexpr const char* checkpoint_copy_file_name = "journal.checkpoint2";
inline constexpr const char* gap_log_file_name = "journal.gaps";
// No offset reaches this (2^63): the journal refuses appends that would, and a gap log or
// checkpoint that names a larger offset is damaged, so offsets never wrap around 2^64.
inline constexpr std::uint64_t max_journal_offset = std::uint64_t{1} << 63;

struct sync_checkpoint {
    std::uint64_t segment_first = 0;  // the open segment when the sync ran
    std::uint64_t segment_bytes = 0;  // its bytes covered by the sync
    std::uint64_t end_offset = 0;     // every offset below was synced
};

// 36 bytes: "OWJC", version 1 (u32), the three fields (u64 each), CRC-32C of bytes 0..31.
// Little endian. One pwrite at position 0 (a sector: never half-written on Linux file systems
// of 512-byte sectors or more).
class checkpoint_writer {
  public:
    checkpoint_writer() = default;
    ~checkpoint_writer();
    checkpoint_writer(const checkpoint_writer&) = delete;
    checkpoint_writer& operator=(const checkpoint_writer&) = delete;

    // Opens (creates) both files.
    std::error_code open(const std::filesystem::path& dir);
    // Rewrites the checkpoint and its copy (page cache); sync() makes them durable.
    std::error_code write(const sync_checkpoint& c);
    std::error_code sync();
    void close();

  private:
    int fd_ = -1;
    int copy_fd_ = -1;
};

// The checkpoint of `dir`; nothing when there is none (a journal older than the checkpoint,
// or a new one) or it is damaged (`damaged` set then).
std::optional<sync_checkpoint> read_checkpoint(const std::filesystem::path& dir, bool& damaged,
                                               const char* file_name = checkpoint_file_name);

// What the checkpoint and its copy say at a start.
struct checkpoint_records {
    std::optional<sync_checkpoint> best;  // the intact one that reaches further
    bool any_file = false;                // at least one of the two files exists
    std::string missing;                  // the file names of those that do not exist
    std::string damaged;                  // and of those that are damaged
};
checkpoint_records read_checkpoints(const std::filesystem::path& dir);

struct recorded_gap {
    std::uint64_t first = 0;  // offsets [first, end) are lost
    std::uint64_t end = 0;
    std::string why;  // where and how, for people
};
// Lines "gap <first> <end> <why>"; other lines are skipped. A line whose end is beyond
// max_journal_offset is not returned: `refused` (when given) then says which and why.
std::vector<recorded_gap> read_gap_log(const std::filesystem::path& dir,
                                       std::string* refused = nullptr);
// Appends one line and syncs the file and the directory.
std::error_code append_gap_log(const std::filesystem::path& dir, const recorded_gap& gap);

}  // namespace objwire::daemon
