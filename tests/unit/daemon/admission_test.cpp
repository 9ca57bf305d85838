// The daemon's admission and budget rules: connections per address, the table-budget pool and
// the stored-bytes allowances (per connection and per sender id).
#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "daemon/serve/address_limiter.hpp"
#include "daemon/serve/store_allowance.hpp"
#include "daemon/serve/table_budget_pool.hpp"

namespace objwire::daemon {
namespace {

TEST(AddressLimiter, RefusesPastTheCapPerAddressOnly) {
    address_limiter l;
    EXPECT_TRUE(l.try_acquire("10.0.0.1", 2));
    EXPECT_TRUE(l.try_acquire("10.0.0.1", 2));
    EXPECT_FALSE(l.try_acquire("10.0.0.1", 2));
    EXPECT_TRUE(l.try_acquire("10.0.0.2", 2)) << "another address has its own slots";
    EXPECT_EQ(l.open("10.0.0.1"), 2u);
    l.release("10.0.0.1");
    EXPECT_EQ(l.open("10.0.0.1"), 1u);
    EXPECT_TRUE(l.try_acquire("10.0.0.1", 2));
}

TEST(AddressLimiter, ReleaseOfAnUnknownAddressChangesNothing) {
    address_limiter l;
    l.release("10.0.0.9");
    EXPECT_EQ(l.open("10.0.0.9"), 0u);
    EXPECT_TRUE(l.try_acquire("10.0.0.9", 1));
    l.release("10.0.0.9");
    l.release("10.0.0.9");
    EXPECT_EQ(l.open("10.0.0.9"), 0u);
}

TEST(AddressLimiter, ConcurrentAcquiresNeverExceedTheCap) {
    address_limiter l;
    std::atomic<int> granted{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&] {
            for (int i = 0; i < 1000; ++i)
                if (l.try_acquire("a", 64)) ++granted;
        });
    for (auto& t : threads)
        t.join();
    EXPECT_EQ(granted.load(), 64);
    EXPECT_EQ(l.open("a"), 64u);
}

TEST(TableBudgetPool, GrantsNeverExceedTheTotal) {
    table_budget_pool pool(10);
    table_budget_pool::grant a(pool, 4);
    table_budget_pool::grant b(pool, 4);
    table_budget_pool::grant c(pool, 4);
    EXPECT_EQ(a.bytes(), 4u);
    EXPECT_EQ(b.bytes(), 4u);
    EXPECT_EQ(c.bytes(), 2u) << "what is left";
    table_budget_pool::grant d(pool, 4);
    EXPECT_EQ(d.bytes(), 0u) << "a connection granted 0 works with back-references off";
    EXPECT_EQ(pool.in_use(), 10u);
}

// Full grants while a quarter of the total stays; then reduced grants of a 4,096th of it out
// of that quarter, so that many senders each still get a table; then nothing.
TEST(TableBudgetPool, TheLastQuarterGoesInReducedGrants) {
    constexpr std::uint64_t mib = 1024 * 1024, total = 256 * mib;
    table_budget_pool pool(total);
    std::vector<std::unique_ptr<table_budget_pool::grant>> grants;
    int full = 0, reduced = 0, none = 0;
    for (int i = 0; i < 1100; ++i) {
        grants.push_back(std::make_unique<table_budget_pool::grant>(pool, 4 * mib));
        const auto b = grants.back()->bytes();
        (b == 4 * mib ? full : b == total / 4096 ? reduced : none) += 1;
        if (b != 4 * mib && b != total / 4096) {
            EXPECT_EQ(b, 0u) << "connection " << i;
        }
    }
    EXPECT_EQ(full, 48);
    EXPECT_EQ(reduced, 1024);
    EXPECT_EQ(none, 1100 - 48 - 1024);
    EXPECT_EQ(pool.in_use(), total);
    grants.erase(grants.begin());  // a full grant comes back: the next one gets a reduced one
    grants.push_back(std::make_unique<table_budget_pool::grant>(pool, 4 * mib));
    EXPECT_EQ(grants.back()->bytes(), total / 4096);
}

TEST(TableBudgetPool, TheFirstGrantIsWhatItAsksForEvenAboveThreeQuarters) {
    table_budget_pool pool(64 * 1024);  // room for one sender's table, as configured
    table_budget_pool::grant a(pool, 64 * 1024);
    EXPECT_EQ(a.bytes(), 64u * 1024);
}

TEST(TableBudgetPool, AGrantComesBackWhenItsConnectionEnds) {
    table_budget_pool pool(10);
    {
        table_budget_pool::grant a(pool, 8);
        EXPECT_EQ(pool.in_use(), 8u);
    }
    EXPECT_EQ(pool.in_use(), 0u);
    table_budget_pool::grant b(pool, 10);
    EXPECT_EQ(b.bytes(), 10u);
}

TEST(StoreAllowance, TheFirstMebibyteIsFree) {
    store_allowance a({2, 2});
    EXPECT_EQ(a.stored(store_allowance::free_bytes), "");
    const auto why = a.stored(1);
    EXPECT_NE(why.find("limits.max_stored_ratio"), std::string::npos) << why;
    EXPECT_EQ(a.stored_bytes(), store_allowance::free_bytes + 1);
}

TEST(StoreAllowance, GrowsWithWhatWasReceived) {
    store_allowance a({16, 0});
    a.received(4 * store_allowance::free_bytes, 1);
    EXPECT_EQ(store_allowance::allowed(16, 4 * store_allowance::free_bytes),
              65 * store_allowance::free_bytes);
    EXPECT_EQ(a.stored(65 * store_allowance::free_bytes), "");
    EXPECT_NE(a.stored(1), "");
}

// Back-references: few decoded bytes stored as the values they name.
TEST(StoreAllowance, StoringPastTheDecodedRatioNamesItsKey) {
    store_allowance a({16, 4096});
    a.received(1000, 1000);
    const auto why = a.stored(16 * 1000 + store_allowance::free_bytes + 1);
    EXPECT_NE(why.find("bytes received (decoded): over limits.max_stored_ratio (16 bytes stored "
                       "per byte received"),
              std::string::npos)
        << why;
}

// Before: only decoded bytes were counted, so 542 wire bytes of zstd (16 MiB of null messages)
// were allowed 16 x 16 MiB.
TEST(StoreAllowance, ACompressedFrameIsChargedByItsWireBytes) {
    store_allowance a({16, 4096});
    a.received(16u << 20, 542);
    const auto why = a.stored(16u << 20);
    EXPECT_NE(why.find("storing 16777216 bytes for 542 bytes received on the wire: over "
                       "limits.max_stored_wire_ratio (4096 bytes stored per byte received"),
              std::string::npos)
        << why;
    EXPECT_NE(why.find("at most " + std::to_string(4096 * 542 + store_allowance::free_bytes)),
              std::string::npos)
        << why;
}

TEST(StoreAllowance, RatioZeroIsNoLimit) {
    store_allowance a({0, 0});
    EXPECT_EQ(a.stored(std::uint64_t{1} << 40), "");
}

TEST(SenderStoreQuota, CountsEachSenderIdApartAndNamesTheKey) {
    sender_store_quota q(100);
    EXPECT_EQ(q.stored("a", 60), "");
    EXPECT_EQ(q.stored("b", 60), "");
    EXPECT_EQ(q.stored("a", 40), "") << "exactly the quota is within it";
    const auto why = q.stored("a", 1);
    EXPECT_NE(why.find("'a'"), std::string::npos) << why;
    EXPECT_NE(why.find("limits.sender_stored_quota"), std::string::npos) << why;
}

TEST(SenderStoreQuota, AnonymousSendersAndQuotaZeroAreNotCounted) {
    sender_store_quota q(10);
    EXPECT_EQ(q.stored("", 1000), "");
    sender_store_quota none(0);
    EXPECT_EQ(none.stored("a", std::uint64_t{1} << 40), "");
}

}  // namespace
}  // namespace objwire::daemon
