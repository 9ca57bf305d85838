// What a receiver accepts. Announced in its welcome; the decoder enforces every field before
// allocating, and a sender's encoder refuses to exceed them.
#pragma once

#include <cstdint>

namespace objwire {

struct decoder_limits {
    std::uint64_t table_budget = 4u << 20;
    std::uint32_t max_depth = 64;
    std::uint32_t max_string_bytes = 16u << 20;
    std::uint32_t max_elements = 1'000'000;  // per list, map, record, and objects per message
    std::uint32_t max_frame_bytes = 16u << 20;
};

}  // namespace objwire
