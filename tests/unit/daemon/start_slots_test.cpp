// start_slots: readers' journal searches running at once, capped per source address
// (limits.max_reader_starts_per_address) and in all (limits.max_reader_starts), with a
// refusal that names the count, the limit and its key.
#include "daemon/serve/start_slots.hpp"

#include <gtest/gtest.h>

namespace objwire::daemon {
namespace {

TEST(StartSlots, CappedPerAddressAndInAllWithTheKeyNamed) {
    start_slots s;
    EXPECT_EQ(s.try_take("10.0.0.1", 2, 3), "");
    EXPECT_EQ(s.try_take("10.0.0.1", 2, 3), "");
    EXPECT_EQ(s.try_take("10.0.0.1", 2, 3),
              "2 reader starts searching the journal for 10.0.0.1, the limit per address "
              "(limits.max_reader_starts_per_address = 2); retry when one has finished");
    EXPECT_EQ(s.try_take("10.0.0.2", 2, 3), "") << "another address has its own slots";
    EXPECT_EQ(s.try_take("10.0.0.3", 2, 3),
              "3 reader starts searching the journal, the limit (limits.max_reader_starts = 3); "
              "retry when one has finished");
    EXPECT_EQ(s.running(), 3u);
    s.give_back("10.0.0.1");
    EXPECT_EQ(s.running(), 2u);
    EXPECT_EQ(s.try_take("10.0.0.3", 2, 3), "");
    EXPECT_NE(s.try_take("10.0.0.1", 2, 3), "")
        << "the address gave one back, but all three are taken";
}

TEST(StartSlots, ZeroCapsNothingAndARefusedAddressHoldsNothing) {
    start_slots s;
    for (int i = 0; i < 1000; ++i)
        ASSERT_EQ(s.try_take("10.0.0.1", 0, 0), "") << i;
    EXPECT_EQ(s.running(), 1000u);
    start_slots capped;
    EXPECT_EQ(capped.try_take("10.0.0.8", 1, 0), "");
    EXPECT_NE(capped.try_take("10.0.0.8", 1, 0).find("limits.max_reader_starts_per_address"),
              std::string::npos);
    EXPECT_NE(capped.try_take("10.0.0.9", 1, 1).find("limits.max_reader_starts ="),
              std::string::npos);
    // The refusals took nothing: an address without a slot gives back nothing.
    capped.give_back("10.0.0.9");
    EXPECT_EQ(capped.running(), 1u);
}

}  // namespace
}  // namespace objwire::daemon
