// start_slots: readers' journal searches running at once, capped per source address
// (limits.max_reader_starts_per_address) and in all (limits.max_reader_starts), with a
// refusal that names the count, the limit and its key.
#include "daemon/serve/start_slots.hpp"

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <thread>
#include <vector>

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

// Threads taking and giving back at once never hold more than the caps: per address, and in
// all. Each thread counts itself as holding only between a slot taken and given back.
TEST(StartSlots, ConcurrentTakersNeverPassTheCaps) {
    start_slots s;
    std::atomic<int> in_all{0};
    std::array<std::atomic<int>, 2> per_address{};
    std::atomic<int> most_in_all{0};
    std::array<std::atomic<int>, 2> most_per_address{};
    std::atomic<int> taken{0};
    const auto raise = [](std::atomic<int>& most, int now) {
        for (int m = most.load(); now > m && !most.compare_exchange_weak(m, now);) {
        }
    };
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t)
        threads.emplace_back([&, t] {
            const int a = t % 2;
            const std::string address = a == 0 ? "10.0.0.1" : "10.0.0.2";
            for (int i = 0; i < 5000; ++i) {
                if (!s.try_take(address, 2, 3).empty()) continue;
                ++taken;
                raise(most_in_all, ++in_all);
                raise(most_per_address[a], ++per_address[a]);
                --per_address[a];
                --in_all;
                s.give_back(address);
            }
        });
    for (auto& th : threads)
        th.join();
    EXPECT_GT(taken.load(), 0);
    EXPECT_LE(most_in_all.load(), 3);
    EXPECT_LE(most_per_address[0].load(), 2);
    EXPECT_LE(most_per_address[1].load(), 2);
    EXPECT_EQ(s.running(), 0u) << "every slot taken was given back";
    EXPECT_EQ(s.try_take("10.0.0.1", 2, 3), "");
}

}  // namespace
}  // namespace objwire::daemon
