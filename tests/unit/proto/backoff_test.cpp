// The one backoff rule (proto/util/backoff.hpp): first, doubling, capped, and first again after a
// success; and the one rule for a repeating condition's log lines (proto/util/log_pacer.hpp).
#include <gtest/gtest.h>

#include <vector>

#include "proto/util/backoff.hpp"
#include "proto/util/log_pacer.hpp"

namespace objwire {
namespace {

using std::chrono::milliseconds;

TEST(Backoff, DoublesFromTheFirstPauseUpToTheCapAndStartsAgainAfterASuccess) {
    exponential_backoff b(milliseconds(50), milliseconds(300));
    EXPECT_EQ(b.current(), milliseconds(0));
    std::vector<long> pauses;
    for (int i = 0; i < 6; ++i)
        pauses.push_back(b.next().count());
    EXPECT_EQ(pauses, (std::vector<long>{50, 100, 200, 300, 300, 300}));
    EXPECT_EQ(b.current(), milliseconds(300));
    b.reset();
    EXPECT_EQ(b.current(), milliseconds(0));
    EXPECT_EQ(b.next(), milliseconds(50));
}

TEST(Backoff, ACapBelowTwiceTheFirstHoldsFromTheSecondPause) {
    exponential_backoff b(milliseconds(100), milliseconds(150));
    EXPECT_EQ(b.next(), milliseconds(100));
    EXPECT_EQ(b.next(), milliseconds(150));
    EXPECT_EQ(b.next(), milliseconds(150));
}

TEST(LogPacer, FirstLineAtOnceThenOnePerInterval) {
    log_pacer pacer(std::chrono::seconds(1));
    const auto t0 = log_pacer::clock::time_point{} + std::chrono::hours(1);
    EXPECT_FALSE(pacer.logged());
    EXPECT_TRUE(pacer.take(t0));
    EXPECT_TRUE(pacer.logged());
    EXPECT_FALSE(pacer.take(t0));
    EXPECT_FALSE(pacer.take(t0 + std::chrono::milliseconds(999)));
    EXPECT_TRUE(pacer.take(t0 + std::chrono::seconds(1)));
    // The interval counts from the last line written, not from the first.
    EXPECT_FALSE(pacer.take(t0 + std::chrono::milliseconds(1999)));
    EXPECT_TRUE(pacer.take(t0 + std::chrono::seconds(2)));
}

TEST(LogPacer, AfterResetTheNextOccurrenceIsLoggedAtOnce) {
    log_pacer pacer(std::chrono::seconds(5));
    const auto t0 = log_pacer::clock::time_point{} + std::chrono::hours(1);
    ASSERT_TRUE(pacer.take(t0));
    pacer.reset();
    EXPECT_FALSE(pacer.logged());
    EXPECT_TRUE(pacer.take(t0 + std::chrono::milliseconds(1)));
}

}  // namespace
}  // namespace objwire
