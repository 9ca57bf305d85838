// Two small files next to the segments that recovery reads (docs/JOURNAL.md 4):
// - the sync checkpoint `journal.checkpoint`: how far the journal was synced, rewritten in
//   place after each sync. A cut before it is lost synced data, not a torn append.
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
inline constexpr const char* gap_log_file_name = "journal.gaps";

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

    std::error_code open(const std::filesystem::path& dir);
    // Rewrites the checkpoint (page cache); sync() makes it durable.
    std::error_code write(const sync_checkpoint& c);
    std::error_code sync();
    void close();

  private:
    int fd_ = -1;
};

// The checkpoint of `dir`; nothing when there is none (a journal older than the checkpoint,
// or a new one) or it is damaged (`damaged` set then).
std::optional<sync_checkpoint> read_checkpoint(const std::filesystem::path& dir, bool& damaged);

struct recorded_gap {
    std::uint64_t first = 0;  // offsets [first, end) are lost
    std::uint64_t end = 0;
    std::string why;  // where and how, for people
};
// Lines "gap <first> <end> <why>"; other lines are skipped.
std::vector<recorded_gap> read_gap_log(const std::filesystem::path& dir);
// Appends one line and syncs the file and the directory.
std::error_code append_gap_log(const std::filesystem::path& dir, const recorded_gap& gap);

}  // namespace objwire::daemon
