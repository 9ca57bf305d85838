// is_valid_utf8: valid text accepted, each kind of malformed sequence refused, at every
// position of the word-at-a-time fast path.
#include <gtest/gtest.h>

#include <string>

#include "proto/utf8.hpp"

namespace objwire {
namespace {

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
