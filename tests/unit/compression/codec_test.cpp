// Every codec at every level it exposes round-trips; decompression yields exactly the stated
// raw_len or fails, whatever the input.
#include <gtest/gtest.h>

#include "proto/codec.hpp"
#include "proto/errors.hpp"
#include "test_data.hpp"

namespace objwire {
namespace {

using test::compressed;
using test::compressing_codecs;

TEST(Codecs, ZstdAndLz4AreBuiltByDefault) {
    // CMake options OBJWIRE_WITH_ZSTD/LZ4 default ON; zlib is always there.
    EXPECT_TRUE(has_codec(built_codecs(), codec_id::none));
    EXPECT_TRUE(has_codec(built_codecs(), codec_id::zlib));
    EXPECT_TRUE(has_codec(built_codecs(), codec_id::zstd));
    EXPECT_TRUE(has_codec(built_codecs(), codec_id::lz4));
}

TEST(Codecs, NamesParseBack) {
    for (auto c : {codec_id::none, codec_id::zlib, codec_id::zstd, codec_id::lz4})
        EXPECT_EQ(parse_codec(codec_name(c)), c);
    EXPECT_FALSE(parse_codec("gzip"));
}

TEST(Codecs, EveryCodecAtEveryLevelRoundTrips) {
    const auto text = test::text_bytes(64 * 1024);
    const auto noise = test::random_bytes(20 * 1024);
    const std::vector<std::uint8_t> tiny{42};
    frame_compressor z;  // one of each, reused across every codec and level as a connection does
    frame_decompressor u;
    byte_buffer packed, raw;
    for (auto c : compressing_codecs()) {
        const auto range = levels_of(c);
        for (int level = range.min; level <= range.max; ++level) {
            for (const auto* input : {&text, &noise, &tiny}) {
                packed.clear();
                ASSERT_FALSE(z.compress(c, level, *input, packed)) << codec_name(c) << level;
                const auto n = static_cast<std::uint32_t>(input->size());
                ASSERT_FALSE(u.decompress(c, packed.span(), n, raw)) << codec_name(c) << level;
                ASSERT_EQ(raw.size(), input->size());
                EXPECT_TRUE(std::equal(input->begin(), input->end(), raw.data()))
                    << codec_name(c) << " level " << level;
            }
            packed.clear();
            ASSERT_FALSE(z.compress(c, level, text, packed));
            EXPECT_LT(packed.size(), text.size() / 2) << codec_name(c) << " level " << level;
        }
    }
}

TEST(Codecs, EmptyPayloadRoundTrips) {
    frame_decompressor u;
    byte_buffer raw;
    for (auto c : compressing_codecs()) {
        const auto packed = compressed(c, {});
        EXPECT_FALSE(u.decompress(c, packed, 0, raw)) << codec_name(c);
        EXPECT_EQ(raw.size(), 0u);
    }
}

TEST(Codecs, LevelZeroIsTheDefaultAndOutOfRangeIsRefused) {
    frame_compressor z;
    byte_buffer out;
    const auto text = test::text_bytes(1000);
    for (auto c : compressing_codecs()) {
        out.clear();
        EXPECT_FALSE(z.compress(c, 0, text, out)) << codec_name(c);
        EXPECT_EQ(z.compress(c, levels_of(c).max + 1, text, out), proto_errc::bad_codec);
        EXPECT_EQ(z.compress(c, -1, text, out), proto_errc::bad_codec);
    }
}

TEST(Codecs, AStatedRawLenOtherThanTheTruthFails) {
    const auto text = test::text_bytes(10'000);
    frame_decompressor u;
    byte_buffer raw;
    for (auto c : compressing_codecs()) {
        const auto packed = compressed(c, text);
        // Claiming less: the stream would produce more than the cap.
        EXPECT_EQ(u.decompress(c, packed, 9'999, raw), proto_errc::decompress_failed)
            << codec_name(c);
        EXPECT_LE(raw.capacity(), 16u * 1024);  // the buffer was sized by the claim
        // Claiming more: the stream ends early.
        EXPECT_EQ(u.decompress(c, packed, 10'001, raw), proto_errc::decompress_failed)
            << codec_name(c);
        // And the context is fine afterwards.
        EXPECT_FALSE(u.decompress(c, packed, 10'000, raw)) << codec_name(c);
    }
}

TEST(Codecs, CorruptTruncatedOrPaddedStreamsFail) {
    const auto text = test::text_bytes(10'000);
    frame_decompressor u;
    byte_buffer raw;
    for (auto c : compressing_codecs()) {
        auto packed = compressed(c, text);
        auto cut = packed;
        cut.resize(cut.size() / 2);
        EXPECT_EQ(u.decompress(c, cut, 10'000, raw), proto_errc::decompress_failed)
            << codec_name(c);
        auto padded = packed;
        padded.push_back(0);
        EXPECT_EQ(u.decompress(c, padded, 10'000, raw), proto_errc::decompress_failed)
            << codec_name(c);
        const auto garbage = test::random_bytes(500, 9);
        EXPECT_EQ(u.decompress(c, garbage, 10'000, raw), proto_errc::decompress_failed)
            << codec_name(c);
    }
}

TEST(Codecs, EveryTruncationOfASmallStreamFailsCleanly) {
    // Each prefix of a real stream: never a crash, never a success (run under ASan in CI).
    const auto text = test::text_bytes(3'000);
    frame_decompressor u;
    byte_buffer raw;
    for (auto c : compressing_codecs()) {
        const auto packed = compressed(c, text);
        for (std::size_t n = 0; n < packed.size(); ++n) {
            const std::span<const std::uint8_t> prefix(packed.data(), n);
            ASSERT_EQ(u.decompress(c, prefix, 3'000, raw), proto_errc::decompress_failed)
                << codec_name(c) << " prefix " << n;
        }
    }
}

TEST(Codecs, EachFrameDecodesOnItsOwn) {
    // Contexts are reused but reset per frame: the second frame needs nothing of the first.
    const auto a = test::text_bytes(30'000, 3);
    const auto b = test::text_bytes(30'000, 3);  // same text: a shared context would refer back
    for (auto c : compressing_codecs()) {
        frame_compressor z;
        byte_buffer first, second, raw;
        ASSERT_FALSE(z.compress(c, 0, a, first));
        ASSERT_FALSE(z.compress(c, 0, b, second));
        EXPECT_EQ(first.size(), second.size()) << codec_name(c);
        frame_decompressor fresh;
        EXPECT_FALSE(fresh.decompress(c, second.span(), 30'000, raw)) << codec_name(c);
    }
}

TEST(Codecs, NoneIsACopyThatChecksItsLength) {
    frame_decompressor u;
    byte_buffer raw;
    const std::vector<std::uint8_t> in{1, 2, 3};
    EXPECT_FALSE(u.decompress(codec_id::none, in, 3, raw));
    EXPECT_EQ(raw.size(), 3u);
    EXPECT_EQ(u.decompress(codec_id::none, in, 4, raw), proto_errc::decompress_failed);
}

}  // namespace
}  // namespace objwire
