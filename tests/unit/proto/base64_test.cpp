// Base64 as RFC 4648 gives it (its test vectors), decoding as the inverse of encoding at every
// length, and the offsets decoding reports for text that is not base64.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "proto/base64.hpp"

namespace objwire {
namespace {

std::vector<std::uint8_t> bytes_of(std::string_view s) {
    return {s.begin(), s.end()};
}

TEST(Base64, EncodesTheRfcVectors) {
    const std::pair<std::string_view, std::string_view> vectors[] = {{"", ""},
                                                                     {"f", "Zg=="},
                                                                     {"fo", "Zm8="},
                                                                     {"foo", "Zm9v"},
                                                                     {"foob", "Zm9vYg=="},
                                                                     {"fooba", "Zm9vYmE="},
                                                                     {"foobar", "Zm9vYmFy"}};
    for (const auto& [plain, encoded] : vectors) {
        std::string out = "x";  // appends
        append_base64(out, bytes_of(plain));
        EXPECT_EQ(out, "x" + std::string(encoded)) << plain;
        EXPECT_EQ(base64_length(plain.size()), encoded.size());
        std::vector<std::uint8_t> back{1, 2, 3};  // replaced
        EXPECT_EQ(decode_base64(encoded, back), std::nullopt) << encoded;
        EXPECT_EQ(back, bytes_of(plain));
    }
}

TEST(Base64, DecodingInvertsEncodingAtEveryLength) {
    std::mt19937 rng(3);
    for (std::size_t n = 0; n <= 64; ++n) {
        std::vector<std::uint8_t> data(n);
        for (auto& b : data)
            b = static_cast<std::uint8_t>(rng());
        std::string text;
        append_base64(text, data);
        std::vector<std::uint8_t> back;
        ASSERT_EQ(decode_base64(text, back), std::nullopt) << n;
        EXPECT_EQ(back, data) << n;
    }
}

TEST(Base64, NamesWhereTextIsNotBase64) {
    std::vector<std::uint8_t> out;
    EXPECT_EQ(decode_base64("Zm9v!mFy", out), 4u);  // the first bad character
    EXPECT_EQ(decode_base64("Zm9-", out), 3u);      // the URL-safe alphabet is not accepted
    EXPECT_EQ(decode_base64("Zm9vY", out), 5u);     // a length not a multiple of 4: the length
    EXPECT_EQ(decode_base64("Zg", out), 2u);        // padding is required
}

}  // namespace
}  // namespace objwire
