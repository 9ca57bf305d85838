#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "proto/crc32c.hpp"
#include "proto/utf8.hpp"

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

TEST(Utf8, AcceptsValidText) {
    EXPECT_TRUE(is_valid_utf8(""));
    EXPECT_TRUE(is_valid_utf8("plain ascii that is longer than eight bytes"));
    EXPECT_TRUE(is_valid_utf8("h\xC3\xA9llo \xE2\x82\xAC \xF0\x9F\x98\x80"));
    EXPECT_TRUE(is_valid_utf8("\xF4\x8F\xBF\xBF"));  // U+10FFFF
}

TEST(Utf8, RejectsMalformedText) {
    EXPECT_FALSE(is_valid_utf8("\xFF"));
    EXPECT_FALSE(is_valid_utf8("\xC3"));              // truncated
    EXPECT_FALSE(is_valid_utf8("\xC0\xAF"));          // overlong
    EXPECT_FALSE(is_valid_utf8("\xE0\x80\xAF"));      // overlong
    EXPECT_FALSE(is_valid_utf8("\xED\xA0\x80"));      // surrogate
    EXPECT_FALSE(is_valid_utf8("\xF4\x90\x80\x80"));  // above U+10FFFF
    EXPECT_FALSE(is_valid_utf8("abcdefgh\x80"));      // stray continuation after fast path
}

// The ASCII fast path reads whole words, the last one overlapping: a bad byte or a valid
// sequence anywhere - in a word, in the overlap, in the tail - is judged as byte by byte.
TEST(Utf8, EveryPositionIsCheckedWhateverTheLength) {
    for (std::size_t len = 1; len <= 40; ++len) {
        for (std::size_t pos = 0; pos < len; ++pos) {
            std::string s(len, 'a');
            s[pos] = '\x80';
            EXPECT_FALSE(is_valid_utf8(s)) << len << " " << pos;
            if (pos + 1 < len) {
                s[pos] = '\xC3';
                s[pos + 1] = '\xA9';  // e-acute
                EXPECT_TRUE(is_valid_utf8(s)) << len << " " << pos;
                s[pos + 1] = 'a';  // a lead byte without its continuation
                EXPECT_FALSE(is_valid_utf8(s)) << len << " " << pos;
            }
        }
    }
}

}  // namespace
}  // namespace objwire
