// Which sender is closed for a newcomer when the descriptors run out
// (daemon/serve/idle_shedding.hpp): the one idle longest, and only past the minimum.
#include <gtest/gtest.h>

#include <vector>

#include "daemon/serve/idle_shedding.hpp"

namespace objwire::daemon {
namespace {

using namespace std::chrono_literals;
const auto t0 = std::chrono::steady_clock::time_point{} + 1h;

TEST(idle_shedding, the_sender_idle_longest_past_the_minimum) {
    const std::vector<idle_candidate> c = {{1, t0 + 5s}, {2, t0}, {3, t0 + 9s}};
    EXPECT_EQ(idlest_sender(c, t0 + 20s, 10s), 2u);
    // Idle exactly the minimum counts.
    EXPECT_EQ(idlest_sender(c, t0 + 10s, 10s), 2u);
}

TEST(idle_shedding, none_under_the_minimum_nor_without_candidates) {
    const std::vector<idle_candidate> c = {{1, t0 + 5s}, {2, t0}};
    EXPECT_EQ(idlest_sender(c, t0 + 9s, 10s), std::nullopt);  // the idlest only 9 s
    EXPECT_EQ(idlest_sender({}, t0 + 1h, 10s), std::nullopt);
}

}  // namespace
}  // namespace objwire::daemon
