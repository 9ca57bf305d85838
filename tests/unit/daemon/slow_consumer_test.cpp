// slow_consumer_rule: a reader is slow only while a write waits and its peer takes no bytes
// for the idle timeout, driven by a fake clock.
#include "daemon/roles/slow_consumer.hpp"

#include <gtest/gtest.h>

namespace objwire::daemon {
namespace {

using namespace std::chrono_literals;
using time_point = slow_consumer_rule::clock::time_point;

time_point at(std::chrono::milliseconds ms) {
    return time_point{} + ms;
}

TEST(SlowConsumer, NothingWaitingIsNeverSlow) {
    // A follower at the live end: no write pending, however long it waits.
    slow_consumer_rule r(100ms);
    EXPECT_EQ(r.deadline(), time_point::max());
    EXPECT_FALSE(r.slow(at(3'600'000ms)));
}

TEST(SlowConsumer, AWriteNobodyTakesIsSlowAtTheTimeoutNotBefore) {
    slow_consumer_rule r(100ms);
    r.write_started(at(1000ms), 4096);
    EXPECT_EQ(r.deadline(), at(1100ms));
    EXPECT_FALSE(r.slow(at(1099ms)));
    EXPECT_TRUE(r.slow(at(1100ms)));
    const auto why = r.reason(at(1100ms));
    EXPECT_NE(why.find("took no bytes for 0.1 s"), std::string::npos) << why;
    EXPECT_NE(why.find("4096 bytes waiting"), std::string::npos) << why;
    EXPECT_NE(why.find("limits.idle_timeout = 0.1 s"), std::string::npos) << why;
}

TEST(SlowConsumer, EveryByteTakenRestartsTheClock) {
    // A slow but moving peer (a big batch over a thin link) is not closed.
    slow_consumer_rule r(100ms);
    r.write_started(at(0ms), 1000);
    r.bytes_taken(at(90ms), 1);
    r.bytes_taken(at(180ms), 1);
    EXPECT_FALSE(r.slow(at(270ms)));
    EXPECT_TRUE(r.slow(at(280ms)));
    EXPECT_NE(r.reason(at(280ms)).find("998 bytes waiting"), std::string::npos);
}

TEST(SlowConsumer, NoBytesTakenIsNoProgress) {
    slow_consumer_rule r(100ms);
    r.write_started(at(0ms), 10);
    r.bytes_taken(at(90ms), 0);
    EXPECT_TRUE(r.slow(at(100ms)));
}

TEST(SlowConsumer, AWriteDoneEndsTheWait) {
    slow_consumer_rule r(100ms);
    r.write_started(at(0ms), 10);
    r.bytes_taken(at(10ms), 10);
    EXPECT_EQ(r.deadline(), time_point::max()) << "every byte taken: nothing waits";
    r.write_started(at(20ms), 10);
    r.write_ended();
    EXPECT_FALSE(r.slow(at(10'000ms)));
}

TEST(SlowConsumer, AZeroTimeoutIsOff) {
    slow_consumer_rule r(0ms);
    r.write_started(at(0ms), 10);
    EXPECT_EQ(r.deadline(), time_point::max());
    EXPECT_FALSE(r.slow(at(3'600'000ms)));
}

}  // namespace
}  // namespace objwire::daemon
