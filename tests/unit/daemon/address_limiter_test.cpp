// address_limiter: slots per source address, and which roles hold them - what a refusal at
// limits.max_connections_per_address says.
#include "daemon/serve/address_limiter.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

namespace objwire::daemon {
namespace {

TEST(AddressLimiter, SlotsAreCappedPerAddressAndGivenBack) {
    address_limiter l;
    EXPECT_TRUE(l.try_acquire("10.0.0.1", 2));
    EXPECT_TRUE(l.try_acquire("10.0.0.1", 2));
    EXPECT_FALSE(l.try_acquire("10.0.0.1", 2));
    EXPECT_TRUE(l.try_acquire("10.0.0.2", 2)) << "another address has its own slots";
    l.release("10.0.0.1");
    EXPECT_EQ(l.open("10.0.0.1"), 1u);
    EXPECT_TRUE(l.try_acquire("10.0.0.1", 2));
}

// The default: a fleet behind one address (a NAT, a node) is not refused for sharing it.
TEST(AddressLimiter, CapZeroAdmitsEveryConnectionAndStillCountsThem) {
    address_limiter l;
    for (int i = 0; i < 5000; ++i)
        ASSERT_TRUE(l.try_acquire("10.0.0.1", 0)) << i;
    EXPECT_EQ(l.open("10.0.0.1"), 5000u);
    l.release("10.0.0.1");
    EXPECT_EQ(l.open("10.0.0.1"), 4999u);
}

TEST(AddressLimiter, MarksSayWhichRolesHoldTheSlots) {
    address_limiter l;
    for (int i = 0; i < 64; ++i)
        ASSERT_TRUE(l.try_acquire("127.0.0.1", 64));
    {
        std::vector<std::unique_ptr<slot_role_mark>> readers;
        for (int i = 0; i < 60; ++i)
            readers.push_back(std::make_unique<slot_role_mark>(l, "127.0.0.1", slot_role::reader));
        slot_role_mark stats(l, "127.0.0.1", slot_role::stats);
        const auto s = l.slots("127.0.0.1");
        EXPECT_EQ(s.open, 64u);
        EXPECT_EQ(s.readers, 60u);
        EXPECT_EQ(s.stats, 1u);
        EXPECT_EQ(s.others(), 3u);
        EXPECT_EQ(describe(s), "60 readers, 1 stats query, 3 senders or before their hello");
    }
    // The marks end with the roles: the slots are the senders' (or undecided) again.
    EXPECT_EQ(describe(l.slots("127.0.0.1")), "64 senders or before their hello");
}

TEST(AddressLimiter, AMarkNeedsASlotToMark) {
    address_limiter l;
    // No slot held (the address went away): nothing to mark, nothing goes negative.
    { slot_role_mark m(l, "10.0.0.9", slot_role::reader); }
    EXPECT_EQ(l.open("10.0.0.9"), 0u);
    ASSERT_TRUE(l.try_acquire("10.0.0.9", 4));
    {
        slot_role_mark one(l, "10.0.0.9", slot_role::reader);
        slot_role_mark two(l, "10.0.0.9", slot_role::reader);  // more marks than slots
        EXPECT_EQ(l.slots("10.0.0.9").readers, 1u);
        EXPECT_EQ(describe(l.slots("10.0.0.9")), "1 reader");
    }
    EXPECT_EQ(l.slots("10.0.0.9").readers, 0u);
    EXPECT_EQ(describe(address_slots{}), "none");
}

}  // namespace
}  // namespace objwire::daemon
