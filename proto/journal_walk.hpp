// Walking a segment's bytes block by block, sans-I/O: the one place that decides what stops a
// walk of journal blocks (docs/JOURNAL.md 4.4 "Where a walk stops"). Every reader of segment
// files - the daemon's recovery, checks and offline reader, the cursor that serves readers,
// the client's stored_file and `objwire decode` - feeds it the bytes it read and acts on its
// verdict; what each does with a torn tail or a damaged block is its own business, what counts
// as one is decided here.
//
//   journal_walker w(first_offset);               // or journal_walker() to leave numbers alone
//   for (;;) {
//       auto s = w.next(bytes_from(w.position()), file_ends_after_them);
//       if (s.what == journal_walk::need_more) { read_at_least(s.size); continue; }
//       if (s.what == journal_walk::block) { use(s.block, s.bytes); drop(s.size); continue; }
//       break;  // end, torn_tail, damaged, offset_jump: s.position, s.size, s.error say more
//   }
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <system_error>

#include "proto/journal_block.hpp"

namespace objwire {

// The largest block the format allows: header, the longest sender id, a stream record and the
// largest payload. A walker asks for no more bytes than this (or its own lower cap) at once.
inline constexpr std::size_t journal_max_block_bytes =
    journal_block_header_size + journal_max_sender_id + journal_stream_record_size +
    std::size_t{journal_max_payload};

enum class journal_walk {
    block,        // a whole, verified block in order: `block`, `bytes`; the walker is past it
    need_more,    // `size` bytes from `position` on are needed to decide
    end,          // the bytes end after a whole block: nothing is left
    torn_tail,    // the bytes end inside the block at `position` (`size` bytes of it are there):
                  // an append cut short or still in progress; `error` short_header/short_block
    damaged,      // the block at `position` is bad: `error` says why, `size` is its announced
                  // extent when its header could be read (else 0)
    offset_jump,  // the block at `position` is whole but numbered above the expected offset:
                  // the offsets between are missing, nothing is damaged; resume_at() takes it
};

struct journal_walk_step {
    journal_walk what = journal_walk::need_more;
    std::uint64_t position = 0;  // file position of the block, or of what stopped the walk
    std::size_t size = 0;        // see journal_walk
    std::error_code error;
    journal_block_view block;             // block, offset_jump, damaged by offset_gap
    std::span<const std::uint8_t> bytes;  // block: its bytes as stored
};

class journal_walker {
  public:
    // Numbers unchecked: each block is taken at whatever offset it says (a file of blocks
    // whose first offset the reader does not know, or several files in a row).
    journal_walker() = default;
    // Each block must start at the offset the previous one ended at, the first at
    // `first_offset` (a segment's, from its file name).
    explicit journal_walker(std::uint64_t first_offset)
        : checked_(true), next_offset_(first_offset) {}

    // Caps the size of a block the walker will ask bytes for: a block announcing more is
    // damaged (too_large). journal_max_block_bytes unless lowered; never below a header.
    void set_max_block(std::size_t bytes) {
        max_block_ = bytes < journal_block_header_size ? journal_block_header_size : bytes;
    }

    // Looks at `in`, the bytes from position() on as far as the caller holds them; `at_end`:
    // the file ends after them. A block step moves position() past the block (drop step.size
    // bytes); every other step leaves the walker where it was.
    journal_walk_step next(std::span<const std::uint8_t> in, bool at_end);

    // Goes on at `position` with the block numbered `first_offset` (after damage was skipped,
    // or to take the block of an offset_jump).
    void resume_at(std::uint64_t position, std::uint64_t first_offset);

    // The file position of the next block.
    std::uint64_t position() const { return position_; }
    // The offset the next block should start at (unchecked walkers: where the last ended).
    std::uint64_t next_offset() const { return next_offset_; }

  private:
    journal_walk_step stop(journal_walk what, std::size_t size, std::error_code why) const;

    bool checked_ = false;
    std::uint64_t next_offset_ = 0;
    std::uint64_t position_ = 0;
    std::size_t max_block_ = journal_max_block_bytes;
};

// What a scan for the next intact block says.
enum class journal_resync_status {
    found,      // a whole block with a good CRC, numbered at least as expected, at `position`
    need_more,  // `size` bytes from `position` on are needed to go on
    none,       // nothing intact starts before the end
};

struct journal_resync_step {
    journal_resync_status what = journal_resync_status::need_more;
    std::uint64_t position = 0;      // found: the block's file position; else where the scan is
    std::size_t size = 0;            // found: the block's bytes; need_more: bytes needed in all
    std::uint64_t first_offset = 0;  // found: the block's first offset
};

// Looks for where reading goes on after a damaged block, sans-I/O: the first position in
// [from, end) of a file where a whole block starts whose checksum is good and whose first
// offset is not below the one expected (docs/JOURNAL.md 4.4). Every block is self-contained,
// so one lost block costs only its own messages. Any byte may be a block's start: each
// candidate with the magic is parsed whole, and a damaged one is passed over a byte at a time.
//
//   journal_resync scan(from, end, expected);
//   for (;;) {
//       auto s = scan.next(bytes_from(scan.position()));
//       if (s.what == journal_resync_status::need_more) { drop_before(s.position);
//                                                         read_at_least(s.size); continue; }
//       return s.what == journal_resync_status::found ? s.position : nothing;
//   }
class journal_resync {
  public:
    journal_resync(std::uint64_t from, std::uint64_t end, std::uint64_t min_offset)
        : position_(from), end_(end), min_offset_(min_offset) {}

    // Caps the bytes a candidate may announce: one announcing more is passed over unread, so
    // a caller never holds more than this (or what is left of the file) at once.
    // journal_max_block_bytes unless lowered; never below a header.
    void set_max_block(std::size_t bytes) {
        max_block_ = bytes < journal_block_header_size ? journal_block_header_size : bytes;
    }

    // Looks at `in`, the bytes from position() on as far as the caller holds them (any past
    // the end are ignored). need_more moves position() past every byte ruled out: the bytes
    // before it are not looked at again. found leaves position() at the block.
    journal_resync_step next(std::span<const std::uint8_t> in);

    // The first file position not yet ruled out.
    std::uint64_t position() const { return position_; }

  private:
    // Whether the candidate at the start of `at` is the block looked for; when it needs more
    // bytes than `at` holds, `need` says how many.
    bool intact(std::span<const std::uint8_t> at, std::size_t& need,
                journal_resync_step& out) const;
    journal_resync_step step(journal_resync_status what, std::size_t size) const;

    std::uint64_t position_ = 0;
    std::uint64_t end_ = 0;
    std::uint64_t min_offset_ = 0;
    std::size_t max_block_ = journal_max_block_bytes;
};

// Whether `bytes` can be the start of a block as far as they go (the magic): tells a tail of
// garbage from a block cut short in messages.
bool journal_block_prefix_ok(std::span<const std::uint8_t> bytes);

}  // namespace objwire
