// The journal's files: segment names (journal-<first offset, 20 digits>.owj), the sorted list
// of a data directory's segments, and a sequential reader of one segment's blocks. Shared by
// the journal's recovery, its checks and the offline journal_reader.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "proto/byte_buffer.hpp"
#include "proto/journal_block.hpp"
#include "proto/journal_walk.hpp"

namespace objwire::daemon {

struct segment_info {
    std::filesystem::path path;
    std::uint64_t first_offset = 0;  // offset of the segment's first message
    std::uint64_t bytes = 0;
};

// "journal-00000000000000001234.owj"
std::string segment_file_name(std::uint64_t first_offset);
// The first offset a segment file name stands for, or nothing if it is not a segment name.
std::optional<std::uint64_t> parse_segment_file_name(std::string_view name);
// Every segment in `dir`, oldest first. A missing directory has none.
std::vector<segment_info> list_segments(const std::filesystem::path& dir, std::error_code& ec);

// Reads [at, at + n) of a file into `out`, fewer bytes at its end; ec on a failed read.
std::size_t read_at(int fd, std::uint8_t* out, std::size_t n, std::uint64_t at,
                    std::error_code& ec);
// Writes all of `bytes` at position `at` (pwrite, retried until done).
std::error_code write_all_at(int fd, std::span<const std::uint8_t> bytes, std::uint64_t at);

// An intact block found after damage: where it starts and the offset it starts at.
struct intact_block {
    std::uint64_t position = 0;
    std::uint64_t first_offset = 0;
};
// The first position in [from, end) of the file where a whole block with a good checksum
// starts whose first offset is at least min_offset: where reading goes on after a damaged
// block (every block is self-contained, so one lost block costs only its own messages).
// Nothing if there is none before `end`; ec on a failed read.
std::optional<intact_block> find_intact_block(int fd, std::uint64_t from, std::uint64_t end,
                                              std::uint64_t min_offset, std::error_code& ec);

// Offsets lost between two intact blocks: [first, end).
struct offset_gap {
    std::uint64_t first = 0;
    std::uint64_t end = 0;
    std::uint64_t position = 0;  // file position of the damage (or of the block after the gap)
    std::uint64_t bytes = 0;     // damaged bytes skipped (0: the offsets jump, nothing damaged)
};

// Reads one segment front to back in large chunks and hands out its blocks, verified and
// checked to continue the offsets from the segment's first one (proto/journal_walk.hpp decides;
// this class reads and skips damage).
class segment_reader {
  public:
    segment_reader() = default;
    ~segment_reader();
    segment_reader(const segment_reader&) = delete;
    segment_reader& operator=(const segment_reader&) = delete;

    std::error_code open(const std::filesystem::path& path, std::uint64_t first_offset);
    void close();

    enum class status {
        block,     // `out` is the next block, valid until the next call
        end,       // no more whole blocks; leftover() bytes follow the last one
        bad,       // the block at position() is bad: error() says why
        io_error,  // reading failed: error() is the errno
    };
    status next(journal_block_view& out);

    // The file position of the block last handed out, or of what made next() stop.
    std::uint64_t position() const { return position_; }
    // The file position after the last whole block: what a recovery keeps.
    std::uint64_t good_end() const { return good_end_; }
    std::uint64_t next_offset() const { return walker_.next_offset(); }
    // at `end`: bytes after the last whole block (a torn tail, or an append in progress).
    std::uint64_t leftover() const { return buf_.size() - pos_; }
    // bad: the bad block's size when its header could be read (0 otherwise).
    std::uint64_t bad_size() const { return bad_size_; }
    std::error_code error() const { return error_; }

    // After `bad`: looks for the next intact block after the bad one (docs/JOURNAL.md 4) and
    // goes on from it; the offsets between are lost(). False when nothing intact follows (a
    // torn tail, or damage to the end) or on a read error (error() then is the errno).
    bool skip_damage();
    const offset_gap& lost() const { return lost_; }

    // Goes on at the first intact block at or after file position `from`, its offsets taken
    // as they come from there (the last blocks of a segment, read without the ones before).
    // False when nothing intact follows, or on a read error (error() then is the errno).
    bool read_from_intact(std::uint64_t from);

  private:
    bool fill(std::size_t need);
    // The first intact block in [from, the file's end) numbered at least min_offset; a failed
    // read is error().
    std::optional<intact_block> find_from(std::uint64_t from, std::uint64_t min_offset);
    // Reading goes on at `found`: what was read ahead is dropped.
    bool go_on_at(const intact_block& found);

    int fd_ = -1;
    byte_buffer buf_;
    std::size_t pos_ = 0;         // parsing position in buf_
    std::uint64_t buf_file_ = 0;  // file position of buf_[0]
    bool eof_ = false;
    std::uint64_t position_ = 0;
    std::uint64_t good_end_ = 0;
    journal_walker walker_;
    std::uint64_t bad_size_ = 0;
    std::error_code error_;
    offset_gap lost_;
};

}  // namespace objwire::daemon
