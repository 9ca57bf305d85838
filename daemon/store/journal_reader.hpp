// Reads a journal directory offline: every stored message in offset order, from any offset,
// across segments. For tests and tools (`objwired --dump-journal`). It verifies each block as
// the daemon's recovery does; a damaged block (or a missing segment) costs its offsets only:
// reading goes on at the next intact block and gaps() lists what was lost. A partial block at
// the very end (a torn tail not yet recovered, or an append in progress) is the end, not an
// error; offsets that run backwards are an error.
//
//   journal_reader r(dir);             // or journal_reader(dir, from_offset)
//   message m;
//   while (r.next(m)) use(r.offset(), m);
//   if (r.error()) report(r.error_detail());
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include "daemon/store/journal_segments.hpp"
#include "proto/journal_block.hpp"
#include "proto/value.hpp"

namespace objwire::daemon {

class journal_reader {
  public:
    explicit journal_reader(std::filesystem::path dir, std::uint64_t from_offset = 0);

    // The next stored message; false at the end of what is stored or on an error.
    bool next(message& out);

    // Offset of the message next() returned last.
    std::uint64_t offset() const { return offset_; }
    // The block it came from: its header (sequence range, time) and sender id.
    const journal_block_header& block() const { return block_; }
    const std::string& sender_id() const { return sender_id_; }
    // Where reading started: from_offset, or the oldest offset still stored if retention
    // deleted the ones before it.
    std::uint64_t first_offset() const { return first_offset_; }
    // Bytes at the end of the last segment that do not form a whole block.
    std::uint64_t tail_bytes() const { return tail_bytes_; }
    std::error_code error() const { return error_; }
    // The error with its place: "journal-...owj at position 1234: block checksum mismatch".
    const std::string& error_detail() const { return detail_; }

    struct gap {
        offset_gap lost;
        std::string where;  // "journal-...owj at position 1234: block checksum mismatch"
    };
    // Offsets lost to damage met so far (at or after the offset asked for), in order.
    const std::vector<gap>& gaps() const { return gaps_; }

  private:
    bool load_block();
    // load_block()'s steps. Each false: done or failed; nullopt: go on reading.
    bool open_segment();
    std::optional<bool> take_block(const journal_block_view& b);
    std::optional<bool> end_of_segment(bool bad);
    // Whether the next segment starts where the open one ended (a missing one is a gap; an
    // overlap fails).
    bool check_continued(bool damaged_end);
    // "journal-...owj at position 1234", for errors.
    std::string position_text() const;
    bool fail(std::error_code ec, const std::string& where);
    void add_gap(const offset_gap& lost, std::string where);

    std::filesystem::path dir_;
    std::vector<segment_info> segments_;
    std::size_t segment_ = 0;  // index of the open segment in segments_
    bool opened_ = false;
    segment_reader reader_;
    std::uint64_t from_;
    std::uint64_t first_offset_ = 0;
    std::vector<message> pending_;  // the current block's messages
    std::size_t next_ = 0;          // index of the next one to hand out
    std::uint64_t pending_first_ = 0;
    std::uint64_t offset_ = 0;
    journal_block_header block_;
    journal_block_header pending_block_;
    std::string sender_id_;
    std::string pending_sender_;
    std::uint64_t tail_bytes_ = 0;
    std::error_code error_;
    std::string detail_;
    std::vector<gap> gaps_;
    bool done_ = false;
};

}  // namespace objwire::daemon
