// The sender index of a journal (docs/JOURNAL.md, "The sender index"): the last frame sequence
// stored for every sender id, read from block headers alone. Payloads are skipped, not read or
// verified, so start-up costs one small read per block (or per 64 KiB of small blocks), not a
// read of the whole journal.
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>
#include <system_error>
#include <vector>

#include "daemon/store/journal_segments.hpp"
#include "proto/control.hpp"
#include "proto/journal_block.hpp"

namespace objwire::daemon {

struct journal_index_scan {
    std::uint64_t segments = 0;
    std::uint64_t blocks = 0;
    std::uint64_t bytes_read = 0;  // header and sender-id bytes read (payloads skipped)
};

// One block as its header tells it: the sender id's stream after it (its last frame and, for
// a block with a stream record, docs/JOURNAL.md 2.1, the record) and the block's place.
struct sender_index_entry {
    std::string_view sender_id;  // empty: objects sent without a sender id
    std::uint64_t last_sequence = 0;
    const journal_stream_record* record = nullptr;  // null: the block has none
    std::uint64_t first_offset = 0;
    std::uint32_t count = 0;
    std::uint64_t time_ms = 0;
    std::uint64_t segment_first = 0;  // the block's place: its segment's first offset,
    std::uint64_t position = 0;       // its file position there
    std::uint64_t size = 0;           // and its bytes
};

// Calls found(entry) for every block before end_offset, oldest first. A damaged block is
// logged and passed over to the next intact one, as recovery and readers do. Only a failed
// read is an error. end_offset: a running journal's durable end, so a block being appended
// is never read half-written.
std::error_code scan_sender_index(const std::vector<segment_info>& segments,
                                  const std::function<void(const sender_index_entry&)>& found,
                                  journal_index_scan& stats, std::uint64_t end_offset = UINT64_MAX);

// As scan_sender_index, for one segment from a block's place on (`position`, where the block
// starting at `first_offset` is) up to end_offset: a bounded read of a few blocks' headers.
std::error_code scan_segment_headers(const segment_info& segment, std::uint64_t position,
                                     std::uint64_t first_offset, std::uint64_t end_offset,
                                     const std::function<void(const sender_index_entry&)>& found,
                                     journal_index_scan& stats);

// What `objwire senders` shows: per sender id, its objects held, their first and last offset
// and when its newest block was stored, ascending by id; from block headers before end_offset.
std::error_code list_senders(const std::vector<segment_info>& segments, std::uint64_t end_offset,
                             sender_list& out, journal_index_scan& stats);

}  // namespace objwire::daemon
