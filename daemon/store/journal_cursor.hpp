// Walks the stored journal block by block for serving it to readers
// (daemon/roles/reader_service.cpp): each block's bytes exactly as stored, verified, in offset
// order across segments, never decoded. Unlike the offline journal_reader it reads only below a
// limit the caller gives (the journal's durable offset) and can be asked again after the journal
// grew, so a follower resumes where it stopped. Memory: one read chunk plus the largest block
// met, until release_buffer().
//
//   journal_cursor c(dir, from);
//   journal_block_view b;
//   std::span<const std::uint8_t> bytes;
//   while (c.next(j.durable_offset(), b, bytes) == journal_cursor::status::block) serve(bytes);
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <system_error>
#include <vector>

#include "daemon/store/journal_segments.hpp"
#include "daemon/store/start_index.hpp"
#include "proto/byte_buffer.hpp"
#include "proto/journal_block.hpp"
#include "proto/journal_walk.hpp"

namespace objwire::daemon {

class journal_cursor {
  public:
    // Blocks whose messages all come before `from` are skipped (read, not handed out). `start`:
    // a block at or before `from` in the segment holding it (daemon/store/start_index.hpp),
    // where reading begins instead of the segment's start.
    journal_cursor(std::filesystem::path dir, std::uint64_t from,
                   std::optional<block_place> start = std::nullopt);
    ~journal_cursor();
    journal_cursor(const journal_cursor&) = delete;
    journal_cursor& operator=(const journal_cursor&) = delete;

    enum class status {
        block,      // `view` and `bytes` are the next block, valid until the next call
        caught_up,  // nothing stored below `limit` is left
        gap,        // offsets lost to damage (gap()); the next call goes on after them
        error,      // the journal's files are not what they should be: error_detail() says
    };
    status next(std::uint64_t limit, journal_block_view& view,
                std::span<const std::uint8_t>& bytes);

    // What release_buffer() keeps of the bytes read and not yet handed out.
    enum class keep {
        read_ahead,  // them, and a buffer of up to two read chunks whole: no read is repeated
        nothing,     // none: the next call reads them from the file again
    };
    // Gives back the read buffer's memory but what `what` keeps. The bytes of the block
    // handed out last are no longer valid. A reader calls it once it has copied the blocks
    // into frames, so that a large block is not held twice while the peer is slow to take it.
    // Returns the bytes of buffer capacity given back.
    std::size_t release_buffer(keep what);
    // The read buffer's memory now (what release_buffer() would give back).
    std::size_t buffer_capacity() const { return buf_.capacity(); }

    // The offset of the first message of the block next() will look at.
    std::uint64_t next_offset() const { return walker_.next_offset(); }
    // Offsets the cursor jumped over because retention deleted their segment meanwhile (each
    // such jump is also handed out as a gap: the reader had not read them).
    std::uint64_t skipped_by_retention() const { return skipped_; }
    // Whether the last gap is offsets retention deleted (not damage).
    bool gap_by_retention() const { return gap_by_retention_; }
    std::error_code error() const { return error_; }
    const std::string& error_detail() const { return detail_; }
    // After `gap`: the offsets lost, and where ("journal-...owj at position 1234: why").
    const offset_gap& gap() const { return gap_; }
    const std::string& gap_detail() const { return gap_detail_; }

  private:
    bool open_segment_holding(std::uint64_t offset, std::uint64_t limit);
    // The last segment ends before `limit`, the journal's durable end: what a repair cut
    // (docs/JOURNAL.md 4.5) is a gap up to it, and the walk goes on in that segment after it,
    // where the journal numbers on.
    bool resume_after_cut(const segment_info& last, std::uint64_t offset, std::uint64_t limit);
    // Once started: the segment to read from `offset` on, after the segment the cursor is done
    // with (never that one again: a segment wholly damaged or empty must not be reopened).
    const segment_info* pick_next(const std::vector<segment_info>& segments, std::uint64_t offset);
    void set_gap(std::uint64_t first, std::uint64_t end, std::string detail, bool retention);
    // Reads more of the open segment: false at its end (or on an error, with error_ set).
    bool fill(std::size_t need);
    void close_segment();
    // The open segment holds nothing more below the limit: the next one goes on.
    void finish_segment();
    status fail(std::error_code ec, std::string detail);
    // Damage below the limit: goes on at the next intact block of the segment (or the next
    // segment) when there is one.
    bool skip_damage(std::uint64_t limit, bool offset_jump, std::error_code why);
    // next()'s steps. Before parsing: a gap to tell, the limit reached, or the segment holding
    // the next offset opened (nullopt: a block may be parsed at pos_).
    std::optional<status> before_next_block(std::uint64_t limit);
    // For what the walker found at pos_: a status to return, or nullopt to go on.
    std::optional<status> after_short_block(const journal_walk_step& s);
    std::optional<status> after_torn_tail(std::uint64_t limit, const journal_walk_step& s);
    std::optional<status> after_bad_block(std::uint64_t limit, const journal_walk_step& s,
                                          bool& reread);
    std::optional<status> take_block(const journal_walk_step& s, journal_block_view& view,
                                     std::span<const std::uint8_t>& bytes, bool& reread);
    // After skip_damage: the gap is told unless it lies wholly before the start asked for.
    std::optional<status> gap_if_asked_for() const;
    // "journal-...owj at position 1234", for errors.
    std::string position_text() const;

    std::filesystem::path dir_;
    std::uint64_t from_;
    std::optional<block_place> start_;
    bool started_ = false;
    int fd_ = -1;
    std::filesystem::path segment_;
    std::uint64_t segment_first_ = 0;  // first offset of the segment open (or last open)
    bool segment_done_ = false;        // the segment at segment_first_ was read to its end
    // What ended the segment last done with, and where, when damage did: the error when no
    // later segment goes on.
    std::error_code damage_;
    std::string damage_where_;
    byte_buffer buf_;
    std::size_t pos_ = 0;         // next unparsed byte in buf_
    std::uint64_t buf_file_ = 0;  // file position of buf_[0]
    bool eof_ = false;            // buf_ holds the open segment to its end
    journal_walker walker_;       // at buf_file_ + pos_
    std::uint64_t skipped_ = 0;
    std::error_code error_;
    std::string detail_;
    offset_gap gap_;
    std::string gap_detail_;
    bool gap_pending_ = false;
    bool gap_by_retention_ = false;
};

}  // namespace objwire::daemon
