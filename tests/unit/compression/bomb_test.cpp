// Hostile compressed frames against a receiver: a size claim over the limit is refused before
// anything is allocated, and a stream that expands past its claim - a zlib bomb included - is
// refused having allocated no more than the claim.
#include <gtest/gtest.h>

#include <algorithm>

#include "alloc_probe.hpp"
#include "proto/errors.hpp"
#include "proto/receiver.hpp"
#include "test_data.hpp"

namespace objwire {
namespace {

constexpr std::uint32_t cap = 16u << 20;  // the receiver's max_frame_bytes

receiver::options opts() {
    receiver::options o;
    o.limits.max_frame_bytes = cap;
    o.sink = "memory";
    return o;
}

void feed(receiver& r, std::span<const std::uint8_t> bytes) {
    std::size_t pos = 0;
    for (int i = 0; i < 100'000 && pos < bytes.size(); ++i) {
        auto space = r.prepare();
        const std::size_t n = std::min(space.size(), bytes.size() - pos);
        std::copy_n(bytes.data() + pos, n, space.data());
        r.commit(n);
        pos += n;
        if (r.process([](message&&) {}) == receiver::step::close) return;
    }
}

std::vector<std::uint8_t> hello_frame() {
    hello h;
    h.client_name = "hostile";
    byte_buffer payload, frame;
    encode_hello(h, payload);
    append_frame(frame, frame_kind::hello, 0, payload.span());
    return {frame.data(), frame.data() + frame.size()};
}

// A receiver past its handshake.
struct greeted {
    receiver r{opts()};
    greeted() {
        feed(r, hello_frame());
        r.output().clear();
    }
};

TEST(Bomb, OneKibFrameClaimingOneGibIsRefusedBeforeAllocation) {
    greeted g;
    const auto junk = test::random_bytes(1024);
    const auto frame = test::data_frame(1, codec_id::zlib, 1u << 30, junk);
    test::reset_peak();
    const auto before = test::live_bytes();
    feed(g.r, frame);
    EXPECT_EQ(g.r.error(), proto_errc::frame_too_large);
    EXPECT_LT(test::peak_bytes() - before, 1u << 20);  // bytes read, an error text; not 1 GiB
}

TEST(Bomb, WithinLimitClaimThatExpandsFurtherIsDecompressFailed) {
    for (auto c : test::compressing_codecs()) {
        greeted g;
        const auto text = test::text_bytes(100'000);
        const auto packed = test::compressed(c, text);
        feed(g.r, test::data_frame(1, c, 50'000, packed));  // claims half of the truth
        EXPECT_EQ(g.r.error(), proto_errc::decompress_failed) << codec_name(c);
        EXPECT_EQ(g.r.messages(), 0u);
    }
}

TEST(Bomb, ZlibBombOfSixtyFourMibIsRefusedWithinTheCap) {
    // 64 MiB of zeros deflate to about 64 KiB; the frame honestly states... any size it likes
    // up to the cap. Claim the cap itself: the most the receiver can be made to set aside.
    std::vector<std::uint8_t> zeros(64u << 20, 0);
    auto bomb = test::compressed(codec_id::zlib, zeros, 9);
    zeros = {};
    zeros.shrink_to_fit();
    ASSERT_LT(bomb.size(), 128u * 1024);
    for (std::uint32_t claim : {cap, 1u << 20}) {
        greeted g;
        const auto frame = test::data_frame(1, codec_id::zlib, claim, bomb);
        test::reset_peak();
        const auto before = test::live_bytes();
        feed(g.r, frame);
        EXPECT_EQ(g.r.error(), proto_errc::decompress_failed) << claim;
        // The frame itself sits in the read buffer (<= 256 KiB here); the output is the claim.
        EXPECT_LE(test::peak_bytes() - before, std::size_t{claim} + (1u << 20)) << claim;
    }
}

TEST(Bomb, ZstdAndLz4BombsAreRefusedWithinTheCapToo) {
    std::vector<std::uint8_t> zeros(64u << 20, 0);
    for (auto c : {codec_id::zstd, codec_id::lz4}) {
        if (!has_codec(built_codecs(), c)) continue;
        const auto bomb = test::compressed(c, zeros);
        greeted g;
        test::reset_peak();
        const auto before = test::live_bytes();
        feed(g.r, test::data_frame(1, c, 1u << 20, bomb));
        EXPECT_EQ(g.r.error(), proto_errc::decompress_failed) << codec_name(c);
        EXPECT_LE(test::peak_bytes() - before, (2u << 20) + bomb.size() * 2) << codec_name(c);
    }
}

TEST(Bomb, UnannouncedCodecIsRefused) {
    receiver::options o = opts();
    o.codecs = (1u << static_cast<unsigned>(codec_id::none)) |
               (1u << static_cast<unsigned>(codec_id::zlib));
    receiver r(o);
    feed(r, hello_frame());
    // The welcome says what it takes.
    frame_parser p(cap);
    auto w = p.parse(r.output().span());
    ASSERT_EQ(w.state, frame_parser::status::frame);
    auto welcome = decode_welcome(w.frame.payload);
    ASSERT_TRUE(welcome);
    EXPECT_EQ(welcome->codecs, o.codecs);
    r.output().clear();
    const auto text = test::text_bytes(5'000);
    feed(r, test::data_frame(1, codec_id::zstd, 5'000, test::compressed(codec_id::zstd, text)));
    EXPECT_EQ(r.error(), proto_errc::bad_codec);
}

}  // namespace
}  // namespace objwire
