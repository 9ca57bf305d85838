// Resume without a socket: a resumable sender talks to a model daemon through memory, and the
// connection is cut at every step of the exchange - mid-frame, after a frame was stored but
// before its ack came back, during the handshake, after the goodbye was queued. After each cut
// the sender restarts, the model daemon welcomes it at its last stored frame + 1, and in the end
// the daemon holds every message exactly once, in order, with gap-free sequences.
#include <gtest/gtest.h>

#include <algorithm>

#include "client/workloads/workloads.hpp"
#include "proto/columns.hpp"
#include "proto/input_digest.hpp"
#include "proto/receiver.hpp"
#include "proto/sender.hpp"
#include "test_support.hpp"

namespace objwire {
namespace {

// What the daemon keeps across connections for one sender id.
struct model_daemon {
    std::vector<message> stored;
    std::uint64_t column_frames = 0;  // frames that came in column layout
    std::uint64_t last_sequence = 0;  // the last frame stored
    std::uint64_t connections = 0;
    bool gap = false;          // the receiver refused a frame (sequence out of order, ...)
    std::uint64_t digest = 0;  // the input digest the last stored frame's mark gave
};

// One connection: moves bytes both ways, one step at a time, and reports whether the cut
// step was reached.
struct cut_connection {
    cut_connection(sender& snd, model_daemon& dm, std::uint64_t cut, std::uint64_t& steps,
                   std::size_t c)
        : s(snd), d(dm), cut_at(cut), step(steps), chunk(c) {}

    sender& s;
    model_daemon& d;
    std::uint64_t cut_at;  // the global step at which the connection breaks (0: never)
    std::uint64_t& step;
    std::size_t chunk;
    receiver r{options()};
    std::size_t pending = 0;  // bytes of s.output() already moved in the current write

    static receiver::options options() {
        receiver::options o;
        o.sink = "model";
        o.admit_on_hello = false;
        return o;
    }

    // One step: part of the sender's output to the receiver, or the receiver's replies back.
    // False when there was nothing to do; `cut` when the connection broke on this step.
    bool advance(bool& cut) {
        auto out = s.output();
        auto& back = r.output();
        if (out.empty() && back.empty()) return false;
        if (++step == cut_at) {
            cut = true;
            return true;
        }
        if (!out.empty()) {
            auto space = r.prepare();
            const std::size_t n = std::min({space.size(), out.size() - pending, chunk});
            std::copy_n(out.data() + pending, n, space.data());
            r.commit(n);
            pending += n;
            if (pending == out.size()) {
                s.consume_output();
                pending = 0;
            }
            deliver();
            return true;
        }
        auto space = s.prepare();
        EXPECT_GE(space.size(), back.size());
        std::copy_n(back.data(), back.size(), space.data());
        s.commit(back.size());
        back.clear();
        s.process();
        return true;
    }

    void deliver() {
        const auto store = [&](message&& m) { d.stored.push_back(std::move(m)); };
        const auto count = [&](std::uint64_t) {
            d.column_frames += has_columns(r.frame_payload());
            d.digest = r.frame_digest();
        };
        auto st = r.process(store, count);
        if (st == receiver::step::admit) {
            ++d.connections;
            // A resume token: the sender reports its input digest with mark frames.
            r.admit(d.last_sequence, {"token", d.stored.size(), d.digest});
            st = r.process(store, count);
        }
        if (r.current() == receiver::state::failed) d.gap = true;
        if (r.current() != receiver::state::admitting)
            d.last_sequence = r.frames();  // stored (durable) as soon as delivered
        r.acknowledge();
    }

    // Runs until quiet or cut; true when cut.
    bool run() {
        for (int i = 0; i < 1'000'000; ++i) {
            bool cut = false;
            if (!advance(cut)) return false;
            if (cut) return true;
        }
        ADD_FAILURE() << "link never went quiet";
        return false;
    }
};

// Whether the senders of send_with_cuts compress every frame (the daemon takes zstd_stream,
// so zstd means one context per connection, restarted with each connection).
compression_mode test_compression = compression_mode::automatic;
// How often the senders of send_with_cuts empty the table (sender::options::max_replay_bytes).
std::uint64_t test_replay_bytes = 8 * 1024 * 1024;

sender::options resumable_opts(std::uint32_t batch = 512) {
    sender::options o;
    o.compression.mode = test_compression;
    o.compression.codec = codec_id::zstd;
    o.compression.min_frame_bytes = 64;
    o.greeting.client_name = "test";
    o.greeting.sender_id = "s-1";
    o.batch_max_bytes = batch;
    o.resumable = true;
    o.max_replay_bytes = test_replay_bytes;
    o.input_digests = true;
    return o;
}

std::vector<message> events(std::size_t n) {
    auto w = workloads::make("events");
    std::vector<message> out(n);
    for (auto& m : out)
        w->next(m);
    return out;
}

struct outcome {
    std::vector<message> stored;
    std::uint64_t steps = 0;
    std::uint64_t connections = 0;
    std::uint64_t resent = 0;
    std::uint64_t compressed = 0;  // frames the sender compressed
    std::uint64_t column_frames = 0;
    std::uint64_t table_resets = 0;
    bool closed = false;
    bool gap = false;
    std::uint64_t digest = 0;  // the daemon's, after the last frame
};

std::uint64_t input_digest_of(const std::vector<message>& msgs) {
    std::uint64_t d = empty_input_digest;
    for (const auto& m : msgs)
        d = chain_input_digest(d, object_digest(m));
    return d;
}

// Sends `msgs` in groups, cutting the connection at the global steps in `cuts`.
outcome send_with_cuts(const std::vector<message>& msgs, const std::vector<std::uint64_t>& cuts,
                       std::size_t chunk, std::size_t group = 40) {
    model_daemon d;
    sender s(resumable_opts());
    std::uint64_t step = 0;
    std::size_t next_cut = 0;
    auto connect = [&] {
        return std::make_unique<cut_connection>(s, d, next_cut < cuts.size() ? cuts[next_cut] : 0,
                                                step, chunk);
    };
    auto w = connect();
    auto run = [&] {
        for (int attempts = 0; attempts < 1000 && w->run(); ++attempts) {
            ++next_cut;
            EXPECT_FALSE(s.restart());
            w = connect();
        }
    };
    std::size_t i = 0;
    while (i < msgs.size()) {
        run();
        if (s.current() != sender::state::streaming) continue;  // greeting: run again
        for (std::size_t end = std::min(msgs.size(), i + group); i < end; ++i)
            EXPECT_FALSE(s.add(msgs[i]));
    }
    run();
    while (s.current() != sender::state::streaming)
        run();
    s.finish();
    run();
    outcome o;
    o.stored = std::move(d.stored);
    o.steps = step;
    o.connections = d.connections;
    o.resent = s.frames_resent();
    o.compressed = s.compression().stats().frames_compressed;
    o.column_frames = d.column_frames;
    o.table_resets = s.table().resets;
    o.closed = s.current() == sender::state::closed && s.all_acked();
    o.gap = d.gap;
    o.digest = d.digest;
    EXPECT_EQ(s.messages_acked(), msgs.size());
    EXPECT_EQ(s.input_digest(), input_digest_of(msgs));
    return o;
}

TEST(Resume, NoCutDeliversEverythingOnce) {
    const auto msgs = events(400);
    auto o = send_with_cuts(msgs, {}, 1 << 20);
    EXPECT_TRUE(o.closed);
    EXPECT_EQ(o.connections, 1u);
    EXPECT_EQ(o.stored, msgs);
    EXPECT_EQ(o.digest, input_digest_of(msgs));
}

// The heart of it: for every step k of the exchange, a run that breaks the connection at step
// k (and again 37 steps later) still stores every message exactly once and in order.
TEST(Resume, CutAtEveryStepLosesAndDuplicatesNothing) {
    const auto msgs = events(300);
    for (std::size_t chunk : {std::size_t{1} << 20, std::size_t{700}}) {
        const auto baseline = send_with_cuts(msgs, {}, chunk, 10);
        ASSERT_EQ(baseline.stored, msgs);
        ASSERT_GT(baseline.steps, 20u);
        std::uint64_t resent = 0;
        for (std::uint64_t k = 1; k <= baseline.steps; ++k) {
            auto o = send_with_cuts(msgs, {k, k + 37}, chunk, 10);
            ASSERT_TRUE(o.closed) << "cut at step " << k << ", chunk " << chunk;
            ASSERT_FALSE(o.gap) << "cut at step " << k;
            ASSERT_GE(o.connections, 2u) << "cut at step " << k;
            ASSERT_EQ(o.stored.size(), msgs.size()) << "cut at step " << k << ", chunk " << chunk;
            ASSERT_EQ(o.stored, msgs) << "cut at step " << k << ", chunk " << chunk;
            // The marks of resent frames say what the first ones did: the daemon ends with the
            // digest of the whole input.
            ASSERT_EQ(o.digest, input_digest_of(msgs)) << "cut at step " << k;
            resent += o.resent;
        }
        EXPECT_GT(resent, 0u);  // some cuts did leave frames to resend
    }
}

// The same with every frame compressed by zstd_stream: after each cut the sender's contexts
// and the new receiver's start together, and the resent frames - kept in column layout, as
// frames compressed across frames are written - are compressed for the new one.
TEST(Resume, CutAtEveryStepWithAStreamContext) {
    test_compression = compression_mode::always;
    const auto msgs = events(300);
    const auto baseline = send_with_cuts(msgs, {}, 700, 10);
    ASSERT_EQ(baseline.stored, msgs);
    ASSERT_GT(baseline.compressed, 10u);
    EXPECT_GE(baseline.column_frames, baseline.compressed);
    for (std::uint64_t k = 1; k <= baseline.steps; ++k) {
        auto o = send_with_cuts(msgs, {k, k + 37}, 700, 10);
        ASSERT_TRUE(o.closed) << "cut at step " << k;
        ASSERT_FALSE(o.gap) << "cut at step " << k;
        ASSERT_EQ(o.stored, msgs) << "cut at step " << k;
    }
    test_compression = compression_mode::automatic;
}

// A sender that empties its table every ~1 KiB keeps only the frames since the last emptied
// table that was acknowledged; every cut still rebuilds the old table from those alone.
TEST(Resume, CutAtEveryStepWithFrequentTableResets) {
    test_replay_bytes = 1024;
    const auto msgs = events(300);
    const auto baseline = send_with_cuts(msgs, {}, 700, 10);
    ASSERT_EQ(baseline.stored, msgs);
    EXPECT_GT(baseline.table_resets, 10u);  // 300 events are ~20 KiB of frames
    for (std::uint64_t k = 1; k <= baseline.steps; ++k) {
        auto o = send_with_cuts(msgs, {k, k + 37}, 700, 10);
        ASSERT_TRUE(o.closed) << "cut at step " << k;
        ASSERT_FALSE(o.gap) << "cut at step " << k;
        ASSERT_EQ(o.stored, msgs) << "cut at step " << k;
    }
    test_replay_bytes = 8 * 1024 * 1024;
}

// What a resumable sender keeps is bounded by max_replay_bytes (plus the frame that crossed
// it) and what is unacknowledged - not by the length of the stream - with frames of a batch or
// of one message each (linger 0), whose bookkeeping counts too.
void expect_kept_frames_bounded(std::uint32_t batch) {
    const auto msgs = events(3000);
    model_daemon d;
    sender::options opts = resumable_opts(batch);
    opts.compression.mode = compression_mode::never;
    opts.max_replay_bytes = 4096;
    sender s(opts);
    std::uint64_t step = 0;
    cut_connection w{s, d, 0, step, 1 << 20};
    w.run();
    ASSERT_EQ(s.current(), sender::state::streaming);
    // A kept frame costs its payload plus 64 bytes; on the wire it has a 24-byte header, so
    // what is unacknowledged costs at most 3x its wire bytes when kept.
    const std::uint64_t frame = batch + 64 + 200;  // an event is under 200 bytes
    std::uint64_t peak = 0;
    for (std::size_t i = 0; i < msgs.size(); ++i) {
        ASSERT_FALSE(s.add(msgs[i]));
        if (i % 7 == 0) w.run();  // acks come back now and then
        ASSERT_LE(s.retained_bytes(), opts.max_replay_bytes + 2 * frame + 3 * s.in_flight_bytes())
            << "after message " << i;
        peak = std::max(peak, s.retained_bytes());
    }
    s.finish();
    w.run();
    EXPECT_EQ(d.stored, msgs);
    EXPECT_GT(peak, opts.max_replay_bytes);  // the bound is reached, so the check means something
    EXPECT_GT(s.table().resets, 30u);        // ~200 KiB of frames, a reset every 4 KiB
}

TEST(Resume, KeptFramesStayWithinTheReplayBound) {
    expect_kept_frames_bounded(512);
}

TEST(Resume, KeptFramesOfOneMessageEachStayWithinTheReplayBound) {
    expect_kept_frames_bounded(1);
}

TEST(Resume, ManyCutsInOneStream) {
    const auto msgs = events(2000);
    std::vector<std::uint64_t> cuts;
    for (std::uint64_t k = 3; k < 5000; k += 11)
        cuts.push_back(k);
    auto o = send_with_cuts(msgs, cuts, 333);
    EXPECT_TRUE(o.closed);
    EXPECT_FALSE(o.gap);
    EXPECT_GT(o.connections, 20u);
    EXPECT_EQ(o.stored, msgs);
}

// Frames stored before the cut but never acknowledged are not sent again; the others keep
// their sequence numbers.
TEST(Resume, ResendsOnlyWhatFollowsTheLastStoredFrame) {
    const auto msgs = events(200);
    model_daemon d;
    sender s(resumable_opts(256));
    std::uint64_t step = 0;
    cut_connection w1{s, d, 0, step, 1 << 20};
    w1.run();
    ASSERT_EQ(s.current(), sender::state::streaming);
    for (const auto& m : msgs)
        ASSERT_FALSE(s.add(m));
    s.seal();
    const std::uint64_t sealed = s.next_sequence() - 1;
    ASSERT_GT(sealed, 10u);
    // The first half of the output reaches the daemon; no ack comes back.
    auto out = s.output();
    auto space = w1.r.prepare();
    const std::size_t half = std::min(space.size(), out.size() / 2);
    std::copy_n(out.data(), half, space.data());
    w1.r.commit(half);
    w1.deliver();
    w1.r.output().clear();  // the acks are lost with the connection
    const std::uint64_t stored = d.last_sequence;
    ASSERT_GT(stored, 0u);
    ASSERT_LT(stored, sealed);
    ASSERT_FALSE(s.restart());
    cut_connection w2{s, d, 0, step, 1 << 20};
    w2.run();
    EXPECT_EQ(s.frames_resent(), sealed - stored);
    EXPECT_EQ(s.next_sequence() - 1, sealed);  // same numbers: nothing renumbered
    EXPECT_TRUE(s.all_acked());
    EXPECT_EQ(d.stored, msgs);
}

// A new sender object with a known id continues the daemon's sequence instead of starting at 1.
TEST(Resume, NewSenderStartsAtNextSequence) {
    model_daemon d;
    d.last_sequence = 41;
    sender s(resumable_opts());
    std::uint64_t step = 0;
    cut_connection w{s, d, 0, step, 1 << 20};
    w.run();
    ASSERT_EQ(s.current(), sender::state::streaming);
    EXPECT_EQ(s.next_sequence(), 42u);
    ASSERT_FALSE(s.add(test::person(1)));
    s.finish();
    w.run();
    EXPECT_EQ(s.current(), sender::state::closed);
    EXPECT_EQ(d.last_sequence, 42u);
    EXPECT_FALSE(d.gap);
}

// A daemon that claims frames this stream never sent is refused.
TEST(Resume, ReceiverAheadOfTheSenderIsAnError) {
    model_daemon d;
    sender s(resumable_opts());
    std::uint64_t step = 0;
    cut_connection w1{s, d, 0, step, 1 << 20};
    w1.run();
    ASSERT_FALSE(s.add(test::person(1)));
    s.seal();
    w1.run();
    ASSERT_FALSE(s.restart());
    d.last_sequence = 50;
    cut_connection w2{s, d, 0, step, 1 << 20};
    w2.run();
    EXPECT_EQ(s.current(), sender::state::failed);
    EXPECT_EQ(s.error(), proto_errc::bad_sequence);
}

// A daemon that forgot the stream (its index lost, e.g. a JSON-lines sink restarted) gets
// every unacknowledged frame again, numbered from its next_sequence.
TEST(Resume, ForgottenStreamIsRenumbered) {
    const auto msgs = events(100);
    model_daemon d;
    sender s(resumable_opts(256));
    std::uint64_t step = 0;
    cut_connection w1{s, d, 0, step, 1 << 20};
    w1.run();
    for (std::size_t i = 0; i < 50; ++i)
        ASSERT_FALSE(s.add(msgs[i]));
    s.seal();
    w1.run();  // stored and acknowledged
    ASSERT_TRUE(s.all_acked());
    const std::uint64_t first_frames = s.next_sequence() - 1;
    for (std::size_t i = 50; i < msgs.size(); ++i)
        ASSERT_FALSE(s.add(msgs[i]));
    s.seal();
    const std::uint64_t lost_frames = s.next_sequence() - 1 - first_frames;
    s.consume_output();  // written, never arrived
    ASSERT_FALSE(s.restart());
    d.last_sequence = 0;  // the daemon forgot this sender
    cut_connection w2{s, d, 0, step, 1 << 20};
    w2.run();
    EXPECT_TRUE(s.all_acked());
    EXPECT_EQ(s.next_sequence() - 1, lost_frames);
    EXPECT_EQ(d.stored, msgs);
    EXPECT_FALSE(d.gap);
}

TEST(Resume, NotResumableSenderRefusesRestart) {
    sender::options o = resumable_opts();
    o.resumable = false;
    sender s(o);
    EXPECT_TRUE(s.restart());
}

}  // namespace
}  // namespace objwire
