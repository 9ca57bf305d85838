// The credit rule (daemon/serve/credit_share.hpp): an equal share of the budget among the
// senders streaming, within the floor and the whole.
#include <gtest/gtest.h>

#include "daemon/serve/credit_share.hpp"

namespace objwire::daemon {
namespace {

constexpr std::uint64_t mib = 1024 * 1024;

TEST(credit_share, one_sender_alone_keeps_the_whole_budget) {
    EXPECT_EQ(credit_share(64 * mib, 1), 64 * mib);
    EXPECT_EQ(credit_share(64 * mib, 0), 64 * mib);  // counted before it took its role
}

TEST(credit_share, senders_share_the_budget_equally) {
    EXPECT_EQ(credit_share(64 * mib, 2), 32 * mib);
    EXPECT_EQ(credit_share(64 * mib, 100), 64 * mib / 100);
    // More senders, never a larger share.
    for (std::int64_t n = 1; n < 3000; ++n)
        EXPECT_LE(credit_share(64 * mib, n + 1), credit_share(64 * mib, n)) << n;
}

TEST(credit_share, never_below_the_floor_nor_above_the_budget) {
    EXPECT_EQ(credit_share(64 * mib, 1000), 64 * mib / 1000);  // 67,108 bytes, over the floor
    EXPECT_EQ(credit_share(64 * mib, 2000), credit_floor);     // 33,554 would be under it
    EXPECT_EQ(credit_share(64 * mib, 100000), credit_floor);
    // A budget under the floor is the most there is.
    EXPECT_EQ(credit_share(16 * 1024, 5), 16u * 1024);
}

}  // namespace
}  // namespace objwire::daemon
