// What the connection feeds the compression policy (client/lib/compression_feed.hpp): intervals
// with their blocked time, and link readings at most every 2 feed_ms unless a write was congested,
// each saying whether the sender waited on the buffer since the previous one.
#include "client/lib/compression_feed.hpp"

#include <gtest/gtest.h>

namespace objwire::client {
namespace {

constexpr std::uint64_t feed_ms = 1'000'000;
constexpr std::uint64_t feed_t0 = 3'600'000 * feed_ms;

TEST(CompressionFeed, IntervalsCarryTheirBlockedTime) {
    compression_feed f;
    f.start(feed_t0);
    f.blocked_on_socket(2 * feed_ms);
    f.blocked_on_acks(3 * feed_ms);
    f.blocked_on_socket(1 * feed_ms);
    const auto first = f.end_interval(feed_t0 + 10 * feed_ms);
    EXPECT_EQ(first.elapsed_ns, 10 * feed_ms);
    EXPECT_EQ(first.blocked_ns, 3 * feed_ms);
    EXPECT_EQ(first.ack_blocked_ns, 3 * feed_ms);
    const auto second =
        f.end_interval(feed_t0 + 11 * feed_ms);  // starts where the first ended, empty
    EXPECT_EQ(second.elapsed_ns, 1 * feed_ms);
    EXPECT_EQ(second.blocked_ns, 0u);
    EXPECT_EQ(second.ack_blocked_ns, 0u);
}

TEST(CompressionFeed, TheLinkIsReadEvery2MsOrWhenCongested) {
    compression_feed f;
    EXPECT_EQ(f.link_sample(false, feed_t0), std::optional<bool>(false));
    EXPECT_EQ(f.link_sample(false, feed_t0 + 1 * feed_ms), std::nullopt);
    f.blocked_on_socket(1);
    EXPECT_EQ(f.link_sample(true, feed_t0 + 1 * feed_ms),
              std::optional<bool>(true));  // congested: now
    EXPECT_EQ(f.link_sample(false, feed_t0 + 3 * feed_ms),
              std::optional<bool>(false));  // wait reported once
}

}  // namespace
}  // namespace objwire::client
