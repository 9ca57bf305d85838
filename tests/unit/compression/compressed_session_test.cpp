// Sender and receiver state machines through memory with compression on: every codec carries
// the stream intact, frames say their codec and raw size, the receiver's decompression figures
// travel back in acks, and a sender never uses a codec the receiver did not accept.
#include <gtest/gtest.h>

#include <algorithm>

#include "../proto/test_support.hpp"
#include "proto/receiver.hpp"
#include "proto/sender.hpp"
#include "test_data.hpp"

namespace objwire {
namespace {

// Moves bytes both ways until neither end has anything to say; counts frames by codec.
struct memory_link {
    sender& s;
    receiver& r;
    std::vector<message> stored;
    std::array<int, 5> frames_by_codec{};

    void count(std::span<const std::uint8_t> out) {
        frame_parser p(1u << 30);
        while (!out.empty()) {
            auto f = p.parse(out);
            if (f.state != frame_parser::status::frame) return;
            if (f.frame.header.kind == frame_kind::data)
                ++frames_by_codec[static_cast<std::size_t>(f.frame.header.codec)];
            out = out.subspan(f.size);
        }
    }
    void pump() {
        for (int round = 0; round < 10'000; ++round) {
            bool moved = false;
            if (auto out = s.output(); !out.empty()) {
                count(out);
                test::deliver(s, r, stored);
                r.acknowledge();
                moved = true;
            }
            if (auto& back = r.output(); !back.empty()) {
                auto space = s.prepare();
                std::copy_n(back.data(), back.size(), space.data());
                s.commit(back.size());
                back.clear();
                s.process();
                moved = true;
            }
            if (!moved) return;
        }
    }
};

sender::options sender_opts(compression_mode mode, codec_id codec, int level = 0) {
    sender::options o;
    o.greeting.client_name = "test";
    o.greeting.codecs = built_codecs();
    o.batch_max_bytes = 16 * 1024;
    o.compression.mode = mode;
    o.compression.codec = codec;
    o.compression.level = level;
    return o;
}

receiver::options receiver_opts() {
    receiver::options o;
    o.sink = "memory";
    return o;
}

std::vector<message> people(int n) {
    std::vector<message> out;
    for (int i = 0; i < n; ++i)
        out.push_back(test::person(i));
    return out;
}

std::vector<message> documents(int n) {
    auto doc = make_record_type("Doc", {"id", "body", "thumb"});
    std::vector<message> out;
    for (int i = 0; i < n; ++i) {
        const auto text = test::text_bytes(3000, static_cast<unsigned>(i));
        const auto noise = test::random_bytes(500, static_cast<unsigned>(i));
        out.push_back(
            {make_record(doc, {i, std::string(text.begin(), text.end()), bytes{noise}}), {}});
    }
    return out;
}

void send_all(sender& s, memory_link& l, const std::vector<message>& in) {
    l.pump();
    ASSERT_EQ(s.current(), sender::state::streaming);
    for (std::size_t i = 0; i < in.size(); ++i) {
        ASSERT_FALSE(s.add(in[i]));
        if (i % 500 == 0) l.pump();
    }
    s.finish();
    l.pump();
    ASSERT_EQ(s.current(), sender::state::closed);
}

TEST(CompressedSession, EveryCodecCarriesTheStreamIntact) {
    const auto in = documents(300);
    for (auto c : test::compressing_codecs()) {
        for (int level : {levels_of(c).min, levels_of(c).max}) {
            sender s(sender_opts(compression_mode::always, c, level));
            receiver r(receiver_opts());
            memory_link l{s, r, {}};
            send_all(s, l, in);
            EXPECT_EQ(l.stored, in) << codec_name(c) << " level " << level;
            // zstd goes as zstd_stream to a receiver that takes it.
            const auto used = c == codec_id::zstd ? codec_id::zstd_stream : c;
            EXPECT_EQ(s.compression().codec(), used);
            EXPECT_GT(l.frames_by_codec[static_cast<std::size_t>(used)], 10) << codec_name(c);
            EXPECT_EQ(l.frames_by_codec[static_cast<std::size_t>(codec_id::none)], 0);
            const auto st = s.compression().stats();
            EXPECT_EQ(st.frames_compressed, s.frames_sent());
            EXPECT_LT(st.ratio, 0.6);
            EXPECT_LT(st.wire_bytes, st.raw_bytes);
        }
    }
}

TEST(CompressedSession, ReceiverReportsItsDecompressionInAcks) {
    sender s(sender_opts(compression_mode::always, codec_id::zlib));
    receiver r(receiver_opts());
    memory_link l{s, r, {}};
    send_all(s, l, documents(500));
    EXPECT_GT(s.last_ack().decompressed_bytes, 1'000'000u);
    EXPECT_GT(s.compression().stats().decompress_mb_s, 0);
}

TEST(CompressedSession, NeverSendsACodecTheReceiverDidNotAccept) {
    sender s(sender_opts(compression_mode::always, codec_id::zstd));
    receiver::options ro = receiver_opts();
    ro.codecs = 0b011;  // none and zlib
    receiver r(ro);
    memory_link l{s, r, {}};
    const auto in = documents(200);
    send_all(s, l, in);
    EXPECT_EQ(l.stored, in);
    EXPECT_EQ(s.compression().codec(), codec_id::zlib);
    EXPECT_EQ(l.frames_by_codec[static_cast<std::size_t>(codec_id::zstd)], 0);
    EXPECT_GT(l.frames_by_codec[static_cast<std::size_t>(codec_id::zlib)], 10);
}

TEST(CompressedSession, AutoOnASlowConfiguredLinkCompressesPeople) {
    sender::options o = sender_opts(compression_mode::automatic, codec_id::zstd, 1);
    o.compression.link_bits_per_second = 10'000'000;
    sender s(o);
    receiver r(receiver_opts());
    memory_link l{s, r, {}};
    const auto in = people(50'000);
    send_all(s, l, in);
    EXPECT_EQ(l.stored, in);
    const auto st = s.compression().stats();
    EXPECT_TRUE(st.compressing);
    EXPECT_GE(st.frames_compressed + 1, s.frames_sent());  // the last frame may be tiny
}

TEST(CompressedSession, AutoOnAFastLinkSendsPlainFramesButSamples) {
    sender::options o = sender_opts(compression_mode::automatic, codec_id::zstd, 1);
    o.compression.link_bits_per_second = 40'000'000'000;
    sender s(o);
    receiver r(receiver_opts());
    memory_link l{s, r, {}};
    const auto in = people(200'000);
    send_all(s, l, in);
    EXPECT_EQ(l.stored, in);
    const auto st = s.compression().stats();
    EXPECT_FALSE(st.compressing);
    EXPECT_GT(st.frames_tried, 0u);
    // One sample in 16 frames, plus the first two (a zstd_stream level is measured from the
    // second frame of its context on).
    EXPECT_LT(st.frames_tried * 8, s.frames_sent());
}

TEST(CompressedSession, IncompressibleFramesGoOutPlainEvenWhenAlways) {
    auto blob = make_record_type("Blob", {"data"});
    std::vector<message> in;
    for (int i = 0; i < 100; ++i)
        in.push_back(
            {make_record(blob, {bytes{test::random_bytes(4000, static_cast<unsigned>(i))}}), {}});
    sender s(sender_opts(compression_mode::always, codec_id::zlib, 6));
    receiver r(receiver_opts());
    memory_link l{s, r, {}};
    send_all(s, l, in);
    EXPECT_EQ(l.stored, in);
    EXPECT_EQ(l.frames_by_codec[static_cast<std::size_t>(codec_id::zlib)], 0);
    EXPECT_EQ(s.compression().stats().frames_compressed, 0u);
}

}  // namespace
}  // namespace objwire
