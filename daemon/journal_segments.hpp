// The journal's files: segment names (journal-<first offset, 20 digits>.owj), the sorted list
// of a data directory's segments, and a sequential reader of one segment's blocks. Shared by
// the journal's recovery and the offline journal_reader.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "proto/byte_buffer.hpp"
#include "proto/journal_block.hpp"

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

// Reads one segment front to back in large chunks and hands out its blocks, verified and
// checked to continue the offsets from the segment's first one.
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
    std::uint64_t next_offset() const { return next_offset_; }
    // at `end`: bytes after the last whole block (a torn tail, or an append in progress).
    std::uint64_t leftover() const { return buf_.size() - pos_; }
    // bad: the bad block's size when its header could be read (0 otherwise).
    std::uint64_t bad_size() const { return bad_size_; }
    std::error_code error() const { return error_; }

  private:
    bool fill(std::size_t need);

    int fd_ = -1;
    byte_buffer buf_;
    std::size_t pos_ = 0;         // parsing position in buf_
    std::uint64_t buf_file_ = 0;  // file position of buf_[0]
    bool eof_ = false;
    std::uint64_t position_ = 0;
    std::uint64_t good_end_ = 0;
    std::uint64_t next_offset_ = 0;
    std::uint64_t bad_size_ = 0;
    std::error_code error_;
};

}  // namespace objwire::daemon
