// The compression policy on synthetic links and codecs: no clock, no data, only the figures it
// would have measured. Decisions are asserted, never timings.
#include <gtest/gtest.h>

#include <map>

#include "proto/compression_policy.hpp"

namespace objwire {
namespace {

constexpr std::size_t frame = 64 * 1024;

// A codec as the policy sees it: how small it makes a frame, and how long it takes.
struct fake_codec {
    double ratio = 0.3;        // compressed / raw
    double ns_per_byte = 3.0;  // ~330 MB/s, zstd-1 on records
};

// Offers `frames` frames; returns how many the policy chose to compress (or sample).
int drive(compression_policy& p, int frames, fake_codec c, std::size_t size = frame) {
    int tried = 0;
    for (int i = 0; i < frames; ++i) {
        if (p.plan(size)) {
            ++tried;
            p.on_result(size, static_cast<std::size_t>(static_cast<double>(size) * c.ratio),
                        static_cast<std::uint64_t>(static_cast<double>(size) * c.ns_per_byte));
        } else {
            p.on_plain(size);
        }
    }
    return tried;
}

compression_options auto_on(double mbit) {
    compression_options o;
    o.mode = compression_mode::automatic;
    o.codec = codec_id::zstd;
    o.link_bits_per_second = static_cast<std::uint64_t>(mbit * 1e6);
    return o;
}

TEST(Policy, SlowLinkCompressesEveryFrame) {
    compression_policy p(auto_on(10));
    EXPECT_EQ(drive(p, 200, {}), 200);
    EXPECT_TRUE(p.stats().compressing);
    EXPECT_EQ(p.stats().frames_compressed, 200u);
    EXPECT_NEAR(p.stats().ratio, 0.3, 0.01);
    EXPECT_NEAR(p.stats().compress_mb_s, 333, 1);
    EXPECT_NEAR(p.stats().link_mbit, 10, 0.01);
    EXPECT_FALSE(p.stats().link_measured);
}

TEST(Policy, FastLinkOnlySamplesRarely) {
    compression_policy p(auto_on(40'000));  // loopback
    const int tried = drive(p, 3200, {});
    EXPECT_FALSE(p.stats().compressing);
    // The first frame, then samples to keep ratio and speed fresh - runs of two frames (the
    // first warms the codec up). The link takes 0.2 ns/B, a run 2 x 3 ns/B of a frame: held to
    // 1% of 0.2 ns/B that would be one run in 3000 frames, so one in sample_max (256).
    EXPECT_GE(tried, 2 * (3200 / 256));
    EXPECT_LE(tried, 2 * (3200 / 256) + 3);
}

// The figures a process's connections share, as client/lib keeps them (without the lock).
struct kept_measures final : codec_measures {
    std::vector<codec_measure> figures;
    std::vector<codec_measure> recall() const override { return figures; }
    void remember(const codec_measure& m) override {
        for (auto& f : figures)
            if (f.codec == m.codec && f.level == m.level) {
                f = m;
                return;
            }
        figures.push_back(m);
    }
};

TEST(Policy, ANewConnectionStartsFromTheFiguresItsNeighboursMeasured) {
    kept_measures shared;
    auto o = auto_on(40'000);  // loopback: compression never pays
    o.shared = &shared;
    compression_policy first(o);
    // Alone, a connection compresses its first frames to learn what the codec gives.
    EXPECT_EQ(drive(first, 8, {}), 2);
    ASSERT_FALSE(shared.figures.empty());
    EXPECT_NEAR(shared.figures.front().ratio, 0.3, 0.01);
    EXPECT_NEAR(shared.figures.front().ns, 3.0, 0.01);
    // The next one knows them: its few frames all go out as they are, and it decides alike.
    compression_policy next(o);
    EXPECT_EQ(drive(next, 8, {}), 0);
    EXPECT_FALSE(next.stats().compressing);
    EXPECT_EQ(next.stats().frames_compressed, 0u);
    // On a slow link, the figures it was given make it compress from the first frame.
    auto slow = auto_on(10);
    slow.shared = &shared;
    compression_policy on_slow(slow);
    EXPECT_EQ(drive(on_slow, 8, {}), 8);
    EXPECT_TRUE(on_slow.stats().compressing);
}

TEST(Policy, SamplesAreDenserNearBreakEven) {
    // 10 Gbit/s (0.8 ns/B) against a codec of 0.5 ns/B (ratio 0.3): T_on = 0.5 + 0.24 + 0.25
    // = 0.99, not worth it; a run of two samples costs 2 x 0.5 / N, held to 1% of 0.8 ns/B:
    // N = 125 frames from one run to the next, twice as often as far from break-even (the
    // test above), where the figures matter less.
    compression_policy p(auto_on(10'000));
    const int tried = drive(p, 12500, {.ratio = 0.3, .ns_per_byte = 0.5});
    EXPECT_FALSE(p.stats().compressing);
    EXPECT_GE(tried, 2 * (12500 / 126));
    EXPECT_LE(tried, 2 * (12500 / 125) + 3);
}

TEST(Policy, BreakEvenFollowsTheSerialModelWithoutSenderTimes) {
    // ratio 0.3, compress 3 ns/B, decompress assumed 1.5 ns/B: compression costs 4.5 ns/B and
    // saves 0.7 x link ns/B, so it pays below 8 x 0.7 / 4.5 = 1.24 Gbit/s.
    compression_policy slow(auto_on(1000));
    drive(slow, 50, {});
    EXPECT_TRUE(slow.stats().compressing);
    compression_policy fast(auto_on(1600));
    drive(fast, 50, {});
    EXPECT_FALSE(fast.stats().compressing);
}

// Tells the policy the sender spent `ns_per_byte` of its own time per raw byte on 1 MiB of
// frames (and a quarter as much again blocked on a full socket buffer: the link's doing, not
// something past it - see the Downstream tests).
void sender_time(compression_policy& p, double ns_per_byte) {
    for (int i = 0; i < 16; ++i)
        p.plan(frame), p.on_plain(frame);
    const auto busy = static_cast<std::uint64_t>(ns_per_byte * 16 * frame);
    p.on_interval(busy + busy / 4, busy / 4, 0);
}

TEST(Policy, ASampleRunCountsTheTimeOfItsWarmFramesOnly) {
    // 1 Gbit/s (8 ns/B), a sender of 5.7 ns/B of its own and lz4-like figures: 1.7 ns/B in a
    // run of compressed frames (T_on 7.4: worth it), 5 ns/B for a frame that follows a plain
    // one (T_on 10.7: not). Judged by its warm frames the policy compresses; by its cold
    // ones - the first frame of the connection is one - it would not.
    compression_options o = auto_on(1000);
    o.codec = codec_id::lz4;
    o.level = 1;
    compression_policy p(o);
    bool previous_compressed = false;
    std::uint64_t compress_ns = 0;
    for (int i = 0; i < 800; ++i) {
        if (p.plan(frame)) {
            const double ns = previous_compressed ? 1.7 : 5.0;
            compress_ns += static_cast<std::uint64_t>(frame * ns);
            p.on_result(frame, frame * 55 / 100, static_cast<std::uint64_t>(frame * ns));
            previous_compressed = true;
        } else {
            p.on_plain(frame);
            previous_compressed = false;
        }
        if (i % 4 == 3) {  // 256 KiB: the sender's time, as the connection reports it
            p.on_interval(static_cast<std::uint64_t>(5.7 * 4 * frame) + compress_ns, 0, 0);
            compress_ns = 0;
        }
    }
    EXPECT_TRUE(p.stats().compressing);
    EXPECT_NEAR(p.stats().compress_mb_s, 1000 / 1.7, 1);
    EXPECT_NEAR(p.stats().sender_mb_s, 1000 / 5.7, 1);
}

TEST(Policy, OverlapWithSendingMakesCompressionPayOnAFasterLink) {
    // At 2 Gbit/s (4 ns/B on the link) the serial model says no: 3 + 1.2 + 1.5 > 4. But a
    // sender that needs only 0.5 ns/B of its own compresses the next frame while the link
    // sends this one: the slowest stage drops from the link's 4 ns/B to the sender's 3.5.
    compression_policy serial(auto_on(2000));
    drive(serial, 40, {});
    EXPECT_FALSE(serial.stats().compressing);
    compression_policy pipelined(auto_on(2000));
    sender_time(pipelined, 0.5);
    drive(pipelined, 40, {});
    EXPECT_TRUE(pipelined.stats().compressing);
    EXPECT_NEAR(pipelined.stats().sender_mb_s, 2000, 5);
}

TEST(Policy, ABusySenderDoesNotCompressEvenWhereTheSerialModelWould) {
    // At 1 Gbit/s (8 ns/B) the serial model compresses (6.9 < 8). A sender that needs 9 ns/B
    // of its own (JSON parsing, say) is the bottleneck already: compression only adds to it.
    compression_policy serial(auto_on(1000));
    drive(serial, 40, {});
    EXPECT_TRUE(serial.stats().compressing);
    compression_policy busy(auto_on(1000));
    sender_time(busy, 9.0);
    drive(busy, 100, {});
    EXPECT_FALSE(busy.stats().compressing);
}

TEST(Policy, ASlowReceiverTurnsCompressionOff) {
    compression_policy p(auto_on(1000));
    drive(p, 20, {});
    EXPECT_TRUE(p.stats().compressing);
    // The receiver reports 20 ns/B to decompress (50 MB/s): now it costs more than it saves.
    p.on_receiver_report(10u << 20, 20ull * (10u << 20));
    drive(p, 20, {});
    EXPECT_FALSE(p.stats().compressing);
    EXPECT_NEAR(p.stats().decompress_mb_s, 50, 0.5);
}

TEST(Policy, IncompressibleDataStopsCostingAndIsProbedRarely) {
    compression_policy p(auto_on(10));
    const int tried = drive(p, 4000, {.ratio = 1.0, .ns_per_byte = 28});  // zlib on random
    EXPECT_TRUE(p.stats().incompressible);
    EXPECT_FALSE(p.stats().compressing);
    EXPECT_EQ(p.stats().frames_compressed, 0u);
    // Two frames to notice, then probes at 64, 128, 256, 512, 1024, 1024... frames apart.
    EXPECT_LE(tried, 2 + 6);
    EXPECT_GE(tried, 3);
}

TEST(Policy, ProbeNoticesWhenDataTurnsCompressibleAgain) {
    compression_policy p(auto_on(10));
    drive(p, 100, {.ratio = 1.0, .ns_per_byte = 28});
    ASSERT_TRUE(p.stats().incompressible);
    drive(p, 300, {.ratio = 0.3, .ns_per_byte = 3});
    EXPECT_FALSE(p.stats().incompressible);
    EXPECT_TRUE(p.stats().compressing);
    EXPECT_NEAR(p.stats().ratio, 0.3, 0.01);  // the old, random figure is forgotten
}

TEST(Policy, HysteresisKeepsTheDecisionNearBreakEven) {
    // Break-even ~1.24 Gbit/s (see above). Link estimates flickering 3% either side of it must
    // not flip the decision every frame.
    compression_options o = auto_on(0);
    compression_policy p(o);
    p.on_link_sample(1.0e9, false);
    drive(p, 10, {});
    ASSERT_TRUE(p.stats().compressing);
    int flips = 0;
    bool last = true;
    for (int i = 0; i < 200; ++i) {
        p.on_link_sample(i % 2 ? 1.28e9 : 1.20e9, false);
        drive(p, 1, {});
        if (p.stats().compressing != last) ++flips;
        last = p.stats().compressing;
    }
    EXPECT_LE(flips, 1);
}

TEST(Policy, MeasuredLinkLowerBoundsNeverLowerTheEstimate) {
    compression_policy p(auto_on(0));
    drive(p, 5, {});
    // Nothing but lower bounds (app-limited or receiver-limited samples): not compressing, since
    // the link has not been shown to be what limits us.
    p.on_link_sample(50e6, true);
    drive(p, 40, {});
    EXPECT_FALSE(p.stats().compressing);
    EXPECT_TRUE(p.stats().link_measured);
    // A real sample of a slow link: compress.
    p.on_link_sample(20e6, false);
    drive(p, 2, {});
    EXPECT_TRUE(p.stats().compressing);
    // While compressing, the sender is app-limited; its low samples must not feed back.
    for (int i = 0; i < 50; ++i)
        p.on_link_sample(5e6, true);
    EXPECT_NEAR(p.stats().link_mbit, 20, 0.01);
    // A lower bound above the estimate raises it: the link is faster than we thought.
    for (int i = 0; i < 3; ++i)
        p.on_link_sample(30e9, true);
    drive(p, 2, {});
    EXPECT_FALSE(p.stats().compressing);
}

TEST(Policy, ConfiguredBandwidthIgnoresMeasurements) {
    compression_policy p(auto_on(10));
    p.on_link_sample(40e9, false);
    drive(p, 10, {});
    EXPECT_TRUE(p.stats().compressing);
    EXPECT_NEAR(p.stats().link_mbit, 10, 0.01);
}

TEST(Policy, NeverAndAlwaysAndTheSizeFloor) {
    compression_options o;
    o.mode = compression_mode::never;
    compression_policy never(o);
    EXPECT_EQ(drive(never, 50, {}), 0);
    o.mode = compression_mode::always;
    o.min_frame_bytes = 1000;
    compression_policy always(o);
    EXPECT_EQ(drive(always, 50, {.ratio = 1.0, .ns_per_byte = 28}), 50);  // even random
    EXPECT_FALSE(always.stats().incompressible);
    EXPECT_EQ(drive(always, 50, {}, 999), 0);  // under the floor
    EXPECT_EQ(always.stats().frames, 100u);
}

TEST(Policy, CodecFallsBackToWhatThePeerAccepts) {
    compression_options o;
    o.codec = codec_id::zstd;
    o.level = 19;
    compression_policy p(o);
    // A peer with a zstd context per connection gets the stream form of zstd.
    EXPECT_EQ(p.codec(), codec_id::zstd_stream);
    EXPECT_EQ(p.level(), 19);
    p.set_accepted(0b0111);  // none, zlib and zstd: an objwired from before zstd_stream
    EXPECT_EQ(p.codec(), codec_id::zstd);
    EXPECT_EQ(p.level(), 19);
    p.set_accepted(0b011);  // none and zlib
    EXPECT_EQ(p.codec(), codec_id::zlib);
    EXPECT_EQ(p.level(), 1);
    p.set_accepted(0b001);  // none only: nothing is compressed
    EXPECT_EQ(p.codec(), codec_id::none);
    o.mode = compression_mode::always;
    compression_policy q(o);
    q.set_accepted(0b001);
    EXPECT_EQ(drive(q, 10, {}), 0);
}

// Like drive(), with a codec whose figures depend on the level asked for.
int drive_levels(compression_policy& p, int frames, const std::map<int, fake_codec>& by_level) {
    int tried = 0;
    for (int i = 0; i < frames; ++i) {
        if (!p.plan(frame)) {
            p.on_plain(frame);
            continue;
        }
        ++tried;
        const auto c = by_level.at(p.level());
        p.on_result(frame, static_cast<std::size_t>(frame * c.ratio),
                    static_cast<std::uint64_t>(frame * c.ns_per_byte));
    }
    return tried;
}

// zstd on records, roughly: each level about twice the time for a little more ratio.
const std::map<int, fake_codec> zstd_levels{
    {1, {0.50, 5}}, {3, {0.45, 12}}, {6, {0.41, 25}}, {9, {0.40, 60}}};

// The link is measured at 100 Mbit/s from now on, and the sender reports 60 ns/B of its own.
void faster_link_slower_sender(compression_policy& p) {
    for (int i = 0; i < 5; ++i)
        p.on_link_sample(100e6, false);
    sender_time(p, 60);
}

// A peer without zstd_stream (none, zlib, zstd): frames compressed on their own.
constexpr std::uint32_t per_frame_zstd = 0b0111;

// drive_levels() for zstd_stream: the first frame at a new level starts a fresh context, and
// its ratio is worse (no history) - the policy must not judge the level by it. lz4 (auto's
// rung below zstd) does not touch the zstd context. Counts the zstd level changes.
const fake_codec lz4_figures{0.72, 2};

// `last`: the zstd level of the previous frame, for callers that drive a frame at a time.
int drive_stream(compression_policy& p, int frames, const std::map<int, fake_codec>& by_level,
                 int* last_level = nullptr) {
    int changes = 0, own_last = -1;
    int& last = last_level ? *last_level : own_last;
    for (int i = 0; i < frames; ++i) {
        if (!p.plan(frame)) {
            p.on_plain(frame);
            continue;
        }
        const bool lz4 = p.codec() == codec_id::lz4;
        const bool fresh = !lz4 && p.level() != last;
        if (!lz4) {
            changes += fresh && last != -1;
            last = p.level();
        }
        const auto c = lz4 ? lz4_figures : by_level.at(p.level());
        const double ratio = fresh ? 0.9 : c.ratio;
        p.on_result(frame, static_cast<std::size_t>(frame * ratio),
                    static_cast<std::uint64_t>(frame * c.ns_per_byte), fresh);
    }
    return changes;
}

TEST(Policy, MeasuredFastLinkSettlesOnPlainAndStaysWithBoundedSamplingCost) {
    // Loopback, measured: full samples of 20-40 Gbit/s (0.2-0.4 ns/B), a sender of 7 ns/B of its
    // own - the sender is the bottleneck and every rung (lz4 2 ns/B, zstd 5+) would add to it.
    compression_policy p(auto_on(0));
    sender_time(p, 7);
    int compressing_frames = 0, last = -1;
    std::uint64_t sampled_ns = 0;
    for (int i = 0; i < 5000; ++i) {
        p.on_link_sample(i % 3 ? 40e9 : 20e9, false);
        const auto before = p.stats().frames_tried;
        const bool lz4 = p.codec() == codec_id::lz4;
        drive_stream(p, 1, zstd_levels, &last);
        if (p.stats().frames_tried > before)
            sampled_ns += static_cast<std::uint64_t>(
                frame * (lz4 ? lz4_figures.ns_per_byte : zstd_levels.at(p.level()).ns_per_byte));
        compressing_frames += p.stats().compressing;
    }
    EXPECT_EQ(compressing_frames, 0);
    EXPECT_EQ(p.stats().codec, codec_id::lz4) << "the rung that would pay first is sampled";
    // Samples cost at most 1% of the 7 ns/B the frames take anyway (plus the first frame).
    const double plain_ns = 7.0 * 5000 * frame;
    EXPECT_LE(static_cast<double>(sampled_ns), 0.01 * plain_ns + 2.0 * frame);
    EXPECT_GE(p.stats().frames_tried, 5000u / 256);
}

TEST(Policy, MeasuredSlowLinkClimbsToTheBestRatioAndStaysThere) {
    // 10 Mbit/s, measured: full samples around the rate, and - while compressing keeps the
    // sender app-limited - lower bounds up to 1.8x the rate (a shaper's leftover burst). The
    // policy climbs lz4 -> zstd 1 -> 9 and stays compressing at 9 through all of it.
    compression_policy p(auto_on(0));
    sender_time(p, 20);
    int off_after_climb = 0, level_changes_after_climb = 0, last = -1;
    for (int i = 0; i < 2000; ++i) {
        if (i % 4 == 0)
            p.on_link_sample(i % 8 ? 9.5e6 : 10.5e6, false);
        else
            p.on_link_sample(i % 3 ? 18e6 : 6e6, true);
        const int level = p.stats().level;
        drive_stream(p, 1, zstd_levels, &last);
        if (i >= 20) {
            off_after_climb += !p.stats().compressing;
            level_changes_after_climb += p.stats().level != level;
        }
    }
    EXPECT_EQ(off_after_climb, 0);
    EXPECT_EQ(level_changes_after_climb, 0);
    EXPECT_EQ(p.stats().codec, codec_id::zstd_stream);
    EXPECT_EQ(p.stats().level, 9);
    EXPECT_NEAR(p.stats().link_mbit, 10, 0.6);
}

TEST(Policy, StreamClimbsByCommittingToEachLevel) {
    // The same link and sender as above, zstd_stream: no one-frame trials (a trial frame would
    // start a fresh context); up as many levels as the link stays the bottleneck at twice the
    // CPU per level: to 9 at once.
    compression_policy p(auto_on(0));
    ASSERT_EQ(p.stats().codec, codec_id::lz4) << "auto with zstd starts at the cheapest rung";
    p.on_link_sample(10e6, false);
    sender_time(p, 20);
    // lz4, then zstd 1 (a measured trial), then 1 -> 9 in one move (0.5 x 800 = 400 >=
    // 25 x 2^4), nothing back
    EXPECT_EQ(drive_stream(p, 400, zstd_levels), 1);
    EXPECT_EQ(p.stats().codec, codec_id::zstd_stream);
    EXPECT_TRUE(p.stats().compressing);
    EXPECT_EQ(p.stats().level, 9);
    EXPECT_NEAR(p.stats().ratio, 0.40, 0.001) << "fresh-context frames are not averaged in";
    // The link turns out faster (100 Mbit/s, 80 ns/B): level 9 now takes max(s + 60, 32) ns/B,
    // the sender's stage, while level 1, measured on the way up, takes about 40.
    faster_link_slower_sender(p);
    drive_stream(p, 400, zstd_levels);
    EXPECT_TRUE(p.stats().compressing);
    EXPECT_LT(p.stats().level, 6);
}

// The sender switches to column layout once it compresses with zstd_stream, where the levels
// give other ratios and speeds (on `events` level 1 does about as well as 6): what they gave on
// whole frames must not be averaged into the new figures. After on_layout() the level in use
// is measured afresh - its first frame in the new layout replaces the old figures - and the
// same layout announced again changes nothing.
TEST(Policy, ANewLayoutIsMeasuredAfresh) {
    compression_policy p(auto_on(0));
    p.on_link_sample(100e6, false);  // 80 ns/B
    sender_time(p, 5);
    drive_stream(p, 400, zstd_levels);
    ASSERT_TRUE(p.stats().compressing);
    const int level = p.stats().level;
    const double whole = zstd_levels.at(level).ratio;
    ASSERT_NEAR(p.stats().ratio, whole, 1e-4);
    std::map<int, fake_codec> columns = zstd_levels;
    columns[level].ratio = whole - 0.08;
    p.on_layout(true);
    int last = level;
    drive_stream(p, 1, columns, &last);
    ASSERT_EQ(p.stats().level, level);
    EXPECT_NEAR(p.stats().ratio, whole - 0.08, 1e-4) << "replaced, not averaged with " << whole;
    // Announced again: the figures are kept and averaged as usual.
    p.on_layout(true);
    columns[level].ratio = whole - 0.04;
    drive_stream(p, 1, columns, &last);
    EXPECT_NEAR(p.stats().ratio, whole - 0.08 + 0.25 * 0.04, 1e-4);
}

TEST(Policy, SlowLinkClimbsToTheLevelThatFitsTheLink) {
    // 10 Mbit/s (800 ns/B) and a sender of 20 ns/B: the link stays the bottleneck up to level 9
    // (0.40 x 800 = 320 > 20 + 60), and each level up shortens it - 400, 360, 328 ns/B - but
    // 6 -> 9 by less than the 5% hysteresis (320 vs 328): the climb stops at 6.
    compression_policy p(auto_on(10));
    p.set_accepted(per_frame_zstd);
    sender_time(p, 20);
    drive_levels(p, 400, zstd_levels);
    EXPECT_TRUE(p.stats().compressing);
    EXPECT_EQ(p.stats().level, 6);
    EXPECT_NEAR(p.stats().ratio, 0.41, 0.001);
}

TEST(Policy, CpuBoundSenderStaysAtTheFastestLevel) {
    // 100 Mbit/s (80 ns/B) but a sender of 60 ns/B: at level 1 the link takes 40 ns/B and the
    // sender 65 - the sender is the bottleneck, and a higher level would only slow it more.
    compression_policy p(auto_on(100));
    sender_time(p, 60);
    drive_levels(p, 400, zstd_levels);
    EXPECT_TRUE(p.stats().compressing);
    EXPECT_EQ(p.stats().level, 1);
}

TEST(Policy, ASenderThatSlowsDownStepsDownALevelRatherThanStopping) {
    // Climbed to level 6 on 10 Mbit/s. Then the link turns out to be 100 Mbit/s (80 ns/B) and
    // the sender slower (its average moves to 30 ns/B): level 6 now takes max(30 + 25, 33) = 55
    // ns/B, level 1 max(35, 40) = 40 - both beat plain (80), so it steps down and compresses.
    compression_policy p(auto_on(0));
    p.set_accepted(per_frame_zstd);
    p.on_link_sample(10e6, false);
    sender_time(p, 20);
    drive_levels(p, 400, zstd_levels);
    ASSERT_EQ(p.stats().level, 6);
    faster_link_slower_sender(p);
    drive_levels(p, 400, zstd_levels);
    EXPECT_TRUE(p.stats().compressing);
    EXPECT_LT(p.stats().level, 6);
}

TEST(Policy, AFixedLevelIsKept) {
    compression_options o = auto_on(10);
    o.level = 3;
    compression_policy p(o);
    drive_levels(p, 200, zstd_levels);
    EXPECT_EQ(p.stats().level, 3);
    o.mode = compression_mode::always;
    o.level = 0;  // always: the codec's own default
    compression_policy q(o);
    EXPECT_EQ(q.level(), 3);
}

// Frames through a path held back past the link: each 256 KiB interval takes the time the
// path needs for its raw bytes with or without compression, half of it waiting for acks.
int drive_downstream(compression_policy& p, int intervals, double ns_per_byte_plain,
                     double ns_per_byte_packed) {
    int compressed_intervals = 0;
    for (int i = 0; i < intervals; ++i) {
        int packed = 0;
        for (int f = 0; f < 4; ++f) {
            if (p.plan(frame)) {
                ++packed;
                p.on_result(frame, frame / 2, frame);  // ratio 0.5, 1 ns/B
            } else {
                p.on_plain(frame);
            }
        }
        const double per_byte = packed > 2 ? ns_per_byte_packed : ns_per_byte_plain;
        const auto wall = static_cast<std::uint64_t>(per_byte * 4 * frame);
        p.on_interval(wall, 0, wall / 2);
        compressed_intervals += packed > 2;
    }
    return compressed_intervals;
}

TEST(Policy, DownstreamBoundCompressesWhenThatMeasuresFaster) {
    // Loopback (40 Gbit/s, never the limit), the sender blocked half the time: the receiver
    // holds it back. Compressed, the path moves raw bytes twice as fast (the receiver's cost
    // follows wire bytes): after a trial the policy keeps compressing, re-trying plain rarely.
    compression_policy p(auto_on(40'000));
    const int on = drive_downstream(p, 800, 20, 10);
    EXPECT_TRUE(p.stats().downstream);
    EXPECT_TRUE(p.stats().compressing);
    EXPECT_GT(on, 800 * 3 / 4);
}

TEST(Policy, DownstreamBoundStaysPlainWhenCompressionMeasuresSlower) {
    // The same, but compression slows the path (the receiver's cost follows raw bytes and
    // decompression adds to it): plain frames, with a short trial of compression now and then.
    compression_policy p(auto_on(40'000));
    const int on = drive_downstream(p, 800, 10, 14);
    EXPECT_TRUE(p.stats().downstream);
    EXPECT_FALSE(p.stats().compressing);
    EXPECT_LT(on, 800 / 5);
}

TEST(Policy, BlockedOnTheSocketIsTheLinksDoingNotDownstream) {
    // A sender blocked half the time on a full socket buffer is held back by the link, even
    // when the link estimate is off (here far too high): the model decides, no trials.
    compression_policy p(auto_on(40'000));
    for (int i = 0; i < 400; ++i) {
        for (int f = 0; f < 4; ++f)
            p.plan(frame) ? p.on_result(frame, frame / 2, frame) : p.on_plain(frame);
        p.on_interval(10'000'000, 5'000'000, 0);
    }
    EXPECT_FALSE(p.stats().downstream);
    EXPECT_FALSE(p.stats().compressing);
}

TEST(Policy, ModeNamesParseBack) {
    for (auto m : {compression_mode::never, compression_mode::always, compression_mode::automatic})
        EXPECT_EQ(parse_mode(mode_name(m)), m);
    EXPECT_FALSE(parse_mode("sometimes"));
}

}  // namespace
}  // namespace objwire
