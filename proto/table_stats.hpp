// What a back-reference table holds and has done: the sender's half in
// client::connection::table(), the receiver's in acks and metrics. Part of the library's public
// vocabulary (installed, docs/LIBRARY.md "The public surface").
#pragma once

#include <cstdint>

namespace objwire {

struct table_stats {
    std::uint64_t bytes = 0;  // current accounted size
    std::uint64_t peak_bytes = 0;
    std::uint64_t entries = 0;
    std::uint64_t hits = 0;
    std::uint64_t misses = 0;
    std::uint64_t inserts = 0;
    std::uint64_t evictions = 0;
    std::uint64_t resets = 0;
};

}  // namespace objwire
