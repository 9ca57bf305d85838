// The one backoff rule (proto/backoff.hpp): first, doubling, capped, and first again after a
// success.
#include <gtest/gtest.h>

#include <vector>

#include "proto/backoff.hpp"

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

}  // namespace
}  // namespace objwire
