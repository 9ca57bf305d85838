// live_block_cache: the blocks followers share at the live end - what it holds, its byte
// bound (limits.readers_shared_bytes, set by each follower's join to live_feed), eviction once
// every follower has taken a block, and the rule that moves a follower off the shared run (behind)
// and back on (join at a held block or the end). write_list: what a gathered write has left after
// each partial write.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <string>

#include "daemon/roles/live_block_cache.hpp"
#include "daemon/roles/live_feed.hpp"
#include "daemon/roles/write_list.hpp"
#include "proto/crc32c.hpp"

namespace objwire::daemon {
namespace {

using block_ptr = live_block_cache::block_ptr;
using take_result = live_block_cache::take_result;

// A stored block of `objects` empty objects from `first`, `payload` bytes of payload.
block_ptr block(std::uint64_t first, std::uint32_t objects, std::size_t payload = 1000) {
    live_block b;
    b.bytes.resize(payload);
    b.view.header.first_offset = first;
    b.view.header.message_count = objects;
    b.sum = sum_payload(b.bytes.span());
    return std::make_shared<const live_block>(std::move(b));
}

std::vector<std::uint64_t> firsts(const std::vector<block_ptr>& blocks) {
    std::vector<std::uint64_t> out;
    for (const auto& b : blocks)
        out.push_back(b->first_offset());
    return out;
}

TEST(LiveBlockCache, WithNoFollowerNothingIsHeld) {
    live_block_cache c(10'000);
    const auto f = c.join(5);
    ASSERT_TRUE(f.has_value());
    c.leave(*f);
    EXPECT_EQ(c.end_offset(), 5u);
    EXPECT_TRUE(c.put(block(5, 10)));
    EXPECT_EQ(c.blocks(), 0u);
    EXPECT_EQ(c.held_bytes(), 0u);
    EXPECT_EQ(c.end_offset(), 15u);
}

TEST(LiveBlockCache, EveryFollowerTakesEveryBlockOnceInOrderThenItGoes) {
    live_block_cache c(100'000);
    const auto a = *c.join(0);
    const auto b = *c.join(0);
    for (std::uint64_t first = 0; first < 30; first += 10)
        ASSERT_TRUE(c.put(block(first, 10)));
    EXPECT_EQ(c.held_bytes(), 3000u);
    std::vector<block_ptr> got;
    EXPECT_EQ(c.take(a, 1500, got), take_result::blocks);  // until 1,500 bytes are taken
    EXPECT_EQ(firsts(got), (std::vector<std::uint64_t>{0, 10}));
    EXPECT_EQ(c.position(a), 20u);
    EXPECT_EQ(c.blocks(), 3u);  // b has not taken them
    got.clear();
    EXPECT_EQ(c.take(b, 1, got), take_result::blocks);  // at least one block
    EXPECT_EQ(firsts(got), (std::vector<std::uint64_t>{0}));
    EXPECT_EQ(c.blocks(), 2u);  // block 0 taken by both: gone
    EXPECT_EQ(c.first_offset(), 10u);
    got.clear();
    EXPECT_EQ(c.take(b, 100'000, got), take_result::blocks);
    EXPECT_EQ(firsts(got), (std::vector<std::uint64_t>{10, 20}));
    got.clear();
    EXPECT_EQ(c.take(b, 100'000, got), take_result::caught_up);
    EXPECT_TRUE(got.empty());
    EXPECT_EQ(c.position(b), 30u);
    c.leave(b);  // a still needs block 20
    EXPECT_EQ(c.blocks(), 1u);
    c.leave(a);
    EXPECT_EQ(c.blocks(), 0u);
    EXPECT_EQ(c.held_bytes(), 0u);
}

TEST(LiveBlockCache, TheBoundEvictsTheOldestAndItsFollowerFallsBehind) {
    live_block_cache c(2500);
    const auto slow = *c.join(0);
    const auto fast = *c.join(0);
    std::vector<block_ptr> kept;  // what a write in progress holds
    EXPECT_EQ(c.take(slow, 1000, kept), take_result::caught_up);
    for (std::uint64_t first = 0; first < 50; first += 10) {
        ASSERT_TRUE(c.put(block(first, 10)));
        EXPECT_LE(c.held_bytes(), c.max_bytes());
        std::vector<block_ptr> got;
        EXPECT_EQ(c.take(fast, 100'000, got), take_result::blocks);
    }
    EXPECT_EQ(c.first_offset(), 30u);  // two blocks of 1,000 bytes fit, then the third passed
    std::vector<block_ptr> got;
    EXPECT_EQ(c.take(slow, 100'000, got), take_result::behind);
    EXPECT_TRUE(got.empty());
    EXPECT_EQ(c.position(slow), 0u);  // it reads on its own from there
    c.leave(slow);
    // Caught up on its own, it joins again at the end, or at a block held; not between.
    EXPECT_FALSE(c.join(35).has_value());
    EXPECT_FALSE(c.join(10).has_value());
    const auto back = c.join(50);
    ASSERT_TRUE(back.has_value());
    ASSERT_TRUE(c.put(block(50, 10)));
    EXPECT_EQ(c.take(*back, 100'000, got), take_result::blocks);
    EXPECT_EQ(firsts(got), (std::vector<std::uint64_t>{50}));
}

// limits.readers_shared_bytes: the cache holds what it is configured to, and a new bound
// (a reload, applied at the next join) lets the oldest go at once.
TEST(LiveBlockCache, HoldsTheConfiguredBoundAndANewOneAtOnce) {
    for (const std::size_t bound : {std::size_t{256} << 10, std::size_t{8} << 20}) {
        live_block_cache c(bound);
        const auto idle = *c.join(0);  // takes nothing: only the bound lets blocks go
        std::size_t peak = 0;
        std::uint64_t first = 0;
        for (; first < 20 * bound / 1000; first += 10) {
            ASSERT_TRUE(c.put(block(first, 10, 1000)));
            peak = std::max(peak, c.held_bytes());
        }
        EXPECT_EQ(peak, bound / 1000 * 1000) << "as many whole blocks as fit in " << bound;
        EXPECT_EQ(c.end_offset() - c.first_offset(), bound / 1000 * 10);
        std::vector<block_ptr> got;
        EXPECT_EQ(c.take(idle, 1, got), take_result::behind);
        c.set_max_bytes(bound / 4);
        EXPECT_EQ(c.max_bytes(), bound / 4);
        EXPECT_LE(c.held_bytes(), bound / 4);
        EXPECT_GT(c.held_bytes(), bound / 4 - 1000);
        EXPECT_EQ(c.end_offset(), first) << "the newest blocks stay";
    }
}

// The feed takes the bound each follower's join brings (the setting in force then).
TEST(LiveFeed, EachJoinSetsTheSharedBound) {
    // No block is read: joining at the live end touches no file.
    live_feed feed(std::filesystem::temp_directory_path() / "objwire-live-feed-bound-test");
    std::atomic<std::int64_t> gauge{0};
    const auto first = feed.join(0, gauge, std::size_t{1} << 20);
    ASSERT_NE(first, nullptr);
    EXPECT_EQ(feed.max_bytes(), std::size_t{1} << 20);
    const auto second = feed.join(0, gauge, std::size_t{256} << 10);  // after a reload
    ASSERT_NE(second, nullptr);
    EXPECT_EQ(feed.max_bytes(), std::size_t{256} << 10);
    EXPECT_EQ(gauge.load(), 0);
}

TEST(LiveBlockCache, ABlockLargerThanTheBoundIsHeldAloneAndATakenOneLivesOn) {
    live_block_cache c(2000);
    const auto f = *c.join(0);
    ASSERT_TRUE(c.put(block(0, 10, 1500)));
    std::vector<block_ptr> writing;
    EXPECT_EQ(c.take(f, 100'000, writing), take_result::blocks);
    const std::weak_ptr<const live_block> first = writing.front();
    ASSERT_TRUE(c.put(block(10, 10, 5000)));
    EXPECT_EQ(c.blocks(), 1u);
    EXPECT_EQ(c.held_bytes(), 5000u);
    EXPECT_FALSE(first.expired());  // evicted, still written from
    writing.clear();
    EXPECT_TRUE(first.expired());
}

TEST(LiveBlockCache, OnlyTheNextBlockJoinsTheRun) {
    live_block_cache c(10'000);
    const auto f = *c.join(100);
    EXPECT_FALSE(c.put(block(99, 10)));
    EXPECT_FALSE(c.put(block(110, 10)));
    EXPECT_TRUE(c.put(block(100, 10)));
    EXPECT_EQ(c.end_offset(), 110u);
    std::vector<block_ptr> got;
    EXPECT_EQ(c.take(f, 1, got), take_result::blocks);
}

TEST(LiveBlockCache, ACopiedBlockViewsItsOwnBytes) {
    byte_buffer stored;
    stored.resize(64);
    for (std::size_t i = 0; i < stored.size(); ++i)
        stored.data()[i] = static_cast<std::uint8_t>(i);
    journal_block_view v;
    v.sender_id = {reinterpret_cast<const char*>(stored.data() + 40), 3};
    v.payload = stored.span().subspan(50, 10);
    const auto b = copy_live_block(stored.span(), v);
    EXPECT_EQ(reinterpret_cast<const std::uint8_t*>(b.view.sender_id.data()), b.bytes.data() + 40);
    EXPECT_EQ(b.view.payload.data(), b.bytes.data() + 50);
    EXPECT_EQ(b.view.payload.size(), 10u);
    EXPECT_EQ(b.sum.crc, crc32c(stored.span()));
    EXPECT_EQ(b.sum.size, 64u);
}

TEST(WriteList, APartialWriteLeavesTheRestInOrder) {
    const std::string a = "header--";
    const std::string b = "payload-bytes";
    const auto bytes = [](const std::string& s) {
        return std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(s.data()),
                                             s.size());
    };
    write_list l;
    l.add(bytes(a));
    l.add({});
    l.add(bytes(b));
    EXPECT_EQ(l.bytes(), a.size() + b.size());
    EXPECT_EQ(l.buffers().size(), 2u);
    l.consume(3);
    EXPECT_EQ(l.buffers().size(), 2u);
    EXPECT_EQ(static_cast<const char*>(l.buffers()[0].data()), a.data() + 3);
    l.consume(5 + 7);  // the rest of a and 7 of b
    ASSERT_EQ(l.buffers().size(), 1u);
    EXPECT_EQ(std::string(static_cast<const char*>(l.buffers()[0].data()), l.buffers()[0].size()),
              "-bytes");
    l.consume(6);
    EXPECT_TRUE(l.empty());
    EXPECT_TRUE(l.buffers().empty());
}

}  // namespace
}  // namespace objwire::daemon
