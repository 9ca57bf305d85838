// crc32c: the known check value, and the hardware path equal to the portable one at every
// length around its block sizes and at odd addresses, chained or whole.
#include <gtest/gtest.h>

#include <random>
#include <span>
#include <string_view>
#include <vector>

#include "proto/crc32c.hpp"

namespace objwire {
namespace {

std::span<const std::uint8_t> as_bytes(std::string_view s) {
    return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

TEST(Crc32c, KnownVector) {
    EXPECT_EQ(crc32c(as_bytes("123456789")), 0xE3069283u);
    EXPECT_EQ(crc32c_portable(as_bytes("123456789")), 0xE3069283u);
    EXPECT_EQ(crc32c({}), 0u);
}

TEST(Crc32c, HardwareAndPortableAgreeAndChain) {
    std::mt19937 rng(7);
    std::vector<std::uint8_t> data(100'003);
    for (auto& b : data)
        b = static_cast<std::uint8_t>(rng());
    // Around the three-stream block sizes (3 x 256 and 3 x 8192 bytes), at odd addresses too.
    for (std::size_t n :
         {0u,    1u,    7u,      8u,      9u,      63u,     767u,    768u,    769u,    775u,
          1536u, 4096u, 10'000u, 24'575u, 24'576u, 24'577u, 25'344u, 49'152u, 65'536u, 100'000u}) {
        for (std::size_t at : {0u, 1u, 3u}) {
            std::span<const std::uint8_t> s(data.data() + at, n);
            EXPECT_EQ(crc32c(s), crc32c_portable(s)) << n << " at " << at;
            const std::size_t half = n / 2;
            EXPECT_EQ(crc32c(s.subspan(half), crc32c(s.first(half))), crc32c(s)) << n;
        }
    }
}

TEST(Crc32c, CombineJoinsChecksumsWithoutTheBytes) {
    std::mt19937 rng(11);
    std::vector<std::uint8_t> data(70'000);
    for (auto& b : data)
        b = static_cast<std::uint8_t>(rng());
    const std::span<const std::uint8_t> all(data);
    for (std::size_t a : {0u, 1u, 20u, 24u, 1000u})
        for (std::size_t b : {0u, 1u, 7u, 4096u, 65'536u}) {
            const auto first = all.first(a);
            const auto second = all.subspan(a, b);
            EXPECT_EQ(crc32c_combine(crc32c(first), crc32c(second), crc32c_shift(b)),
                      crc32c(all.first(a + b)))
                << a << " + " << b;
        }
}

}  // namespace
}  // namespace objwire
