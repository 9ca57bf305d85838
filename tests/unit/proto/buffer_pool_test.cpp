// The pools connections share their buffers through (proto/buffer_pool.hpp,
// proto/util/object_pool.hpp): reuse, both bounds, and a receiver that parks with no frame
// begun - it holds no read block while it waits - and reads on the same after it.
#include <gtest/gtest.h>

#include "proto/buffer_pool.hpp"
#include "proto/receiver.hpp"
#include "proto/sender.hpp"
#include "proto/util/object_pool.hpp"
#include "test_support.hpp"

namespace objwire {
namespace {

TEST(buffer_pool, hands_back_a_kept_buffer_large_enough) {
    buffer_pool pool(1 << 20, 1 << 20);
    auto b = pool.take(4096);
    EXPECT_GE(b.capacity(), 4096u);
    b.append(std::string_view("bytes"));
    const auto* memory = b.data();
    pool.give(std::move(b));
    EXPECT_EQ(pool.kept(), 1u);
    EXPECT_EQ(pool.kept_bytes(), 4096u);
    auto again = pool.take(1000);
    EXPECT_EQ(again.data(), memory);  // the same memory, not a new allocation
    EXPECT_TRUE(again.empty());       // its bytes are gone
    EXPECT_EQ(pool.kept(), 0u);
    EXPECT_EQ(pool.kept_bytes(), 0u);
}

TEST(buffer_pool, a_kept_buffer_too_small_is_not_handed_out) {
    buffer_pool pool(1 << 20, 1 << 20);
    pool.give(pool.take(100));
    const auto b = pool.take(200);
    EXPECT_GE(b.capacity(), 200u);
    EXPECT_EQ(pool.kept(), 1u);  // the small one stays
}

TEST(buffer_pool, keeps_no_more_than_its_bytes_nor_a_buffer_over_its_largest) {
    buffer_pool pool(10000, 5000);
    pool.give(pool.take(6000));  // over the largest kept: freed
    EXPECT_EQ(pool.kept(), 0u);
    std::vector<byte_buffer> taken;
    for (int i = 0; i < 5; ++i)
        taken.push_back(pool.take(4000));
    for (auto& b : taken)
        pool.give(std::move(b));
    EXPECT_EQ(pool.kept(), 2u);
    EXPECT_EQ(pool.kept_bytes(), 8000u);
    pool.give(byte_buffer{});  // nothing to keep
    EXPECT_EQ(pool.kept(), 2u);
}

TEST(object_pool, keeps_at_most_its_count) {
    object_pool<int> pool(2);
    EXPECT_EQ(pool.take(), nullptr);
    for (int i = 0; i < 3; ++i)
        pool.give(std::make_unique<int>(i));
    EXPECT_EQ(pool.kept(), 2u);
    auto p = pool.take();
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(*p, 1);  // the most recently kept
    pool.give(nullptr);
    EXPECT_EQ(pool.kept(), 1u);
}

sender::options small_batches() {
    sender::options o;
    o.greeting.client_name = "test";
    o.batch_max_bytes = 512;
    return o;
}

// One read of `bytes` (the receiver takes a block from its pool if parked).
void feed(receiver& r, std::span<const std::uint8_t> bytes, std::vector<message>& stored) {
    auto space = r.prepare();
    ASSERT_GE(space.size(), bytes.size());
    std::copy(bytes.begin(), bytes.end(), space.begin());
    r.commit(bytes.size());
    r.process([&](message&& m) { stored.push_back(std::move(m)); });
}

// What a daemon does between reads: park when no frame is begun, read on into a block
// taken from the pool. The messages are the same as without a pool, and while parked the
// receiver holds no read block.
TEST(receiver_pool, parks_between_frames_and_reads_on_the_same) {
    buffer_pool pool(4 << 20, 1 << 20);
    receiver::options ro;
    ro.read_block = 64 * 1024;
    ro.pool = &pool;
    receiver r(ro);
    sender s(small_batches());
    std::vector<message> stored;
    test::deliver(s, r, stored);
    test::answer(r, s);
    ASSERT_EQ(r.current(), receiver::state::streaming);
    EXPECT_TRUE(r.park());
    EXPECT_TRUE(r.parked());
    EXPECT_LT(r.buffer_bytes(), 4096u) << "no read block, no inflate buffer";
    EXPECT_EQ(pool.kept(), 1u);
    std::vector<message> sent;
    int rounds = 0;
    for (int i = 0; i < 2000; ++i) {
        sent.push_back(test::person(i));
        ASSERT_FALSE(s.add(sent.back()));
        const auto out = s.output();
        if (i % 300 != 0 || out.size() <= 3) continue;
        ++rounds;
        // All but the last 3 bytes: a frame is begun, so the receiver keeps its block.
        feed(r, out.first(out.size() - 3), stored);
        EXPECT_FALSE(r.park());
        EXPECT_FALSE(r.parked());
        feed(r, out.last(3), stored);
        s.consume_output();
        test::answer(r, s);
        EXPECT_TRUE(r.park());
        EXPECT_TRUE(r.parked());
    }
    EXPECT_GE(rounds, 5);
    s.finish();
    test::deliver(s, r, stored);
    EXPECT_EQ(stored, sent);
    EXPECT_EQ(r.current(), receiver::state::finished);
    EXPECT_LE(pool.kept_bytes(), 4u << 20);
}

TEST(receiver_pool, without_a_pool_a_receiver_keeps_its_block) {
    receiver::options ro;
    receiver r(ro);
    (void)r.prepare();
    EXPECT_FALSE(r.park());
    EXPECT_FALSE(r.parked());
}

}  // namespace
}  // namespace objwire
