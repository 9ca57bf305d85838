// Per-sender order for readers of a NATS stream (daemon/sinks/nats_reorder.hpp): blocks arrive in
// stream order, which a republished block can break; each sender's blocks come out in the
// order sent, none lost, none twice.
#include "daemon/sinks/nats_reorder.hpp"

#include <gtest/gtest.h>

namespace objwire::daemon {
namespace {

std::uint64_t next_stream_sequence = 0;

ordered_block block(const std::string& sender, std::uint64_t first, std::uint64_t last,
                    std::uint64_t offset, std::uint64_t objects) {
    ordered_block b;
    b.stream_sequence = ++next_stream_sequence;
    b.sender = sender;
    b.first_sequence = first;
    b.last_sequence = last;
    b.first_offset = offset;
    b.objects = objects;
    b.bytes.assign(100, 0);
    return b;
}

// "sender:first" of each block, in order.
std::vector<std::string> names(const std::vector<ordered_block>& out) {
    std::vector<std::string> n;
    for (const auto& b : out)
        n.push_back(b.sender + ":" + std::to_string(b.first_sequence) + "+" +
                    std::to_string(b.first_offset));
    return n;
}

TEST(block_reorder, in_order_blocks_go_at_once) {
    block_reorder r(16, 1 << 20);
    std::vector<ordered_block> out;
    r.add(block("a", 1, 2, 0, 10), out);
    r.add(block("b", 1, 1, 0, 5), out);
    r.add(block("a", 3, 3, 10, 4), out);
    EXPECT_EQ(names(out), (std::vector<std::string>{"a:1+0", "b:1+0", "a:3+10"}));
    EXPECT_FALSE(r.holding());
}

TEST(block_reorder, an_overtaken_block_takes_its_place_back) {
    block_reorder r(16, 1 << 20);
    std::vector<ordered_block> out;
    r.add(block("a", 1, 1, 0, 1), out);
    r.add(block("a", 3, 3, 2, 1), out);  // frame 2 was republished: it comes later
    r.add(block("b", 1, 1, 0, 1), out);
    r.add(block("a", 4, 4, 3, 1), out);
    EXPECT_EQ(names(out), (std::vector<std::string>{"a:1+0", "b:1+0"}));
    EXPECT_TRUE(r.holding());
    r.add(block("a", 2, 2, 1, 1), out);
    EXPECT_EQ(names(out), (std::vector<std::string>{"a:1+0", "b:1+0", "a:2+1", "a:3+2", "a:4+3"}));
    EXPECT_FALSE(r.holding());
    EXPECT_EQ(r.released_late(), 0u);
}

TEST(block_reorder, parts_of_one_batch_follow_by_offset) {
    block_reorder r(16, 1 << 20);
    std::vector<ordered_block> out;
    r.add(block("a", 1, 1, 0, 5), out);
    r.add(block("a", 2, 2, 10, 5), out);  // the second part of frame 2 first
    r.add(block("a", 2, 2, 5, 5), out);
    r.add(block("a", 3, 3, 15, 1), out);
    EXPECT_EQ(names(out), (std::vector<std::string>{"a:1+0", "a:2+5", "a:2+10", "a:3+15"}));
}

TEST(block_reorder, a_sender_seen_mid_stream_is_held_until_the_end) {
    block_reorder r(16, 1 << 20);
    std::vector<ordered_block> out;
    r.add(block("a", 8, 8, 70, 1), out);  // a read from the middle: no frame 1
    r.add(block("a", 7, 7, 60, 10), out);
    EXPECT_TRUE(out.empty());
    r.flush(out);
    EXPECT_EQ(names(out), (std::vector<std::string>{"a:7+60", "a:8+70"}));
    EXPECT_FALSE(r.holding());
}

TEST(block_reorder, held_too_long_goes_on_and_the_late_block_is_not_lost) {
    block_reorder r(3, 1 << 20);
    std::vector<ordered_block> out;
    r.add(block("a", 1, 1, 0, 1), out);
    r.add(block("a", 3, 3, 2, 1), out);  // frame 2 is missing for a long time
    for (int i = 1; i <= 3; ++i)
        r.add(block("b", i, i, i - 1, 1), out);
    // b's third block comes 3 stream messages after a's frame 3: that one goes on.
    EXPECT_EQ(names(out), (std::vector<std::string>{"a:1+0", "b:1+0", "b:2+1", "b:3+2", "a:3+2"}));
    r.add(block("a", 2, 2, 1, 1), out);  // finally: served at once, out of order
    EXPECT_EQ(out.back().first_sequence, 2u);
    EXPECT_EQ(r.released_late(), 1u);
    r.add(block("a", 4, 4, 3, 1), out);  // and the stream goes on after frame 3
    EXPECT_EQ(out.back().first_sequence, 4u);
    EXPECT_EQ(out.size(), 7u);
}

TEST(block_reorder, the_byte_bound_releases_the_oldest_held) {
    block_reorder r(1000, 250);  // room for two 100-byte blocks
    std::vector<ordered_block> out;
    r.add(block("a", 5, 5, 4, 1), out);
    r.add(block("a", 6, 6, 5, 1), out);
    EXPECT_TRUE(out.empty());
    r.add(block("a", 7, 7, 6, 1), out);
    EXPECT_EQ(names(out), (std::vector<std::string>{"a:5+4", "a:6+5", "a:7+6"}));
    EXPECT_FALSE(r.holding());
}

}  // namespace
}  // namespace objwire::daemon
