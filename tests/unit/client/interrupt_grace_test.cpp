// After SIGINT/SIGTERM `send` waits for acknowledgements only while they come: up to 5 s in
// all, never more than 500 ms without one (client/pipeline/interrupt_grace.hpp).
#include "client/pipeline/interrupt_grace.hpp"

#include <gtest/gtest.h>

namespace objwire::client {
namespace {

using std::chrono::milliseconds;
const auto grace_t0 = interrupt_grace::clock::time_point{} + std::chrono::hours(1);

TEST(InterruptGrace, EverythingAcknowledgedEndsItAtOnce) {
    interrupt_grace g(10, grace_t0);
    EXPECT_FALSE(g.waiting(10, 10, grace_t0));
}

TEST(InterruptGrace, ASilentDaemonEndsItAfterTheQuietSpan) {
    interrupt_grace g(3, grace_t0);
    EXPECT_TRUE(g.waiting(3, 10, grace_t0 + milliseconds(499)));
    EXPECT_EQ(g.next_wait(grace_t0 + milliseconds(400)), milliseconds(100));
    EXPECT_FALSE(g.waiting(3, 10, grace_t0 + milliseconds(500)));
}

TEST(InterruptGrace, AcknowledgementsThatKeepComingHoldItUpToTheLongest) {
    interrupt_grace g(0, grace_t0);
    std::uint64_t acked = 0;
    auto now = grace_t0;
    for (int i = 0; i < 40; ++i) {  // one ack every 400 ms: never quiet for 500 ms
        now += milliseconds(400);
        ++acked;
        if (!g.waiting(acked, 1000, now)) break;
    }
    EXPECT_EQ(now, grace_t0 + milliseconds(5200));  // the first look past 5 s ended it
    EXPECT_FALSE(g.waiting(acked + 1, 1000, grace_t0 + milliseconds(5000)));
}

TEST(InterruptGrace, TheSameCountAgainIsNoProgress) {
    interrupt_grace g(5, grace_t0);
    EXPECT_TRUE(g.waiting(6, 10, grace_t0 + milliseconds(300)));
    EXPECT_TRUE(g.waiting(6, 10, grace_t0 + milliseconds(799)));
    EXPECT_FALSE(g.waiting(6, 10, grace_t0 + milliseconds(800)));
}

}  // namespace
}  // namespace objwire::client
