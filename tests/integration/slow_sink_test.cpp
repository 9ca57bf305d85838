// A sink slower than its sender: the daemon announces its share of limits.max_buffered_bytes
// as its credit (welcome field 11) and clients keep their unacknowledged bytes within it; a
// sender that ignores it is held anyway, because the daemon stops reading a connection while
// the bytes it read whose objects are not yet durable pass the cap - so its memory stays
// bounded however much is pushed (a slow sink, the buffered-bytes cap). The sink is slowed by
// its sync: a batch becomes durable only at the next sync, every 100 ms.
//
// The ctest run pushes 16 MiB; OBJWIRE_SLOW_SINK_MIB=1024 pushes 1 GiB and prints the
// process's peak RSS (daemon and client share the test process).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <objwire/connection.hpp>
#include "bad_peer.hpp"
#include "client/workloads/workloads.hpp"
#include "daemon/telemetry/metrics.hpp"
#include "daemon_fixture.hpp"
#include "proto/encoder.hpp"

namespace objwire::test {
namespace {

using namespace std::chrono_literals;

std::uint64_t megabytes_to_push() {
    const char* env = std::getenv("OBJWIRE_SLOW_SINK_MIB");
    return env ? std::strtoull(env, nullptr, 10) : 16;
}

std::string peak_rss() {
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);)
        if (line.rfind("VmHWM:", 0) == 0) return line.substr(6);
    return "?";
}

class SlowSink : public daemon_fixture {
  protected:
    // Acknowledged only when the next sync makes a batch durable: reading runs ahead of it.
    void slow_journal(std::uint64_t cap) {
        settings_.max_buffered_bytes = cap;
        settings_.journal_fsync = "interval";
        settings_.journal_fsync_interval = 100ms;
    }
    // Starts a slow journal with credit `cap` and pushes blobs through a client whose own
    // window (1 GiB, the most flow.max_in_flight takes) would never hold it back: only the
    // daemon's credit can.
    client::connection_stats push_against_credit(std::uint64_t cap, std::uint64_t megabytes) {
        slow_journal(cap);
        start();
        auto cs = client_settings();
        cs.max_in_flight = config::gibibyte;
        cs.compression_policy = "never";
        client::connection c(cs, "slow-sink-test");
        EXPECT_FALSE(c.open()) << c.last_error();
        EXPECT_EQ(c.server().credit_bytes, settings_.max_buffered_bytes);
        auto blobs = workloads::make("blobs", 3);
        message m;
        std::uint64_t sent = 0;
        while (c.stats().wire_bytes_out < megabytes * config::mebibyte) {
            blobs->next(m);
            if (c.send(m)) break;
            ++sent;
        }
        EXPECT_FALSE(c.close()) << c.last_error();
        EXPECT_EQ(c.stats().objects_acked, sent);
        EXPECT_EQ(c.stats().window_bytes, cap);
        return c.stats();
    }
};

// The daemon's own enforcement, for senders that ignore the credit (older clients, or worse):
// a raw peer pushes frames without ever waiting for an ack.
TEST_F(SlowSink, ASenderThatIgnoresTheCreditIsHeldAtTheBufferCap) {
    constexpr std::uint64_t cap = 1 * config::mebibyte;
    slow_journal(cap);
    start();
    raw_peer peer(port());
    encoder_options eo;
    eo.peer.table_budget = 0;  // no back-references: the frames need no table on either side
    stream_encoder encoder(eo);
    auto blobs = workloads::make("blobs", 3);
    const std::uint64_t target = megabytes_to_push() * config::mebibyte;
    message m;
    byte_buffer payload;
    std::uint64_t pushed = 0;
    std::uint64_t frames = 0;
    while (pushed < target) {  // blocks in write() while the daemon is not reading
        blobs->next(m);
        payload.clear();
        ASSERT_FALSE(encoder.encode(m, payload));
        peer.send_frame(frame_kind::data, ++frames, payload.span());
        pushed += frame_header_size + payload.size();
    }
    peer.send_frame(frame_kind::goodbye, 0, {});
    ack last{};
    for (auto f = peer.read_frame(); f.header.kind != frame_kind::goodbye; f = peer.read_frame()) {
        ASSERT_NE(static_cast<int>(f.header.kind), 0) << "closed before its goodbye";
        if (f.header.kind == frame_kind::ack) last = decode_ack(f.payload).value();
    }
    EXPECT_EQ(last.sequence, frames);
    const auto peak = server().metrics().held_bytes_peak.load();
    // The pause engaged (more than the cap was read before the sink caught up) and held the
    // connection to the cap plus the one read that crossed it - a read takes what the receive
    // buffer has room for, at most twice limits.read_buffer.
    EXPECT_GT(peak, cap);
    EXPECT_LE(peak, cap + 2 * settings_.read_buffer);
    EXPECT_EQ(server().metrics().held_bytes.load(), 0);
    std::cout << "pushed " << pushed / config::mebibyte << " MiB, " << frames
              << " objects; held at most " << peak << " bytes (cap " << cap
              << "); peak RSS of the process" << peak_rss() << "\n";
}

// Explicit credit (welcome field 11): the client keeps what it has written and not yet seen
// acknowledged within the daemon's limits.max_buffered_bytes, whatever its own max_in_flight,
// so the daemon never has to pause reading it.
TEST_F(SlowSink, AClientKeepsItsUnacknowledgedBytesWithinTheCredit) {
    constexpr std::uint64_t cap = 256 * config::kibibyte;
    const auto stats = push_against_credit(cap, 8);
    EXPECT_LE(stats.peak_unacked_bytes, cap);
    EXPECT_GT(stats.peak_unacked_bytes, cap / 2);  // acks come every 100 ms: the window filled
    // What the daemon held is what the client had unacknowledged - plus the hello's bytes,
    // counted with the first batch.
    EXPECT_LE(server().metrics().held_bytes_peak.load(), cap + 1024);
    std::cout << "credit " << cap << ": at most " << stats.peak_unacked_bytes
              << " bytes unacknowledged, the daemon held at most "
              << server().metrics().held_bytes_peak.load() << "\n";
}

// A credit smaller than one frame still lets every frame through, one at a time.
TEST_F(SlowSink, FramesLargerThanTheCreditGoOneAtATime) {
    constexpr std::uint64_t cap = 16 * config::kibibyte;
    const auto stats = push_against_credit(cap, 1);
    // A frame is sealed once it passes batch.max_bytes (64 KiB), so it is at most that plus
    // one blob (about 20 KiB): more than the credit, and never two of them unacknowledged.
    EXPECT_GT(stats.peak_unacked_bytes, cap);
    EXPECT_LE(stats.peak_unacked_bytes, 64 * config::kibibyte + 32 * config::kibibyte);
    std::cout << "credit " << cap << ": at most " << stats.peak_unacked_bytes
              << " bytes unacknowledged (one frame)\n";
}

// Senders share the credit (daemon/serve/credit_share.hpp): each new sender is welcomed with
// limits.max_buffered_bytes divided among the senders connected, and the first one, welcomed
// alone with the whole, is held by the daemon at its share once the others are there.
TEST_F(SlowSink, SendersShareTheCreditAndTheFirstIsHeldAtItsShare) {
    constexpr std::uint64_t cap = 1 * config::mebibyte;
    slow_journal(cap);
    start();
    std::vector<std::unique_ptr<client::connection>> senders;
    for (std::uint64_t k = 1; k <= 4; ++k) {
        auto cs = client_settings();
        cs.sender_id = "share-" + std::to_string(k);
        cs.max_in_flight = config::gibibyte;
        cs.compression_policy = "never";
        senders.push_back(std::make_unique<client::connection>(cs, "slow-sink-test"));
        ASSERT_FALSE(senders.back()->open()) << senders.back()->last_error();
        EXPECT_EQ(senders.back()->server().credit_bytes, cap / k) << k << " senders";
    }
    auto& first = *senders.front();
    auto blobs = workloads::make("blobs", 3);
    message m;
    while (first.stats().wire_bytes_out < 4 * config::mebibyte) {
        blobs->next(m);
        ASSERT_FALSE(first.send(m)) << first.last_error();
    }
    ASSERT_FALSE(first.close()) << first.last_error();
    const auto share = cap / 4;
    const auto peak = server().metrics().held_bytes_peak.load();
    // Within the 1 MiB credit it was welcomed with, the first sender is still paused at a
    // quarter of it: the share and one read, itself no more than the share.
    EXPECT_GT(peak, share / 2);
    EXPECT_LE(peak, 2 * share + 1024);
    std::cout << "4 senders, credit " << cap << ": the first held at most " << peak
              << " bytes (share " << share << ")\n";
    for (std::size_t k = 1; k < senders.size(); ++k)
        EXPECT_FALSE(senders[k]->close()) << senders[k]->last_error();
}

// The credit in acks (field 7): a sender welcomed alone, with the whole budget, fills that
// window; once three more senders are there, the next ack tells it its share, and from the
// first frame it writes after that its unacknowledged bytes stay within the share - the
// frames written before it were acknowledged first.
TEST_F(SlowSink, AnEarlySendersWindowShrinksToItsShareWhenOthersJoin) {
    constexpr std::uint64_t cap = 1 * config::mebibyte;
    slow_journal(cap);
    start();
    const auto sender_settings = [&](int k) {
        auto cs = client_settings();
        cs.sender_id = "late-share-" + std::to_string(k);
        cs.max_in_flight = config::gibibyte;
        cs.compression_policy = "never";
        return cs;
    };
    client::connection first(sender_settings(1), "slow-sink-test");
    ASSERT_FALSE(first.open()) << first.last_error();
    ASSERT_EQ(first.stats().window_bytes, cap);
    auto blobs = workloads::make("blobs", 3);
    message m;
    const auto send_one = [&] {
        blobs->next(m);
        return first.send(m);
    };
    // Alone: the whole budget in flight (acks come every 100 ms).
    while (first.stats().peak_unacked_bytes <= cap / 2 &&
           first.stats().wire_bytes_out < 16 * config::mebibyte)
        ASSERT_FALSE(send_one()) << first.last_error();
    EXPECT_GT(first.stats().peak_unacked_bytes, cap / 2);

    std::vector<std::unique_ptr<client::connection>> later;
    for (int k = 2; k <= 4; ++k) {
        later.push_back(std::make_unique<client::connection>(sender_settings(k), "slow-sink-test"));
        ASSERT_FALSE(later.back()->open()) << later.back()->last_error();
    }
    const auto share = cap / 4;
    // The next ack carries the share; sending (which reads acks) brings it.
    const auto told_at = first.stats().wire_bytes_out;
    while (first.stats().window_bytes != share &&
           first.stats().wire_bytes_out < told_at + 16 * config::mebibyte)
        ASSERT_FALSE(send_one()) << first.last_error();
    ASSERT_EQ(first.stats().window_bytes, share);
    // Frames offered under the old window may still be written, and stay in flight above the
    // share until acknowledged; once acks bring the unacknowledged bytes within it, every
    // frame written after keeps them there.
    const auto shrunk_at = first.stats().wire_bytes_out;
    bool within = false;
    std::uint64_t most = 0, writes_after = 0;
    for (int i = 0; i < 100'000 && first.stats().wire_bytes_out < shrunk_at + 4 * config::mebibyte;
         ++i) {
        const auto before = first.stats().wire_bytes_out;
        ASSERT_FALSE(send_one()) << first.last_error();
        const auto now = first.stats();
        if (!within) {
            within = now.unacked_bytes <= share;
        } else if (now.wire_bytes_out > before) {
            most = std::max(most, now.unacked_bytes);
            ++writes_after;
        }
    }
    EXPECT_TRUE(within);
    EXPECT_GT(writes_after, 0u);
    EXPECT_LE(most, share);
    ASSERT_FALSE(first.close()) << first.last_error();
    std::cout << "alone: " << first.stats().peak_unacked_bytes
              << " bytes unacknowledged at most; with 3 more senders: " << most << " (share "
              << share << ")\n";
    for (auto& c : later)
        EXPECT_FALSE(c->close()) << c->last_error();
}

}  // namespace
}  // namespace objwire::test
