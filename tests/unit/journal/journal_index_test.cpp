// The sender index read from block headers only (daemon/journal_index.hpp): the last frame of
// every sender id across segments, large blocks skipped without reading their payloads, and a
// scan that stops at a header that is not a block's.
#include <gtest/gtest.h>

#include <map>

#include "daemon/journal_index.hpp"
#include "daemon/sender_registry.hpp"
#include "journal_support.hpp"

namespace objwire::test {
namespace {

class JournalIndex : public journal_dir {
  protected:
    void put(daemon::journal& j, const std::string& sender, std::uint64_t first, std::uint64_t last,
             std::int64_t n = 3) {
        auto block = make_block(events(0, n), sender, first, last);
        std::error_code ec;
        j.append(
            block, [](std::error_code) {}, ec);
        ASSERT_FALSE(ec) << ec.message();
    }
    std::map<std::string, std::uint64_t> scan(daemon::journal_index_scan& stats) {
        std::error_code ec;
        auto segs = daemon::list_segments(dir_, ec);
        EXPECT_FALSE(ec);
        std::map<std::string, std::uint64_t> last;
        EXPECT_FALSE(daemon::scan_sender_index(
            segs, [&](std::string_view id, std::uint64_t seq) { last[std::string(id)] = seq; },
            stats));
        return last;
    }
};

TEST_F(JournalIndex, LastSequenceOfEverySenderAcrossSegments) {
    auto o = options();
    o.segment_bytes = 64 * 1024;  // several segments
    auto j = open(o);
    std::uint64_t seq_a = 0, seq_b = 0;
    for (int i = 0; i < 400; ++i) {
        if (i % 3 == 0) {
            put(*j, "b", seq_b + 1, seq_b + 2, 20);
            seq_b += 2;
        } else {
            put(*j, "a", seq_a + 1, seq_a + 1, 20);
            seq_a += 1;
        }
        if (i % 50 == 0) put(*j, "", 1, 1);  // anonymous: not indexed
    }
    j.reset();
    daemon::journal_index_scan stats;
    auto last = scan(stats);
    EXPECT_GT(stats.segments, 2u);
    EXPECT_EQ(stats.blocks, 408u);
    EXPECT_EQ(last.size(), 2u);
    EXPECT_EQ(last["a"], seq_a);
    EXPECT_EQ(last["b"], seq_b);
}

TEST_F(JournalIndex, LargeBlocksAreSkippedNotRead) {
    auto j = open(options());
    for (std::uint64_t s = 1; s <= 20; ++s)
        put(*j, "big", s, s, 3000);  // ~100 KiB each
    j.reset();
    daemon::journal_index_scan stats;
    auto last = scan(stats);
    EXPECT_EQ(last["big"], 20u);
    std::error_code ec;
    const auto total = daemon::list_segments(dir_, ec).at(0).bytes;
    EXPECT_GT(total, 20u * 64 * 1024);
    EXPECT_LT(stats.bytes_read, total / 10);  // payloads skipped
}

TEST_F(JournalIndex, ScanStopsAtGarbage) {
    auto j = open(options());
    put(*j, "x", 1, 5);
    put(*j, "x", 6, 9);
    j.reset();
    std::error_code ec;
    const auto seg = daemon::list_segments(dir_, ec).at(0).path;
    auto bytes = read_bytes(seg);
    bytes.resize(bytes.size() + 100, 0x55);  // not a block
    write_bytes(seg, bytes);
    daemon::journal_index_scan stats;
    auto last = scan(stats);
    EXPECT_EQ(last["x"], 9u);
    EXPECT_EQ(stats.blocks, 2u);
}

TEST(SenderRegistry, ClaimWaitsForTheHolderAndItsBatches) {
    daemon::sender_registry r;
    r.remember("s", 7);
    int stops = 0, wakes = 0;
    EXPECT_TRUE(r.try_claim(
        "s", 1, [&] { ++stops; }, [] {}));
    r.batch_committed("s");
    EXPECT_FALSE(r.try_claim(
        "s", 2, [] {}, [&] { ++wakes; }));
    EXPECT_FALSE(r.try_claim(
        "s", 2, [] {}, [&] { ++wakes; }));
    EXPECT_EQ(stops, 1);  // asked once
    r.release("s", 1);
    EXPECT_EQ(wakes, 0);  // a batch is still on its way
    r.batch_done("s", 9, true);
    EXPECT_EQ(wakes, 2);
    EXPECT_TRUE(r.try_claim(
        "s", 2, [] {}, [] {}));
    EXPECT_EQ(r.last_durable("s"), 9u);
    r.batch_committed("s");
    r.batch_done("s", 12, false);  // failed: not stored
    EXPECT_EQ(r.last_durable("s"), 9u);
    r.release("s", 1);  // not the holder: nothing happens
    EXPECT_FALSE(r.try_claim(
        "s", 3, [] {}, [] {}));
    EXPECT_EQ(r.last_durable("unknown"), 0u);
}

}  // namespace
}  // namespace objwire::test
