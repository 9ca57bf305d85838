// connection_guard: the idle timeout and the minimum read rate, driven by a fake clock.
#include "daemon/serve/connection_guard.hpp"

#include <gtest/gtest.h>

namespace objwire::daemon {
namespace {

using namespace std::chrono_literals;
using time_point = connection_guard::clock::time_point;

time_point at(std::chrono::milliseconds ms) {
    return time_point{} + ms;
}

connection_guard guard(std::chrono::milliseconds idle, std::uint64_t rate = 0,
                       std::chrono::milliseconds window = 1000ms) {
    return connection_guard({idle, rate, window});
}

TEST(ConnectionGuard, NothingIsCutBeforeStart) {
    auto g = guard(100ms);
    EXPECT_EQ(g.check(at(10'000ms)), "");
}

TEST(ConnectionGuard, IdleCutAtTheTimeoutNotBefore) {
    auto g = guard(100ms);
    g.start(at(0ms));
    EXPECT_EQ(g.check(at(99ms)), "");
    const auto why = g.check(at(100ms));
    EXPECT_NE(why.find("idle"), std::string::npos) << why;
    EXPECT_NE(why.find("limits.idle_timeout"), std::string::npos) << why;
}

TEST(ConnectionGuard, ACompletedFrameRestartsTheIdleClock) {
    auto g = guard(100ms);
    g.start(at(0ms));
    g.on_read(at(90ms), 50, false, true);
    EXPECT_EQ(g.check(at(150ms)), "");
    EXPECT_NE(g.check(at(190ms)), "");
}

TEST(ConnectionGuard, ReadsThatCompleteNoFrameDoNotCountAsActivity) {
    auto g = guard(100ms);
    g.start(at(0ms));
    g.on_read(at(50ms), 10, false, false);
    EXPECT_NE(g.check(at(100ms)), "");
}

TEST(ConnectionGuard, AFrameInProgressIsNotIdle) {
    auto g = guard(100ms);
    g.start(at(0ms));
    g.on_read(at(10ms), 10, true, false);
    EXPECT_EQ(g.check(at(5000ms)), "") << "the read-rate rule, not idleness, governs a frame";
}

TEST(ConnectionGuard, HoldStopsTheClocksAndRestartsThemWhenItEnds) {
    auto g = guard(100ms);
    g.start(at(0ms));
    g.hold(at(50ms), true);
    EXPECT_EQ(g.check(at(1000ms)), "");
    g.hold(at(1000ms), false);
    EXPECT_EQ(g.check(at(1099ms)), "");
    EXPECT_NE(g.check(at(1100ms)), "");
}

TEST(ConnectionGuard, SlowFrameCutAfterItsWindow) {
    auto g = guard(0ms, 1000, 1000ms);
    g.start(at(0ms));
    g.on_read(at(0ms), 100, true, false);
    g.on_read(at(500ms), 100, true, false);
    EXPECT_EQ(g.check(at(999ms)), "") << "a window is judged only when it is over";
    const auto why = g.check(at(1000ms));
    EXPECT_NE(why.find("limits.min_read_rate"), std::string::npos) << why;
}

TEST(ConnectionGuard, FastEnoughFrameStartsTheNextWindow) {
    auto g = guard(0ms, 1000, 1000ms);
    g.start(at(0ms));
    g.on_read(at(0ms), 100, true, false);
    g.on_read(at(900ms), 1000, true, false);
    EXPECT_EQ(g.check(at(1000ms)), "");
    // The next window starts empty: no bytes in it is too slow at its end.
    EXPECT_EQ(g.check(at(1999ms)), "");
    EXPECT_NE(g.check(at(2000ms)), "");
}

TEST(ConnectionGuard, ACompletedFrameStartsANewWindowForTheNextOne) {
    auto g = guard(0ms, 1000, 1000ms);
    g.start(at(0ms));
    g.on_read(at(0ms), 10, true, false);
    // Completes the slow frame and leaves the start of another: its window starts now.
    g.on_read(at(900ms), 10, true, true);
    EXPECT_EQ(g.check(at(1500ms)), "");
    EXPECT_NE(g.check(at(1900ms)), "");
}

TEST(ConnectionGuard, TickIsAQuarterOfTheShortestLimitClamped) {
    EXPECT_EQ(guard(0ms).tick(), 0ms) << "no limit, no tick";
    EXPECT_EQ(guard(400ms).tick(), 100ms);
    EXPECT_EQ(guard(20ms).tick(), 10ms);
    EXPECT_EQ(guard(60'000ms).tick(), 1000ms);
    EXPECT_EQ(guard(60'000ms, 1, 200ms).tick(), 50ms);
}

}  // namespace
}  // namespace objwire::daemon
