// The link bandwidth estimator (daemon/serve/link_estimator.hpp) fed synthetic reads: which
// intervals count as link time, how samples form and how the moving average follows them.
#include <gtest/gtest.h>

#include "daemon/serve/link_estimator.hpp"

namespace objwire::daemon {
namespace {

constexpr std::uint64_t ms = 1'000'000;  // ns

// Reads of `bytes` every `every_ns` from `start`, each leaving a frame incomplete (the sender
// is mid-frame: link-limited), `count` of them; returns the time of the last. Each interval
// after a read that left a frame pending counts: all of them but the first, on a fresh
// estimator.
std::uint64_t stream(link_estimator& e, std::uint64_t start, std::uint64_t every_ns,
                     std::uint64_t bytes, int count) {
    std::uint64_t t = start;
    for (int i = 0; i < count; ++i) {
        t += every_ns;
        e.on_read(t, bytes, true, false);
    }
    return t;
}

TEST(LinkEstimator, NoEstimateBeforeAWholeSample) {
    link_estimator e;
    EXPECT_EQ(e.bits_per_second(), 0.0);
    // 9 ms of link time: under half the sample's time.
    stream(e, 0, 1 * ms, 12'500, 10);
    EXPECT_EQ(e.samples(), 0u);
    EXPECT_EQ(e.bits_per_second(), 0.0);
}

TEST(LinkEstimator, ASteadyLinkLimitedStreamGivesItsRate) {
    link_estimator e;
    // 12,500 bytes a millisecond = 100 Mbit/s.
    stream(e, 0, 1 * ms, 12'500, 200);
    EXPECT_GE(e.samples(), 5u);
    EXPECT_DOUBLE_EQ(e.bits_per_second(), 100e6);
}

TEST(LinkEstimator, GapsBetweenFramesAreNotLinkTime) {
    link_estimator e;
    // Each frame arrives in 4 reads at 100 Mbit/s; between frames the sender had nothing to
    // send (no frame pending) for 50 ms: an app-limited sender on a fast link.
    std::uint64_t t = 0;
    for (int frame = 0; frame < 40; ++frame) {
        t += 50 * ms;
        e.on_read(t, 12'500, true, false);  // the frame's first bytes: starts link time
        t = stream(e, t, 1 * ms, 12'500, 2);
        t += 1 * ms;
        e.on_read(t, 12'500, false, false);  // its last bytes: the frame is complete
    }
    ASSERT_GE(e.samples(), 1u);
    EXPECT_DOUBLE_EQ(e.bits_per_second(), 100e6);
}

TEST(LinkEstimator, FullReadsMeasureTheDaemonAndDoNotCount) {
    link_estimator e;
    // 256 KiB reads every 2 ms that fill the buffer: a backlog, the daemon is the slower side.
    for (int i = 1; i <= 100; ++i)
        e.on_read(static_cast<std::uint64_t>(i) * 2 * ms, 256 * 1024, true, true);
    EXPECT_EQ(e.samples(), 0u);
    EXPECT_EQ(e.bits_per_second(), 0.0);
}

TEST(LinkEstimator, APauseIsNotLinkTime) {
    link_estimator e;
    std::uint64_t t = stream(e, 0, 1 * ms, 12'500, 100);  // 100 Mbit/s
    const auto before = e.samples();
    e.on_pause();  // reading paused for 500 ms with a frame in progress
    t += 500 * ms;
    e.on_read(t, 12'500, true, false);  // not counted: the 500 ms were ours
    EXPECT_EQ(e.samples(), before);
    stream(e, t, 1 * ms, 12'500, 100);
    EXPECT_DOUBLE_EQ(e.bits_per_second(), 100e6);
}

TEST(LinkEstimator, TheMovingAverageFollowsAChangeOfRate) {
    link_estimator e;
    std::uint64_t t = stream(e, 0, 1 * ms, 12'500, 101);  // 100 Mbit/s: 5 whole samples
    ASSERT_EQ(e.samples(), 5u);
    ASSERT_DOUBLE_EQ(e.bits_per_second(), 100e6);
    // The link drops to 10 Mbit/s: each 20 ms sample moves the estimate a quarter of the way.
    const auto before = e.samples();
    stream(e, t, 1 * ms, 1'250, 20 * 53);  // 1,250 bytes a ms: a sample every 53 ms (64 KiB)
    const auto samples = e.samples() - before;
    ASSERT_EQ(samples, 20u);
    double expected = 100e6;
    for (std::uint64_t i = 0; i < samples; ++i)
        expected += 0.25 * (10e6 - expected);
    EXPECT_NEAR(e.bits_per_second(), expected, 1.0);
    EXPECT_LT(e.bits_per_second(), 11e6);
}

TEST(LinkEstimator, ASampleNeedsItsBytesAsWellAsItsTime) {
    link_estimator::options o;
    o.sample_ns = 10 * ms;
    o.sample_bytes = 1'000'000;
    link_estimator e(o);
    stream(e, 0, 1 * ms, 10'000, 100);  // 99 ms of link time but only 990,000 bytes
    EXPECT_EQ(e.samples(), 0u);
    stream(e, 100 * ms, 1 * ms, 10'000, 1);
    EXPECT_EQ(e.samples(), 1u);
    EXPECT_DOUBLE_EQ(e.bits_per_second(), 80e6);  // 10,000 bytes a ms
}

}  // namespace
}  // namespace objwire::daemon
