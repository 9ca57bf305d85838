// The journal (daemon/store/journal.hpp) without sockets: appends and offsets, the three fsync
// policies counted through an injected sync function, group commit, sync failure, rotation,
// retention by size and age, and the offline reader.
#include <gtest/gtest.h>

#include <latch>
#include <mutex>

#include "journal_support.hpp"
#include "tests/support/wait_until.hpp"

namespace objwire::test {
namespace {

using daemon::fsync_policy;

class Journal : public journal_dir {
  protected:
    // fsync = interval with an interval that never comes during a test, after the first sync
    // of the idle journal (due at once) made one append durable.
    std::unique_ptr<daemon::journal> open_idle_interval(daemon::journal_options o) {
        o.fsync_interval = std::chrono::hours(1);
        auto j = open(o);
        durable_flag first;
        append(*j, events(0, 1), first.handler());
        EXPECT_FALSE(first.wait());
        return j;
    }
};

TEST_F(Journal, AppendsAreNumberedAndReadBackInOrder) {
    auto j = open(options());
    EXPECT_EQ(j->next_offset(), 0u);
    EXPECT_EQ(append(*j, events(0, 10)), 10u);
    EXPECT_EQ(append(*j, events(10, 1)), 11u);
    EXPECT_EQ(append(*j, events(11, 100)), 111u);
    EXPECT_EQ(j->next_offset(), 111u);
    j.reset();
    EXPECT_EQ(read_all(dir_), events(0, 111));
    // From any offset: inside a block, at a block boundary, at the end, past the end.
    EXPECT_EQ(read_all(dir_, 5), events(5, 106));
    EXPECT_EQ(read_all(dir_, 10), events(10, 101));
    EXPECT_EQ(read_all(dir_, 110), events(110, 1));
    EXPECT_TRUE(read_all(dir_, 111).empty());
    EXPECT_TRUE(read_all(dir_, 5000).empty());
}

TEST_F(Journal, ReaderReportsEachMessagesBlock) {
    auto j = open(options());
    journal_block_writer w("sender-a");
    for (const auto& m : events(0, 3))
        ASSERT_FALSE(w.add(m));
    auto b = w.finish(4, 6, 1234);
    std::error_code ec;
    j->append(
        b, [](std::error_code) {}, ec);
    ASSERT_FALSE(ec);
    j.reset();
    daemon::journal_reader r(dir_);
    message m;
    ASSERT_TRUE(r.next(m));
    EXPECT_EQ(r.sender_id(), "sender-a");
    EXPECT_EQ(r.block().first_sequence, 4u);
    EXPECT_EQ(r.block().last_sequence, 6u);
    EXPECT_EQ(r.block().time_ms, 1234u);
    EXPECT_EQ(r.block().message_count, 3u);
}

TEST_F(Journal, ReopeningContinuesTheOffsets) {
    {
        auto j = open(options());
        append(*j, events(0, 7));
    }
    {
        auto j = open(options());
        EXPECT_EQ(j->next_offset(), 7u);
        EXPECT_EQ(j->recovery().cut_bytes, 0u);
        EXPECT_EQ(j->recovery().blocks, 1u);
        append(*j, events(7, 3));
    }
    EXPECT_EQ(read_all(dir_), events(0, 10));
}

TEST_F(Journal, EmptyDirectoryReadsAsEmpty) {
    EXPECT_TRUE(read_all(dir_).empty());
    auto j = open(options());
    j.reset();
    EXPECT_TRUE(read_all(dir_).empty());
    EXPECT_TRUE(std::filesystem::exists(dir_ / "journal-00000000000000000000.owj"));
}

// ---- fsync policies -----------------------------------------------------------------------

TEST_F(Journal, NeverIsDurableAtOnceAndNeverSyncs) {
    auto j = open(options(fsync_policy::never));
    for (int i = 0; i < 20; ++i) {
        bool called = false;
        append(*j, events(i, 1), [&](std::error_code ec) {
            EXPECT_FALSE(ec);
            called = true;
        });
        EXPECT_TRUE(called) << "before append returned";
    }
    EXPECT_EQ(j->durable_offset(), 20u);
    j->close();
    EXPECT_EQ(sync_calls_.load(), 0);
    EXPECT_EQ(j->syncs(), 0u);
}

TEST_F(Journal, AlwaysSyncsBeforeEachAppendIsDurable) {
    auto j = open(options(fsync_policy::always));
    const int base = sync_calls_.load();
    for (int i = 0; i < 10; ++i) {
        durable_flag d;
        append(*j, events(i, 1), d.handler());
        EXPECT_FALSE(d.wait());
        EXPECT_EQ(sync_calls_.load(), base + i + 1);
        EXPECT_GE(j->durable_offset(), static_cast<std::uint64_t>(i + 1));
    }
    j->close();
    EXPECT_EQ(sync_calls_.load(), base + 10);  // nothing left to sync at close
}

// Appends that arrive while a sync runs share the next one.
TEST_F(Journal, AlwaysGroupsConcurrentAppendsIntoOneSync) {
    auto o = options(fsync_policy::always);
    std::latch entered(1);
    std::latch release(1);
    std::atomic<int> calls{0};
    o.sync = [&](int) {
        if (calls++ == 0) {
            entered.count_down();
            release.wait();
        }
        return 0;
    };
    auto j = open(o);
    durable_flag first;
    append(*j, events(0, 1), first.handler());
    entered.wait();  // the sync thread is inside the first sync
    std::vector<std::unique_ptr<durable_flag>> later;
    for (int i = 1; i <= 5; ++i) {
        later.push_back(std::make_unique<durable_flag>());
        append(*j, events(i, 1), later.back()->handler());
    }
    EXPECT_FALSE(first.ready());
    release.count_down();
    EXPECT_FALSE(first.wait());
    for (auto& d : later)
        EXPECT_FALSE(d->wait());
    EXPECT_EQ(calls.load(), 2);  // one for the first append, one for the five behind it
    EXPECT_EQ(j->syncs(), 2u);
}

TEST_F(Journal, IntervalWaitsForTheNextSync) {
    auto o = options(fsync_policy::interval);
    o.fsync_interval = std::chrono::hours(1);  // never due during the test: syncs on request
    auto j = open(o);
    // The first sync of an idle journal is due at once; let it happen on the first append.
    durable_flag first;
    append(*j, events(0, 1), first.handler());
    EXPECT_FALSE(first.wait());
    const int base = sync_calls_.load();
    std::vector<std::unique_ptr<durable_flag>> flags;
    for (int i = 1; i <= 50; ++i) {
        flags.push_back(std::make_unique<durable_flag>());
        append(*j, events(i, 1), flags.back()->handler());
    }
    for (auto& d : flags)
        EXPECT_FALSE(d->ready());
    EXPECT_EQ(j->durable_offset(), 1u);
    EXPECT_EQ(sync_calls_.load(), base);
    ASSERT_FALSE(j->sync());
    EXPECT_EQ(sync_calls_.load(), base + 1);  // one sync for all fifty
    for (auto& d : flags)
        EXPECT_FALSE(d->wait());
    EXPECT_EQ(j->durable_offset(), 51u);
}

// A window of unacknowledged bytes moves once per sync: waiting for the interval alone would
// cap a sender at window / interval, so enough bytes waiting start a sync too.
TEST_F(Journal, IntervalSyncsOnceFsyncBytesAreWaiting) {
    auto o = options(fsync_policy::interval);  // never due: only the bytes can start a sync
    o.fsync_bytes = make_block(events(0, 1)).size() * 5;
    auto j = open_idle_interval(o);
    const int base = sync_calls_.load();
    std::vector<std::unique_ptr<durable_flag>> flags;
    for (int i = 1; i <= 4; ++i) {
        flags.push_back(std::make_unique<durable_flag>());
        append(*j, events(i, 1), flags.back()->handler());
    }
    EXPECT_EQ(sync_calls_.load(), base);
    EXPECT_FALSE(flags.front()->ready());
    flags.push_back(std::make_unique<durable_flag>());
    append(*j, events(5, 1), flags.back()->handler());  // the fifth block's bytes reach it
    for (auto& d : flags)
        EXPECT_FALSE(d->wait());
    EXPECT_EQ(sync_calls_.load(), base + 1);
    EXPECT_EQ(j->durable_offset(), 6u);
}

TEST_F(Journal, RequestSyncMakesAppendsDurableWithoutWaitingForThem) {
    auto j = open_idle_interval(options(fsync_policy::interval));
    durable_flag second;
    append(*j, events(1, 1), second.handler());
    EXPECT_FALSE(second.ready());
    j->request_sync();  // returns at once; the sync thread serves it
    EXPECT_FALSE(second.wait());
    EXPECT_EQ(j->durable_offset(), 2u);
}

TEST_F(Journal, IntervalSyncsWhatIsLeftAtClose) {
    auto j = open_idle_interval(options(fsync_policy::interval));
    const int base = sync_calls_.load();
    durable_flag second;
    append(*j, events(1, 1), second.handler());
    j->close();
    EXPECT_FALSE(second.wait());
    EXPECT_EQ(sync_calls_.load(), base + 1);
    std::error_code ec;
    auto block = make_block(events(2, 1));
    j->append(
        block, [](std::error_code) {}, ec);
    EXPECT_EQ(ec, std::errc::operation_canceled);
}

// The named cursors ride on the journal's syncs: a rider_written() is run by the next sync
// (within the interval, with no append at all), once per sync however often it was called;
// under policy never no sync comes, and the caller is told to store it itself.
TEST_F(Journal, ASyncRiderRunsWithTheNextSync) {
    auto o = options(daemon::fsync_policy::interval);
    o.fsync_interval = std::chrono::milliseconds(20);
    auto j = open(o);
    std::atomic<int> rides{0};
    EXPECT_FALSE(j->rider_written()) << "no rider yet";
    j->set_sync_rider([&] { ++rides; });
    for (int i = 0; i < 100; ++i)
        ASSERT_TRUE(j->rider_written());
    ASSERT_TRUE(test::wait_until([&] { return rides.load() >= 1; }));
    EXPECT_GE(sync_calls_.load(), 1);
    const int after = rides.load();
    EXPECT_LE(after, sync_calls_.load()) << "one ride per sync at most, not one per call";
    const auto syncs = j->syncs();
    ASSERT_TRUE(j->rider_written());
    ASSERT_TRUE(test::wait_until([&] { return rides.load() > after; }));
    EXPECT_GT(j->syncs(), syncs);
    j->close();
    EXPECT_FALSE(j->rider_written()) << "a closed journal syncs nothing more";

    std::filesystem::remove_all(dir_);
    auto never = open(options(daemon::fsync_policy::never));
    never->set_sync_rider([&] { ++rides; });
    EXPECT_FALSE(never->rider_written());
}

TEST_F(Journal, AFailedSyncFailsItsAppendsAndEveryLaterOne) {
    auto o = options(fsync_policy::always);
    o.sync = [](int) {
        errno = EIO;
        return -1;
    };
    auto j = open(o);
    durable_flag d;
    append(*j, events(0, 1), d.handler());
    EXPECT_EQ(d.wait(), std::errc::io_error);
    std::error_code ec;
    auto block = make_block(events(1, 1));
    j->append(
        block, [](std::error_code) { ADD_FAILURE() << "must not be called"; }, ec);
    EXPECT_EQ(ec, std::errc::io_error);
    EXPECT_EQ(j->sync(), std::errc::io_error);
}

TEST_F(Journal, EmptyBlocksAreRefused) {
    auto j = open(options());
    journal_block_writer w;
    auto b = w.finish(0, 0, 0);
    std::error_code ec;
    j->append(
        b, [](std::error_code) {}, ec);
    EXPECT_EQ(ec, journal_errc::empty_block);
    EXPECT_EQ(j->next_offset(), 0u);
}

// ---- segments ------------------------------------------------------------------------------

TEST_F(Journal, RotatesBeforeASegmentWouldPassItsSize) {
    auto o = options();
    const auto block_size = make_block(events(0, 4)).size();
    o.segment_bytes = 3 * block_size + block_size / 2;  // three blocks fit, the fourth does not
    {
        auto j = open(o);
        for (int b = 0; b < 10; ++b)
            append(*j, events(b * 4, 4));
        const auto segs = j->segments();
        ASSERT_EQ(segs.size(), 4u);  // 3 + 3 + 3 + 1 blocks
        for (std::size_t i = 0; i < segs.size(); ++i) {
            EXPECT_EQ(segs[i].first_offset, i * 12);
            EXPECT_EQ(segs[i].path.filename().string(), daemon::segment_file_name(i * 12));
            EXPECT_LE(segs[i].bytes, o.segment_bytes);
        }
        EXPECT_EQ(segs.back().bytes, make_block(events(36, 4)).size());
    }
    EXPECT_EQ(daemon::segment_file_name(12), "journal-00000000000000000012.owj");
    EXPECT_EQ(read_all(dir_), events(0, 40));
    EXPECT_EQ(read_all(dir_, 13), events(13, 27));  // starts in the second segment
    // Reopened, the last segment takes the next blocks.
    auto j = open(o);
    EXPECT_EQ(j->next_offset(), 40u);
    append(*j, events(40, 4));
    EXPECT_EQ(j->segments().size(), 4u);
    j.reset();
    EXPECT_EQ(read_all(dir_), events(0, 44));
}

TEST_F(Journal, ABlockLargerThanASegmentGetsOneOfItsOwn) {
    auto o = options();
    o.segment_bytes = 64;
    auto j = open(o);
    append(*j, events(0, 10));
    append(*j, events(10, 10));
    append(*j, events(20, 10));
    EXPECT_EQ(j->segments().size(), 3u);
    j.reset();
    EXPECT_EQ(read_all(dir_), events(0, 30));
}

TEST_F(Journal, AlwaysSyncsARotatedSegmentBeforeItsBlocksCount) {
    auto o = options(fsync_policy::always);
    o.segment_bytes = 64;  // every block starts a new segment
    auto j = open(o);
    durable_flag a;
    append(*j, events(0, 1), a.handler());
    EXPECT_FALSE(a.wait());
    const int base = sync_calls_.load();
    durable_flag b;
    append(*j, events(1, 1), b.handler());  // rotates: the old segment and the new one
    EXPECT_FALSE(b.wait());
    EXPECT_EQ(sync_calls_.load(), base + 2);
}

TEST_F(Journal, RetentionBySizeDeletesTheOldestWholeSegments) {
    auto o = options();
    const auto block_size = make_block(events(0, 4)).size();
    o.segment_bytes = 2 * block_size + block_size / 2;  // two blocks a segment
    o.retention_bytes = 5 * block_size;
    auto j = open(o);
    for (int b = 0; b < 10; ++b)
        append(*j, events(b * 4, 4));
    j->enforce_retention();  // the sync thread may have done part of it already
    const auto segs = j->segments();
    std::uint64_t total = 0;
    for (const auto& s : segs)
        total += s.bytes;
    EXPECT_LE(total, o.retention_bytes);
    ASSERT_EQ(segs.size(), 2u);  // 4 blocks of the 10 left, in whole segments
    EXPECT_EQ(segs.front().first_offset, 24u);
    std::error_code ec;
    EXPECT_EQ(daemon::list_segments(dir_, ec).size(), 2u);
    j.reset();
    daemon::journal_reader r(dir_);
    message m;
    ASSERT_TRUE(r.next(m));
    EXPECT_EQ(r.first_offset(), 24u);
    EXPECT_EQ(r.offset(), 24u);
    EXPECT_EQ(m, event(24));
    EXPECT_EQ(read_all(dir_, 24), events(24, 16));
}

// The disk figures the metrics show are kept by appends, rotation, retention and recovery:
// they equal the files' sizes without reading the directory.
std::uint64_t bytes_in_files(const std::filesystem::path& dir) {
    std::error_code ec;
    std::uint64_t total = 0;
    for (const auto& s : daemon::list_segments(dir, ec))
        total += std::filesystem::file_size(s.path);
    return total;
}

TEST_F(Journal, DiskStatsFollowTheSegmentFilesThroughRetentionAndReopening) {
    auto o = options();
    const auto block_size = make_block(events(0, 4)).size();
    o.segment_bytes = 2 * block_size + block_size / 2;  // two blocks a segment
    o.retention_bytes = 5 * block_size;
    auto j = open(o);
    auto d = j->disk_stats();
    EXPECT_EQ(d.bytes, 0u);
    EXPECT_EQ(d.segments, 1u);  // the open one, empty
    EXPECT_EQ(d.next_offset, 0u);
    std::uint64_t written = 0;
    for (int b = 0; b < 10; ++b) {
        written += make_block(events(b * 4, 4)).size();
        append(*j, events(b * 4, 4));
    }
    j->enforce_retention();
    d = j->disk_stats();
    const auto left = bytes_in_files(dir_);
    EXPECT_EQ(d.bytes, left);
    EXPECT_EQ(d.segments, 2u);  // two segments of two blocks left
    EXPECT_EQ(d.first_offset, 24u);
    EXPECT_EQ(d.next_offset, 40u);
    EXPECT_EQ(d.durable_offset, 40u);
    // Three segments of two blocks went, whether the sync thread or the call deleted them.
    EXPECT_EQ(d.retention_segments, 3u);
    EXPECT_EQ(d.retention_bytes + d.bytes, written);
    j.reset();
    // After a restart the figures come from the files, not from what was written since.
    o.retention_bytes = 0;
    j = open(o);
    d = j->disk_stats();
    EXPECT_EQ(d.bytes, left);
    EXPECT_EQ(d.segments, 2u);
    EXPECT_EQ(d.first_offset, 24u);
    EXPECT_EQ(d.next_offset, 40u);
    EXPECT_EQ(d.retention_segments, 0u);  // counted since this start
}

TEST_F(Journal, RetentionNeverDeletesTheOpenSegment) {
    auto o = options();
    o.retention_bytes = 1;
    auto j = open(o);
    append(*j, events(0, 10));
    EXPECT_EQ(j->enforce_retention(), 0u);
    EXPECT_EQ(j->segments().size(), 1u);
}

TEST_F(Journal, RetentionByAgeDeletesClosedSegmentsOlderThanIt) {
    auto o = options();
    o.segment_bytes = 64;  // a segment per block
    o.retention_age = std::chrono::hours(1);
    auto now = std::chrono::system_clock::now();
    std::mutex clock_mutex;
    o.clock = [&] {
        std::lock_guard lock(clock_mutex);
        return now;
    };
    auto j = open(o);
    for (int b = 0; b < 4; ++b)
        append(*j, events(b, 1));
    EXPECT_EQ(j->enforce_retention(), 0u);  // all written just now
    EXPECT_EQ(j->segments().size(), 4u);
    {
        std::lock_guard lock(clock_mutex);
        now += std::chrono::hours(2);
    }
    // The sync thread also runs retention after each new segment: it may get there first.
    EXPECT_LE(j->enforce_retention(), 3u);
    ASSERT_EQ(j->segments().size(), 1u);
    EXPECT_EQ(j->segments().front().first_offset, 3u);
}

// A bad block in a closed segment costs its own messages: the reader says which and where,
// and reads on at the next intact block.
TEST_F(Journal, ReaderSkipsABadBlockInAClosedSegmentAndSaysWhere) {
    auto o = options();
    const auto block_size = make_block(events(0, 4)).size();
    o.segment_bytes = 3 * block_size;
    {
        auto j = open(o);
        for (int b = 0; b < 6; ++b)
            append(*j, events(b * 4, 4));
    }
    const auto first = dir_ / daemon::segment_file_name(0);
    auto bytes = read_bytes(first);
    bytes[block_size + 60] ^= 0x10;  // inside the second block's payload
    write_bytes(first, bytes);
    daemon::journal_reader r(dir_);
    std::vector<message> got;
    message m;
    while (r.next(m))
        got.push_back(m);
    auto expected = events(0, 4);
    for (auto& e : events(8, 16))
        expected.push_back(e);
    EXPECT_EQ(got, expected);
    EXPECT_FALSE(r.error()) << r.error_detail();
    ASSERT_EQ(r.gaps().size(), 1u);
    EXPECT_EQ(r.gaps()[0].lost.first, 4u);
    EXPECT_EQ(r.gaps()[0].lost.end, 8u);
    EXPECT_EQ(r.gaps()[0].where, "journal-00000000000000000000.owj at position " +
                                     std::to_string(block_size) + ": block checksum mismatch");
}

TEST_F(Journal, ReaderFindsAMissingSegment) {
    auto o = options();
    o.segment_bytes = 64;
    {
        auto j = open(o);
        for (int b = 0; b < 3; ++b)
            append(*j, events(b * 2, 2));
    }
    std::filesystem::remove(dir_ / daemon::segment_file_name(2));
    daemon::journal_reader r(dir_);
    message m;
    int n = 0;
    while (r.next(m))
        ++n;
    EXPECT_EQ(n, 4);
    EXPECT_FALSE(r.error());
    ASSERT_EQ(r.gaps().size(), 1u);
    EXPECT_EQ(r.gaps()[0].lost.first, 2u);
    EXPECT_EQ(r.gaps()[0].lost.end, 4u);
}

TEST(journal_segments, names_parse_back) {
    EXPECT_EQ(daemon::parse_segment_file_name("journal-00000000000000000042.owj"), 42u);
    EXPECT_EQ(daemon::parse_segment_file_name(daemon::segment_file_name(UINT64_MAX)), UINT64_MAX);
    EXPECT_FALSE(daemon::parse_segment_file_name("journal-42.owj"));
    EXPECT_FALSE(daemon::parse_segment_file_name("journal-0000000000000000004x.owj"));
    EXPECT_FALSE(daemon::parse_segment_file_name("journal-00000000000000000042.owj.corrupt-7"));
    EXPECT_FALSE(daemon::parse_segment_file_name("journal-99999999999999999999.owj"));
}

TEST(journal_policy, names) {
    EXPECT_EQ(daemon::parse_fsync_policy("always"), fsync_policy::always);
    EXPECT_EQ(daemon::parse_fsync_policy("interval"), fsync_policy::interval);
    EXPECT_EQ(daemon::parse_fsync_policy("never"), fsync_policy::never);
    EXPECT_FALSE(daemon::parse_fsync_policy("sometimes"));
    EXPECT_EQ(daemon::to_string(fsync_policy::interval), "interval");
}

}  // namespace
}  // namespace objwire::test
