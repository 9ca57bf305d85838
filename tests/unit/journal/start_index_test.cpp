// The sparse start index's rules (daemon/store/start_index.hpp), without files: spans close at
// their block and byte bounds and at a segment's end, a time search finds the first span with a
// block at or after the time however the clock went, a sender's ranks find the span of its last
// N objects, retention drops whole spans, and the memory held follows the documented bound.
#include "daemon/store/start_index.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace objwire::test {
namespace {

using daemon::indexed_block;
using daemon::start_index;

// Appends blocks of `count` objects and `size` bytes to one segment, as a journal would.
struct feeder {
    start_index& ix;
    std::uint64_t segment = 0;
    std::uint64_t position = 0;
    std::uint64_t next = 0;
    void segment_starts() {
        segment = next;
        position = 0;
    }
    indexed_block add(std::string_view sender, std::uint32_t count, std::uint64_t time_ms,
                      std::uint64_t size = 100) {
        indexed_block b{segment, position, size, next, count, time_ms, sender};
        ix.add(b);
        position += size;
        next += count;
        return b;
    }
};

TEST(StartIndex, SpansCloseAtTheirBlockAndByteBoundsAndAtASegmentsEnd) {
    start_index ix(4, 1000);
    feeder f{ix};
    for (int i = 0; i < 10; ++i)
        f.add("a", 2, 1);  // 4 blocks a span: 4, 4, 2
    EXPECT_EQ(ix.spans(), 3u);
    f.add("a", 1, 1, 1000);  // the byte bound: this one fills the span it joins
    f.add("a", 1, 1);
    EXPECT_EQ(ix.spans(), 4u);
    f.segment_starts();
    f.add("a", 1, 1);
    EXPECT_EQ(ix.spans(), 5u);
    const auto p = ix.place_of(f.next - 1);
    ASSERT_TRUE(p);
    EXPECT_EQ(p->segment_first, f.segment);
    EXPECT_EQ(p->position, 0u);
    const auto second = ix.place_of(9);  // block 5 (offsets 8-9) opens the second span
    ASSERT_TRUE(second);
    EXPECT_EQ(second->first_offset, 8u);
    EXPECT_EQ(second->end_offset, 16u);
    EXPECT_EQ(second->position, 400u);
    EXPECT_FALSE(ix.place_of(f.next));
}

TEST(StartIndex, TimeFindsTheFirstSpanWithABlockAtOrAfterItEvenWhenTheClockWentBack) {
    start_index ix(2, 1 << 20);
    feeder f{ix};
    // Spans: [10, 20] [30, 5] [6, 7] [40, 50]: the clock went back after 30.
    for (std::uint64_t t : {10, 20, 30, 5, 6, 7, 40, 50})
        f.add("a", 1, t);
    const auto at = [&](std::uint64_t since, std::uint64_t limit = UINT64_MAX) {
        const auto p = ix.place_of_time(since, limit);
        return p ? static_cast<std::int64_t>(p->first_offset) : -1;
    };
    EXPECT_EQ(at(0), 0);
    EXPECT_EQ(at(15), 0);
    EXPECT_EQ(at(21), 2);  // 30 is the first block at or after 21
    EXPECT_EQ(at(31), 6);
    EXPECT_EQ(at(51), -1);
    EXPECT_EQ(at(31, 6), -1);  // below the limit no block is that late
    // Retention takes the span of 30: the next late enough block is 40's.
    ix.drop_before(4);
    EXPECT_EQ(at(21), 6);
    EXPECT_EQ(at(0), 4);
}

TEST(StartIndex, SenderRanksFindTheSpanOfItsLastObjects) {
    start_index ix(2, 1 << 20);
    feeder f{ix};
    // a: 3 objects a block; b in between.
    for (int i = 0; i < 6; ++i) {
        f.add("a", 3, 1);
        f.add("b", 1, 1);
    }
    // Spans of two blocks: each holds one of a's blocks and one of b's.
    const auto last = ix.last_span_of("a", UINT64_MAX);
    ASSERT_TRUE(last);
    EXPECT_EQ(last->objects_before, 15u);
    EXPECT_EQ(last->objects, 3u);
    EXPECT_EQ(last->span.first_offset, 20u);
    // Below a limit inside the third span, that span is the last to start below it.
    const auto limited = ix.last_span_of("a", 9);
    ASSERT_TRUE(limited);
    EXPECT_EQ(limited->span.first_offset, 8u);
    // Rank 7 (a's 8th object) is in its third block.
    const auto r = ix.span_of_rank("a", 7);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->objects_before, 6u);
    EXPECT_EQ(r->span.first_offset, 8u);
    EXPECT_FALSE(ix.last_span_of("nobody", UINT64_MAX));
    // After retention a rank before what is kept is the first span kept.
    ix.drop_before(8);
    const auto kept = ix.span_of_rank("a", 0);
    ASSERT_TRUE(kept);
    EXPECT_EQ(kept->span.first_offset, 8u);
    EXPECT_EQ(kept->objects_before, 6u);
}

TEST(StartIndex, RetentionDropsOnlyWholeSegmentsSpans) {
    start_index ix(100, 1 << 20);
    feeder f{ix};
    f.add("a", 5, 1);
    f.segment_starts();  // segment at 5
    f.add("a", 5, 1);
    ix.drop_before(3);  // not a segment boundary: nothing is wholly before it
    EXPECT_EQ(ix.spans(), 2u);
    ix.drop_before(5);
    EXPECT_EQ(ix.spans(), 1u);
    EXPECT_EQ(ix.place_of(0)->first_offset, 5u);
}

TEST(StartIndex, MemoryFollowsTheDocumentedBoundPerSpanAndSender) {
    start_index ix;  // the daemon's bounds
    feeder f{ix};
    const std::size_t blocks = 100000;
    for (std::size_t i = 0; i < blocks; ++i)
        f.add(i % 2 ? "sender-one" : "sender-two", 10, i, 1000);
    const std::size_t spans =
        (blocks + start_index::default_span_blocks - 1) / start_index::default_span_blocks;
    EXPECT_EQ(ix.spans(), spans);
    // One span record per span and one sender record per sender and span, plus the ids.
    EXPECT_EQ(ix.memory_bytes(), spans * start_index::span_record_bytes +
                                     2 * spans * start_index::sender_record_bytes + 20);
}

}  // namespace
}  // namespace objwire::test
