// Checks of a journal's segments (docs/JOURNAL.md 4). At start every closed segment gets a
// cheap check - its size, its first block and its last block (walked to from a window at the
// file's end), and that it ends where the next segment begins - and a full check, every block
// verified, only when the cheap one finds something wrong. `objwired --verify-journal` runs
// the full check on every segment. Both read through segment_reader, as recovery and the
// offline reader do. Damage costs the damaged blocks only: what is lost is reported as ranges
// of offsets, and reading goes on at the next intact block.
#pragma once

#include <cstdint>
#include <string>
#include <system_error>
#include <vector>

#include "daemon/store/journal_segments.hpp"

namespace objwire::daemon {

struct segment_findings {
    std::vector<offset_gap> gaps;     // offsets lost in the segment or before the next one
    std::string damage;               // the first thing found wrong, for the log (empty: none)
    bool overlap = false;             // the segment runs past the next one's first offset
    std::uint64_t blocks = 0;         // verified blocks (full check)
    std::uint64_t messages = 0;       // in them
    std::uint64_t largest_block = 0;  // bytes of the largest of them
    bool bad_end = false;             // the walk ended at damage with nothing intact after it
};

// A closed segment followed by one that begins at next_first. A failed read is the error.
std::error_code check_closed_segment(const segment_info& seg, std::uint64_t next_first, bool full,
                                     segment_findings& out);

// Every block of a segment from the start, skipping damage (segment_reader::skip_damage).
// Stops at the end of the file or at damage with nothing intact after it; the reader says
// where (good_end, next_offset, leftover, error).
std::error_code walk_segment(segment_reader& reader, segment_findings& out);

}  // namespace objwire::daemon
