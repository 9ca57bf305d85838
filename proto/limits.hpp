// What a receiver accepts. Announced in its welcome; the decoder enforces every field before
// allocating, and a sender's encoder refuses to exceed them.
#pragma once

#include <cstdint>
#include <string>
#include <system_error>

namespace objwire {

struct decoder_limits {
    std::uint64_t table_budget = 4u << 20;
    std::uint32_t max_depth = 64;
    std::uint32_t max_string_bytes = 16u << 20;
    std::uint32_t max_elements = 1'000'000;  // per list, map, record, and objects per message
    std::uint32_t max_frame_bytes = 16u << 20;
    // Bytes one frame may decode by back-reference: the length of every referenced string
    // plus the expanded size of every referenced kept object (docs/PROTOCOL.md, "Reference
    // bytes"). Without it a 5 MB frame of one-byte references to a 4 MiB string would decode
    // to terabytes. Welcome field 10; absent: this default.
    std::uint64_t max_reference_bytes = 16u << 20;
};

// For an error that a limit caused (proto_errc::string_too_long, too_many_elements,
// depth_exceeded, reference_bytes_exceeded): the limit and the key that sets it, e.g.
// "64 levels, limits.max_depth"; "" for any other error.
std::string exceeded_limit(std::error_code ec, const decoder_limits& l);

}  // namespace objwire
