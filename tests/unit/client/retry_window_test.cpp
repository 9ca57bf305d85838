// The client's retry window (resume.retry_for): it counts from the last acknowledged progress,
// so reconnects that are welcomed but never acknowledged end on time; an idle producer has not
// failed; waits and pauses never go past the window's end.
#include "client/lib/retry_window.hpp"

#include <gtest/gtest.h>

namespace objwire::client {
namespace {

using std::chrono::milliseconds;
const auto t0 = retry_window::clock::time_point{} + std::chrono::hours(1);

TEST(RetryWindow, EndsRetryForAfterTheLastAckNotTheLastConnect) {
    retry_window w(milliseconds(3000));
    w.observe(0, false, t0);  // welcomed, nothing sent yet
    w.observe(0, true, t0 + milliseconds(10));
    // Every reconnect welcomed, no ack: the window does not move.
    for (int i = 1; i < 100; ++i)
        w.observe(0, true, t0 + milliseconds(25 * i));
    EXPECT_FALSE(w.expired(t0 + milliseconds(2999)));
    EXPECT_TRUE(w.expired(t0 + milliseconds(3000)));
}

TEST(RetryWindow, AnAckThatMovesTheCountRestartsIt) {
    retry_window w(milliseconds(1000));
    w.observe(0, true, t0);
    w.observe(5, true, t0 + milliseconds(900));
    EXPECT_FALSE(w.expired(t0 + milliseconds(1500)));
    w.observe(5, true, t0 + milliseconds(1600));  // the same count again is no progress
    EXPECT_TRUE(w.expired(t0 + milliseconds(1900)));
}

TEST(RetryWindow, NothingWaitingIsNotAFailure) {
    retry_window w(milliseconds(1000));
    w.observe(7, false, t0);
    w.observe(7, false, t0 + std::chrono::hours(2));  // an idle producer writes again
    w.observe(7, true, t0 + std::chrono::hours(2) + milliseconds(1));
    EXPECT_FALSE(w.expired(t0 + std::chrono::hours(2) + milliseconds(999)));
}

TEST(RetryWindow, WaitsAndPausesEndWithTheWindow) {
    retry_window w(milliseconds(3000));
    w.observe(0, true, t0);
    EXPECT_EQ(w.wait_for(milliseconds(30'000), t0), milliseconds(3000));
    EXPECT_EQ(w.wait_for(milliseconds(500), t0), milliseconds(500));
    EXPECT_EQ(w.wait_for(milliseconds(30'000), t0 + milliseconds(2950)), milliseconds(50));
    EXPECT_EQ(w.wait_for(milliseconds(30'000), t0 + milliseconds(4000)), milliseconds(1));
    std::vector<milliseconds> pauses;
    for (int i = 0; i < 7; ++i)
        pauses.push_back(w.next_pause(t0));
    EXPECT_EQ(pauses[0], retry_window::first_backoff);
    EXPECT_EQ(pauses[1], retry_window::first_backoff * 2);
    EXPECT_EQ(pauses[6], retry_window::max_backoff);
    EXPECT_EQ(w.next_pause(t0 + milliseconds(2800)), milliseconds(200));
    EXPECT_EQ(w.next_pause(t0 + milliseconds(3100)), milliseconds(0));
}

TEST(RetryWindow, NoLengthNoWindow) {
    retry_window w(milliseconds(0));
    w.observe(0, true, t0);
    EXPECT_FALSE(w.enabled());
    EXPECT_FALSE(w.expired(t0 + std::chrono::hours(1)));
    EXPECT_EQ(w.wait_for(milliseconds(30'000), t0), milliseconds(30'000));
}

}  // namespace
}  // namespace objwire::client
