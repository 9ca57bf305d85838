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
#include "proto/journal_block.hpp"

namespace objwire::daemon {

struct journal_index_scan {
    std::uint64_t segments = 0;
    std::uint64_t blocks = 0;
    std::uint64_t bytes_read = 0;  // header and sender-id bytes read (payloads skipped)
};

// The newest state of one sender id's stream as a block header tells it: its last frame and,
// for a block with a stream record (docs/JOURNAL.md 2.1), the record.
struct sender_index_entry {
    std::string_view sender_id;
    std::uint64_t last_sequence = 0;
    const journal_stream_record* record = nullptr;  // null: the block has none
};

// Calls found(entry) for every block with a sender id, oldest first. A
// segment's scan ends at the first header that is not a block header or runs past the file
// (the open segment was verified by recovery; a bad closed one is logged and the rest of it
// skipped). Only a failed read is an error.
std::error_code scan_sender_index(const std::vector<segment_info>& segments,
                                  const std::function<void(const sender_index_entry&)>& found,
                                  journal_index_scan& stats);

}  // namespace objwire::daemon
