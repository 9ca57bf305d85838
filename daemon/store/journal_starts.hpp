// Where a reader's stream starts, found through the journal's start index
// (daemon/store/start_index.hpp): a binary search in memory, then the block headers of one or
// two spans read (payloads skipped) - a cost independent of the journal's length. The answer
// carries the place a journal_cursor begins reading at, so serving from a start reads no
// block before it but those of its span.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

#include "daemon/store/journal.hpp"
#include "daemon/store/journal_index.hpp"

namespace objwire::daemon {

struct found_start {
    std::uint64_t offset = 0;          // where the stream starts
    std::optional<block_place> place;  // where a journal_cursor begins for it (none: anywhere)
    std::error_code error;             // a span could not be read: detail says where
    std::string detail;
};

// A start at `offset` (read_from, a cursor's position): only its place.
found_start start_at_offset(const journal& j, std::uint64_t offset);
// The first block stored at or after `since_ms` below `limit` (`limit` when none is).
found_start start_of_time(const journal& j, std::uint64_t since_ms, std::uint64_t limit,
                          journal_index_scan& stats);
// The first of the last `n` objects of `sender` below `limit` (`limit` when it has none).
found_start start_of_senders_last(const journal& j, std::string_view sender, std::uint64_t n,
                                  std::uint64_t limit, journal_index_scan& stats);

}  // namespace objwire::daemon
