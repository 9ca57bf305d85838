// The credit rule (daemon/serve/credit_share.hpp): an equal share of the budget among the
// senders streaming, within the floor and the whole.
#include <gtest/gtest.h>

#include <vector>

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

// The share each ack carries follows the senders streaming as they come and go: it shrinks
// as they join, grows back as they leave, and is the welcome's rule at every count.
TEST(credit_share, follows_the_senders_as_they_come_and_go) {
    const std::int64_t counts[] = {1, 2, 4, 1000, 2000, 1000, 3, 1};
    const std::uint64_t shares[] = {64 * mib,     32 * mib,        16 * mib,     64 * mib / 1000,
                                    credit_floor, 64 * mib / 1000, 64 * mib / 3, 64 * mib};
    for (std::size_t i = 0; i < std::size(counts); ++i)
        EXPECT_EQ(credit_share(64 * mib, counts[i]), shares[i]) << counts[i] << " senders";
}

// Senders joining one by one: the others are told each time the share has fallen to three
// quarters of the one last told - 20 times for 1,000, not once per join, and the credit told
// stays within 4/3 of the share - and a share that grows as senders leave is left to the
// acks, without a notice.
TEST(credit_notices, tell_the_senders_each_time_the_share_falls_by_a_quarter) {
    credit_notices notices;
    std::vector<std::int64_t> told_at;
    std::uint64_t told = 64 * mib;
    for (std::int64_t n = 1; n <= 1000; ++n) {
        const auto share = credit_share(64 * mib, n);
        if (notices.on_senders(64 * mib, n)) {
            told_at.push_back(n);
            told = share;
        }
        EXPECT_LT(told, share / 3 * 4 + 4) << n << " senders";
    }
    EXPECT_EQ(told_at, (std::vector<std::int64_t>{2,  3,  5,   7,   10,  14,  19,  26,  35,  47,
                                                  63, 84, 113, 151, 202, 270, 361, 482, 643, 858}));
    // Leaving: no notice, however many go.
    for (std::int64_t n = 999; n >= 1; --n)
        EXPECT_FALSE(notices.on_senders(64 * mib, n)) << n;
    // The largest share since is the reference again: joining anew tells at 2 senders.
    EXPECT_TRUE(notices.on_senders(64 * mib, 2));
    EXPECT_FALSE(notices.on_senders(64 * mib, 2));
    // At the floor the share stops falling: no more notices.
    credit_notices floor;
    int count = 0;
    for (std::int64_t n = 1; n <= 5000; ++n)
        count += floor.on_senders(64 * mib, n) ? 1 : 0;
    EXPECT_EQ(count, 20);  // the last at 858 senders (78,215 bytes); 64 KiB from 1,024 on
}

}  // namespace
}  // namespace objwire::daemon
