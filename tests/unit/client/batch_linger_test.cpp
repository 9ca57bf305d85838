// The linger rule (client/lib/batch_linger.hpp): when an open batch is due, how a wait is cut to
// end by then, and what linger does next for each thing the connection may hold.
#include "client/lib/batch_linger.hpp"

#include <gtest/gtest.h>

namespace objwire::client {
namespace {

using std::chrono::milliseconds;
using std::chrono::nanoseconds;
constexpr std::uint64_t linger_ms = 1'000'000;  // coarse-clock nanoseconds
constexpr std::uint64_t linger_t0 = 3'600'000 * linger_ms;

TEST(BatchLinger, DueLingerAfterTheFirstMessage) {
    batch_linger l(milliseconds(5));
    EXPECT_TRUE(l.enabled());
    l.opened(linger_t0);
    EXPECT_EQ(l.left(linger_t0), milliseconds(5));
    EXPECT_EQ(l.left(linger_t0 + 2 * linger_ms), milliseconds(3));
    EXPECT_FALSE(l.due(linger_t0 + 5 * linger_ms - 1));
    EXPECT_TRUE(l.due(linger_t0 + 5 * linger_ms));
    EXPECT_EQ(l.left(linger_t0 + 60'000 * linger_ms),
              nanoseconds(0));             // long past: due, never negative
    l.opened(linger_t0 + 10 * linger_ms);  // a write went first: the batch's wait starts again
    EXPECT_FALSE(l.due(linger_t0 + 12 * linger_ms));
}

TEST(BatchLinger, AWaitEndsByTheTimeTheBatchIsDue) {
    batch_linger l(milliseconds(5));
    l.opened(linger_t0);
    EXPECT_EQ(l.cut(milliseconds(1000), linger_t0), milliseconds(5));
    EXPECT_EQ(l.cut(milliseconds(2), linger_t0), milliseconds(2));
    EXPECT_EQ(l.cut(milliseconds(1000), linger_t0 + 4 * linger_ms + 1),
              milliseconds(1));  // rounded up
    EXPECT_EQ(l.cut(milliseconds(1000), linger_t0 + 9 * linger_ms), milliseconds(0));
}

TEST(BatchLinger, NoLingerNoThread) {
    EXPECT_FALSE(batch_linger(nanoseconds(0)).enabled());
    batch_linger l(nanoseconds(0));
    l.opened(linger_t0);
    EXPECT_TRUE(l.due(linger_t0));  // every send writes its batch
}

TEST(LingerStep, WhatLingerDoesNext) {
    linger_view v;
    EXPECT_EQ(next_linger_step(v), linger_step::rest);  // not open
    v.open = true;
    EXPECT_EQ(next_linger_step(v), linger_step::rest);  // nothing open, nothing unacked
    v.all_acked = false;
    EXPECT_EQ(next_linger_step(v), linger_step::read_acks);  // the caller is quiet
    v.batch_open = true;
    v.batch_left = milliseconds(3);
    EXPECT_EQ(next_linger_step(v), linger_step::wait);  // the batch first
    EXPECT_EQ(linger_wait(v), milliseconds(3));
    v.batch_left = nanoseconds(0);
    EXPECT_EQ(next_linger_step(v), linger_step::flush);
    v.background_error = true;  // the caller's next call hears of it first
    EXPECT_EQ(next_linger_step(v), linger_step::rest);
    v.background_error = false;
    v.open = false;
    EXPECT_EQ(next_linger_step(v), linger_step::rest);
}

// A caller that made a call less than batch.linger ago takes its acks itself: linger looks
// again when it has been quiet that long, and only then watches the socket.
TEST(LingerStep, AcksWaitForTheCallersQuiet) {
    linger_view v;
    v.open = true;
    v.all_acked = false;
    v.quiet_left = milliseconds(2);
    EXPECT_EQ(next_linger_step(v), linger_step::wait);
    EXPECT_EQ(linger_wait(v), milliseconds(2));
    v.batch_open = true;  // a batch is timed from its first message, whoever is calling
    v.batch_left = milliseconds(4);
    EXPECT_EQ(linger_wait(v), milliseconds(4));
    v.batch_left = nanoseconds(0);
    EXPECT_EQ(next_linger_step(v), linger_step::flush);
    v.batch_open = false;
    v.quiet_left = nanoseconds(0);
    EXPECT_EQ(next_linger_step(v), linger_step::read_acks);
    v.all_acked = true;
    EXPECT_EQ(next_linger_step(v), linger_step::rest);
}

}  // namespace
}  // namespace objwire::client
