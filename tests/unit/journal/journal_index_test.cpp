// The sender index read from block headers only (daemon/store/journal_index.hpp): the last frame of
// every sender id across segments, large blocks skipped without reading their payloads, a
// scan that stops at a header that is not a block's, and the sender list `objwire senders` shows.
#include <gtest/gtest.h>

#include <map>

#include "daemon/store/journal_index.hpp"
#include "daemon/store/sender_registry.hpp"
#include "journal_support.hpp"

namespace objwire::test {
namespace {

class JournalIndex : public journal_dir {
  protected:
    void put(daemon::journal& j, const std::string& sender, std::uint64_t first, std::uint64_t last,
             std::int64_t n = 3, std::uint64_t time_ms = 1700000000000) {
        auto block = make_block(events(0, n), sender, first, last, time_ms);
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
        records.clear();
        EXPECT_FALSE(daemon::scan_sender_index(
            segs,
            [&](const daemon::sender_index_entry& e) {
                if (e.sender_id.empty()) return;  // reported, but the index keeps ids only
                last[std::string(e.sender_id)] = e.last_sequence;
                if (e.record) records[std::string(e.sender_id)] = *e.record;
            },
            stats));
        return last;
    }
    std::map<std::string, journal_stream_record> records;  // of the last scan
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

TEST_F(JournalIndex, SenderListCountsEachIdsObjectsAndPlaces) {
    auto o = options();
    o.segment_bytes = 64 * 1024;  // the list spans segments
    auto j = open(o);
    // Offsets: b 0..4, a 5..7, anonymous 8..9, then a and b alternate, 200 blocks each.
    put(*j, "b", 1, 1, 5, 1000);
    put(*j, "a", 1, 1, 3, 2000);
    put(*j, "", 1, 1, 2, 3000);
    std::uint64_t offset = 10;
    for (std::uint64_t i = 0; i < 200; ++i) {
        put(*j, "a", i + 2, i + 2, 20, 4000 + i);
        put(*j, "b", i + 2, i + 2, 7, 5000 + i);
        offset += 27;
    }
    const std::uint64_t end = j->next_offset();
    ASSERT_EQ(end, offset);
    j.reset();
    std::error_code ec;
    const auto segs = daemon::list_segments(dir_, ec);
    ASSERT_GT(segs.size(), 2u);
    sender_list l;
    daemon::journal_index_scan stats;
    ASSERT_FALSE(daemon::list_senders(segs, end, l, stats));
    ASSERT_EQ(l.senders.size(), 3u);
    // Ascending by id, the anonymous stream first.
    EXPECT_EQ(l.senders[0], (sender_entry{"", 2, 8, 9, 3000}));
    EXPECT_EQ(l.senders[1], (sender_entry{"a", 3 + 200 * 20, 5, end - 8, 4199}));
    EXPECT_EQ(l.senders[2], (sender_entry{"b", 5 + 200 * 7, 0, end - 1, 5199}));

    // A running journal's scan stops at its durable end: the last a and b blocks not yet.
    ASSERT_FALSE(daemon::list_senders(segs, end - 27, l, stats));
    EXPECT_EQ(l.senders[1], (sender_entry{"a", 3 + 199 * 20, 5, end - 35, 4198}));
    EXPECT_EQ(l.senders[2], (sender_entry{"b", 5 + 199 * 7, 0, end - 28, 5198}));
    ASSERT_FALSE(daemon::list_senders(segs, 0, l, stats));
    EXPECT_TRUE(l.senders.empty());
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

// Blocks with a stream record (docs/JOURNAL.md 2.1): the scan hands over the newest one per id.
TEST_F(JournalIndex, StreamRecordsAreFound) {
    auto j = open(options());
    journal_stream_record rec;
    rec.fence = daemon::fence_of("token-1");
    for (std::uint64_t s = 1; s <= 3; ++s) {
        journal_block_writer w("rec", false, true);
        message m;
        for (const auto& e : events(0, 2))
            ASSERT_FALSE(w.add(e));
        rec.objects = 2 * s;
        rec.digest = 100 + s;
        w.set_record(rec);
        auto block = w.finish(s, s, 0);
        std::error_code ec;
        j->append(
            block, [](std::error_code) {}, ec);
        ASSERT_FALSE(ec);
    }
    put(*j, "plain", 1, 1);
    j.reset();
    daemon::journal_index_scan stats;
    auto last = scan(stats);
    EXPECT_EQ(last["rec"], 3u);
    ASSERT_EQ(records.count("rec"), 1u);
    EXPECT_EQ(records["rec"].objects, 6u);
    EXPECT_EQ(records["rec"].digest, 103u);
    EXPECT_EQ(records["rec"].fence, daemon::fence_of("token-1"));
    EXPECT_EQ(records.count("plain"), 0u);
}

using claim = daemon::sender_registry::claim;

TEST(SenderRegistry, ClaimWaitsForTheHolderAndItsBatches) {
    daemon::sender_registry r;
    r.remember("s", 7);
    const auto t1 = daemon::fence_of("t1");
    int stops = 0, wakes = 0;
    EXPECT_EQ(r.try_claim(
                  "s", 1, std::nullopt, t1, [&] { ++stops; }, [] {}),
              claim::claimed);
    r.batch_committed("s");
    // The owning stream resuming (its token): the holder is asked to stop, once.
    EXPECT_EQ(r.try_claim(
                  "s", 2, t1, t1, [] {}, [&] { ++wakes; }),
              claim::waiting);
    EXPECT_EQ(r.try_claim(
                  "s", 2, t1, t1, [] {}, [&] { ++wakes; }),
              claim::waiting);
    EXPECT_EQ(stops, 1);
    r.release("s", 1);
    EXPECT_EQ(wakes, 0);  // a batch is still on its way
    r.batch_done("s", 9, true, 40, 5);
    EXPECT_EQ(wakes, 2);
    EXPECT_EQ(r.try_claim(
                  "s", 2, t1, t1, [] {}, [] {}),
              claim::claimed);
    EXPECT_EQ(r.last_durable("s"), 9u);
    EXPECT_EQ(r.state("s").objects, 40u);
    EXPECT_EQ(r.state("s").digest, 5u);
    r.batch_committed("s");
    r.batch_done("s", 12, false);  // failed: not stored
    EXPECT_EQ(r.last_durable("s"), 9u);
    r.release("s", 1);  // not the holder: nothing happens
    EXPECT_EQ(r.try_claim(
                  "s", 3, t1, t1, [] {}, [] {}),
              claim::waiting);
    EXPECT_EQ(r.last_durable("unknown"), 0u);
}

// Ownership: a new stream never stops a live holder; a token other than the owner's is fenced;
// a new stream that took a free id fences the stream that owned it before.
TEST(SenderRegistry, OnlyTheOwnerResumesAndANewStreamNeverTakesALiveId) {
    daemon::sender_registry r;
    const auto owner = daemon::fence_of("owner"), other = daemon::fence_of("other");
    int stops = 0;
    EXPECT_EQ(r.try_claim(
                  "s", 1, std::nullopt, owner, [&] { ++stops; }, [] {}),
              claim::claimed);
    EXPECT_EQ(r.try_claim(
                  "s", 2, std::nullopt, other, [] {}, [] {}),
              claim::waiting);
    EXPECT_EQ(stops, 0);  // the live owner is not stopped for a new stream
    EXPECT_TRUE(r.held("s"));
    EXPECT_EQ(r.try_claim(
                  "s", 3, other, other, [] {}, [] {}),
              claim::fenced);
    r.release("s", 1);
    EXPECT_FALSE(r.held("s"));
    EXPECT_EQ(r.try_claim(
                  "s", 4, std::nullopt, other, [] {}, [] {}),
              claim::claimed);
    r.release("s", 4);
    EXPECT_EQ(r.try_claim(
                  "s", 5, owner, owner, [] {}, [] {}),
              claim::fenced);  // the id changed hands while its first owner was away
    EXPECT_EQ(r.try_claim(
                  "s", 6, other, other, [] {}, [] {}),
              claim::claimed);
}

// The fence comes back from the journal: after a restart only the stream that wrote the
// newest block resumes; an id whose blocks have no record takes any token.
TEST(SenderRegistry, TheFenceIsRememberedFromTheNewestRecord) {
    daemon::sender_registry r;
    journal_stream_record a, b;
    a.fence = daemon::fence_of("a");
    b.fence = daemon::fence_of("b");
    b.objects = 30;
    r.remember("s", 5, &a);
    r.remember("s", 9, &b);
    r.remember("s", 7, &a);  // older than the newest: ignored
    r.remember("old", 3);
    EXPECT_EQ(r.state("s").objects, 30u);
    const auto none = daemon::fence_of("new");
    EXPECT_EQ(r.try_claim(
                  "s", 1, daemon::fence_of("a"), none, [] {}, [] {}),
              claim::fenced);
    EXPECT_EQ(r.try_claim(
                  "s", 1, daemon::fence_of("b"), none, [] {}, [] {}),
              claim::claimed);
    EXPECT_EQ(r.try_claim(
                  "old", 2, daemon::fence_of("x"), none, [] {}, [] {}),
              claim::claimed);
}

}  // namespace
}  // namespace objwire::test
