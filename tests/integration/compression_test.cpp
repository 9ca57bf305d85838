// Compressed streams through a real daemon over 127.0.0.1: every codec delivers intact, the
// welcome announces what the daemon accepts, auto measures the link, a configured slow link
// compresses, and batching keeps write system calls to about one per 16 KiB or better.
#include <gtest/gtest.h>

#include <objwire/connection.hpp>
#include "client/workloads/workloads.hpp"
#include "daemon_fixture.hpp"
#include "proto/codec.hpp"

namespace objwire::test {
namespace {

class Compression : public daemon_fixture {};

config::client_settings with(config::client_settings s, std::string policy, std::string codec,
                             std::uint32_t level = 1) {
    s.compression_policy = std::move(policy);
    s.compression_codec = std::move(codec);
    s.compression_level = level;
    return s;
}

void send_all(client::connection& c, const std::vector<message>& in) {
    ASSERT_FALSE(c.open()) << c.last_error();
    for (const auto& m : in)
        ASSERT_FALSE(c.send(m)) << c.last_error();
    ASSERT_FALSE(c.close()) << c.last_error();
    EXPECT_EQ(c.stats().objects_acked, in.size());
}

TEST_F(Compression, EveryCodecDeliversThroughTheDaemon) {
    start();
    const auto sent = generate("events", 4'000);
    std::vector<message> expected;
    for (const char* codec : {"zlib", "zstd", "lz4"}) {
        client::connection c(with(client_settings(), "always", codec), codec);
        send_all(c, sent);
        EXPECT_EQ(c.server().codecs, built_codecs()) << "the welcome lists what the daemon takes";
        const auto z = c.compression();
        // zstd goes as zstd-stream: the daemon keeps a zstd context per connection.
        EXPECT_EQ(codec_name(z.codec), std::string(codec) == "zstd" ? "zstd-stream" : codec);
        // Every frame tried came out smaller; a frame below compression.min_frame_bytes (a
        // batch the linger sealed early) goes plain, so the count of tries is not fixed.
        EXPECT_GT(z.frames_tried, 0u) << codec;
        EXPECT_EQ(z.frames_compressed, z.frames_tried) << codec;
        EXPECT_LT(z.ratio, 0.8) << codec;
        expected.insert(expected.end(), sent.begin(), sent.end());
    }
    stop();
    EXPECT_EQ(stored(), expected);
}

// compression.accept: the welcome lists only those (and none); a client asked for a refused
// codec falls back, to zlib when it is accepted and to plain frames when nothing is.
TEST_F(Compression, TheDaemonAcceptsOnlyTheCodecsConfigured) {
    settings_.compression_accept = {"lz4"};
    start();
    const auto sent = generate("events", 4'000);
    std::vector<message> expected;
    const auto bit = [](codec_id c) { return 1u << static_cast<unsigned>(c); };
    for (const char* codec : {"lz4", "zstd"}) {
        client::connection c(with(client_settings(), "always", codec), codec);
        send_all(c, sent);
        EXPECT_EQ(c.server().codecs, bit(codec_id::none) | bit(codec_id::lz4));
        const auto z = c.compression();
        if (std::string(codec) == "lz4") {
            EXPECT_EQ(z.codec, codec_id::lz4);
            // As above: a batch the linger sealed early may fall below min_frame_bytes.
            EXPECT_GT(z.frames_tried, 0u);
            EXPECT_EQ(z.frames_compressed, z.frames_tried);
        } else {
            EXPECT_EQ(z.codec, codec_id::none) << "zstd refused, and zlib too: plain frames";
            EXPECT_EQ(z.frames_compressed, 0u);
        }
        expected.insert(expected.end(), sent.begin(), sent.end());
    }
    stop();
    EXPECT_EQ(stored(), expected);
}

TEST_F(Compression, BlobsWithRandomPartsDeliverUnderAuto) {
    start();
    const auto batch = generate("blobs", 300);
    client::connection c(with(client_settings(), "auto", "zstd"));
    ASSERT_FALSE(c.open()) << c.last_error();
    // Loopback does not hold the sender back: its delivery rates are no full samples, and a
    // lower bound is the bytes acknowledged over 50 ms (client/lib/link_meter.hpp). So rounds of
    // 300 blobs (6 MB) go until the link is measured - at most 20 (120 MB).
    std::vector<message> sent;
    for (int round = 0; round < 20 && (round == 0 || !c.compression().link_measured); ++round) {
        for (const auto& m : batch)
            ASSERT_FALSE(c.send(m)) << c.last_error();
        sent.insert(sent.end(), batch.begin(), batch.end());
    }
    ASSERT_FALSE(c.close()) << c.last_error();
    EXPECT_EQ(c.stats().objects_acked, sent.size());
    EXPECT_TRUE(c.compression().link_measured);
    EXPECT_GT(c.compression().link_mbit, 0);
    stop();
    EXPECT_EQ(stored(), sent);
}

TEST_F(Compression, ConfiguredSlowLinkCompressesEveryFrame) {
    start();
    const auto sent = generate("events", 20'000);
    auto s = with(client_settings(), "auto", "zstd");
    s.link_bandwidth = "10Mbit";
    // Frames sealed by size only: on a loaded machine a producer paused past batch.linger would
    // have a small batch leave, and frames under compression.min_frame_bytes go plain.
    s.batch_linger = std::chrono::seconds(10);
    client::connection c(s);
    send_all(c, sent);
    const auto z = c.compression();
    EXPECT_TRUE(z.compressing);
    EXPECT_FALSE(z.link_measured);
    EXPECT_NEAR(z.link_mbit, 10, 0.01);
    EXPECT_GE(z.frames_compressed + 1, c.stats().frames);  // all but perhaps a tiny last one
    stop();
    EXPECT_EQ(stored(), sent);
}

TEST_F(Compression, NeverSendsPlainFrames) {
    start();
    const auto sent = generate("events", 5'000);
    client::connection c(with(client_settings(), "never", "zstd"));
    send_all(c, sent);
    EXPECT_EQ(c.compression().frames_compressed, 0u);
    EXPECT_EQ(c.compression().frames_tried, 0u);
    stop();
    EXPECT_EQ(stored(), sent);
}

TEST_F(Compression, HundredThousandPersonsTakeFewWriteCalls) {
    // The write-call bound: no more than (wire bytes / 16 KiB) + 50 write system
    // calls. write_calls counts each write_some on the non-blocking socket: one system call
    // each, including any that found the kernel's buffer full (tests/integration/
    // write_calls_test.sh checks the count against strace).
    start();
    const auto sent = generate("person", 100'000);
    client::connection c(client_settings());
    send_all(c, sent);
    const auto& st = c.stats();
    const std::uint64_t bound = st.wire_bytes_out / (16 * 1024) + 50;
    EXPECT_LE(st.write_calls, bound) << st.wire_bytes_out << " bytes in " << st.frames << " frames";
    EXPECT_LE(st.write_calls, st.frames + 2 + 50);  // hello, goodbye; a full buffer adds a few
    RecordProperty("write_calls", std::to_string(st.write_calls));
    RecordProperty("wire_bytes", std::to_string(st.wire_bytes_out));
    stop();
    EXPECT_EQ(stored().size(), sent.size());
}

TEST_F(Compression, LingerSendsASmallBatchOnTheNextSend) {
    // batch.linger 0: every send flushes, so every object travels in its own frame.
    start();
    auto s = client_settings();
    s.batch_linger = std::chrono::microseconds(0);
    client::connection c(s);
    const auto sent = generate("person", 20);
    send_all(c, sent);
    EXPECT_EQ(c.stats().frames, 20u);
    stop();
    EXPECT_EQ(stored(), sent);
}

}  // namespace
}  // namespace objwire::test
