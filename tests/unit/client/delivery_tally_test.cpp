// What a follower of `objwire bench --readers` counts from block headers alone
// (client/cli/delivery_tally.hpp): each bench sender's objects with the time their block
// arrived, other clients' objects and those below the start left out, and a hole in the
// offsets - a block that starts late, or a reported gap - named as objects that never arrived.
#include "client/cli/delivery_tally.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace objwire::client {
namespace {

using arrivals = std::vector<std::pair<std::uint64_t, std::int64_t>>;

arrivals arrivals_of(const delivery_tally& t, std::size_t k) {
    arrivals got;
    t.for_each_arrival(k, [&](std::uint64_t i, std::int64_t ns) { got.emplace_back(i, ns); });
    return got;
}

const std::unordered_map<std::string, std::size_t> bench_senders = {{"a", 0}, {"b", 1}};

TEST(DeliveryTally, CountsEachSendersObjectsWithTheirBlocksArrival) {
    delivery_tally t(bench_senders);
    t.start_at(100);
    t.block("a", 100, 2, 7);
    t.block("b", 102, 1, 8);
    t.block("a", 103, 3, 9);
    EXPECT_EQ(t.delivered(), 6u);
    EXPECT_EQ(t.delivered(0), 5u);
    EXPECT_EQ(t.delivered(1), 1u);
    EXPECT_EQ(arrivals_of(t, 0), (arrivals{{0, 7}, {1, 7}, {2, 9}, {3, 9}, {4, 9}}));
    EXPECT_EQ(arrivals_of(t, 1), (arrivals{{0, 8}}));
    EXPECT_TRUE(t.error().empty());
}

TEST(DeliveryTally, OtherClientsAndObjectsBelowTheStartDoNotCount) {
    delivery_tally t(bench_senders);
    t.start_at(10);
    t.block("a", 4, 8, 1);  // the first block may begin before the start: 10 and 11 count
    t.block("someone-else", 12, 5, 2);
    t.block("b", 17, 1, 3);
    EXPECT_EQ(t.delivered(0), 2u);
    EXPECT_EQ(t.delivered(1), 1u);
    EXPECT_EQ(t.delivered(), 3u);
    EXPECT_TRUE(t.error().empty());
}

TEST(DeliveryTally, ABlockThatStartsLateMeansObjectsNeverArrived) {
    delivery_tally t(bench_senders);
    t.start_at(0);
    t.block("a", 0, 2, 1);
    t.block("a", 5, 2, 2);
    EXPECT_EQ(t.error(), "the objects at offsets [2, 5) never arrived");
    EXPECT_EQ(t.delivered(), 2u);
    t.block("a", 7, 1, 3);  // nothing counts after the first hole
    EXPECT_EQ(t.delivered(), 2u);
}

TEST(DeliveryTally, AReportedGapIsAHole) {
    delivery_tally t(bench_senders);
    t.start_at(0);
    t.block("b", 0, 3, 1);
    t.gap(0, 2);  // before what was counted: no loss to this follower
    EXPECT_TRUE(t.error().empty());
    t.gap(3, 6);
    EXPECT_EQ(t.error(), "the objects at offsets [3, 6) never arrived");
}

}  // namespace
}  // namespace objwire::client
