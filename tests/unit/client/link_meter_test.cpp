// The link meter on synthetic TCP_INFO counters: which readings are full samples, which are
// lower bounds, and what a lower bound is worth. No sockets.
#include <gtest/gtest.h>

#include "client/lib/link_meter.hpp"

namespace objwire::client {
namespace {

constexpr std::uint64_t ms = 1'000'000;  // ns

TEST(LinkMeter, ADeliveryRateWhileTheLinkWasTheLimitIsAFullSample) {
    link_meter m;
    EXPECT_FALSE(m.next({.delivery_rate = 125'000'000, .busy_us = 1000}, 1 * ms, true))
        << "the first reading has no interval to judge";
    // 10 ms later, data was in flight for 9 of them: the link was busy, its rate is full.
    const auto s = m.next({.delivery_rate = 125'000'000, .busy_us = 10'000}, 11 * ms, true);
    ASSERT_TRUE(s);
    EXPECT_FALSE(s->lower_bound);
    EXPECT_DOUBLE_EQ(s->bits_per_second, 1e9);
    // Held back by our own send buffer counts as busy too: the link could not keep up.
    const auto t =
        m.next({.delivery_rate = 125'000'000, .busy_us = 12'000, .sndbuf_limited_us = 7'000},
               21 * ms, true);
    ASSERT_TRUE(t);
    EXPECT_FALSE(t->lower_bound);
}

// A sender that compresses more than it can keep up with: data in flight all the time, a
// delivery rate below the link's, and the socket's buffer never full. Its rate is what the
// sender produced - a lower bound, never the link's figure.
TEST(LinkMeter, ASenderThatNeverWaitedForTheLinkGivesNoFullSample) {
    link_meter m;
    tcp_counters c{.delivery_rate = 6'500'000};  // 52 Mbit/s, on a 100 Mbit/s link
    EXPECT_FALSE(m.next(c, 1 * ms, false));
    for (std::uint64_t t = 11; t < 51; t += 10) {
        c.busy_us += 10'000;
        c.bytes_acked += 65'000;
        EXPECT_FALSE(m.next(c, t * ms, false)) << "busy, but the sender never waited";
    }
    c.busy_us += 10'000;
    c.bytes_acked += 65'000;
    const auto s = m.next(c, 51 * ms, false);
    ASSERT_TRUE(s);
    EXPECT_TRUE(s->lower_bound);
    EXPECT_DOUBLE_EQ(s->bits_per_second, 52e6);
    // The same reading after the sender found the buffer full: the link was the limit.
    c.busy_us += 10'000;
    const auto t = m.next(c, 61 * ms, true);
    ASSERT_TRUE(t);
    EXPECT_FALSE(t->lower_bound);
}

TEST(LinkMeter, ALinkIdleBetweenFramesIsNotTheLimit) {
    // Loopback, a sender slower than the link: each frame is acknowledged within microseconds
    // and the link idles until the next, so the kernel's rate is our own production rate
    // (1 Gbit/s here), not flagged app-limited. Data in flight 2 ms of every 10: a lower bound.
    link_meter m;
    tcp_counters c{.delivery_rate = 125'000'000};
    EXPECT_FALSE(m.next(c, 1 * ms, true));
    for (std::uint64_t t = 11; t < 51; t += 10) {
        c.busy_us += 2000;
        c.bytes_acked += 1'250'000;
        EXPECT_FALSE(m.next(c, t * ms, true)) << "no full sample, and the window is still open";
    }
    c.busy_us += 2000;
    c.bytes_acked += 1'250'000;
    const auto s = m.next(c, 51 * ms, true);
    ASSERT_TRUE(s);
    EXPECT_TRUE(s->lower_bound);
    EXPECT_DOUBLE_EQ(s->bits_per_second, 1e9);
}

TEST(LinkMeter, AnIdleShapersBurstIsNotTakenForTheLinksRate) {
    // A 1 Gbit/s token bucket that was idle passes a burst at the speed of the wire beneath:
    // the kernel reports 20 Gbit/s, app-limited. Over the window the link acknowledged 5 MB in
    // 50 ms (800 Mbit/s): that, not the burst, is what the link is known to carry.
    link_meter m;
    tcp_counters c{.delivery_rate = 2'500'000'000, .app_limited = true};
    EXPECT_FALSE(m.next(c, 1 * ms, true));  // opens the window
    c.bytes_acked = 2'000'000;
    EXPECT_FALSE(m.next(c, 20 * ms, true)) << "a window shorter than bound_window_ns says nothing";
    c.bytes_acked = 5'000'000;
    const auto s = m.next(c, 51 * ms, true);
    ASSERT_TRUE(s);
    EXPECT_TRUE(s->lower_bound);
    EXPECT_DOUBLE_EQ(s->bits_per_second, 800e6);
    // The next window starts where that one ended.
    c.bytes_acked = 6'000'000;
    const auto t = m.next(c, 101 * ms, true);
    ASSERT_TRUE(t);
    EXPECT_DOUBLE_EQ(t->bits_per_second, 160e6);
}

TEST(LinkMeter, AFullReceiverWindowMakesALowerBound) {
    // In flight for 10 ms since the last reading, 8 of them held back by the daemon's window.
    link_meter m;
    EXPECT_FALSE(m.next({.delivery_rate = 1'000'000, .busy_us = 1000}, 1 * ms, true));
    const tcp_counters held{.delivery_rate = 1'000'000,
                            .busy_us = 11'000,
                            .rwnd_limited_us = 8'000,
                            .bytes_acked = 500'000};
    const auto s = m.next(held, 60 * ms, true);
    ASSERT_TRUE(s);
    EXPECT_TRUE(s->lower_bound);
    EXPECT_NEAR(s->bits_per_second, 8e9 * 500'000 / (59 * ms), 1);
}

TEST(LinkMeter, WithoutADeliveryRateOnlyLowerBounds) {
    // An older kernel: no tcpi_delivery_rate, bytes acknowledged only.
    link_meter m;
    EXPECT_FALSE(m.next({.bytes_acked = 0}, 1 * ms, true));
    const auto s = m.next({.bytes_acked = 625'000}, 51 * ms, true);
    ASSERT_TRUE(s);
    EXPECT_TRUE(s->lower_bound);
    EXPECT_DOUBLE_EQ(s->bits_per_second, 100e6);
}

}  // namespace
}  // namespace objwire::client
