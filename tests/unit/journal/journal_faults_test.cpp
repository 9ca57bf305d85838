// What the journal promises for each fault (docs/JOURNAL.md 4): a second writer is refused;
// recovery syncs what it keeps before the journal is used; a damaged block in the middle of
// a segment, open or closed, costs that block's offsets only and no offset is given out again;
// a missing segment is reported at start; a cut inside synced data refuses to open unless a
// repair is asked for, which keeps a copy of what it cuts.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <fstream>
#include <sstream>

#include "daemon/store/data_dir_lock.hpp"
#include "daemon/store/journal_check.hpp"
#include "daemon/store/journal_checkpoint.hpp"
#include "daemon/store/journal_cursor.hpp"
#include "journal_support.hpp"

namespace objwire::test {
namespace {

using daemon::fsync_policy;

class JournalFaults : public journal_dir {
  protected:
    void SetUp() override {
        journal_dir::SetUp();
        auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(log_);
        spdlog::set_default_logger(std::make_shared<spdlog::logger>("test", sink));
    }
    void TearDown() override {
        spdlog::set_default_logger(std::make_shared<spdlog::logger>("null"));
        journal_dir::TearDown();
    }

    // Three blocks of 5, 6 and 7 messages, each in its own segment when `split`.
    void write_three(fsync_policy policy, bool split) {
        auto o = options(policy);
        if (split) o.segment_bytes = 64;
        auto j = open(o);
        append(*j, events(0, 5));
        append(*j, events(5, 6));
        append(*j, events(11, 7));
    }
    std::filesystem::path segment(std::uint64_t first) const {
        return dir_ / daemon::segment_file_name(first);
    }
    void flip(const std::filesystem::path& file, std::size_t at) {
        auto bytes = read_bytes(file);
        bytes.at(at) ^= 0x04;
        write_bytes(file, bytes);
    }

    struct read_result {
        std::vector<message> messages;
        std::vector<std::uint64_t> offsets;
        std::vector<daemon::offset_gap> gaps;
        std::error_code error;
    };
    read_result read_with_gaps() const {
        daemon::journal_reader r(dir_);
        read_result out;
        message m;
        while (r.next(m)) {
            out.messages.push_back(m);
            out.offsets.push_back(r.offset());
        }
        for (const auto& g : r.gaps())
            out.gaps.push_back(g.lost);
        out.error = r.error();
        return out;
    }
    // The journal's contents are events 0..4 and 11..17: the middle block is lost.
    void expect_middle_block_lost() {
        const auto r = read_with_gaps();
        EXPECT_FALSE(r.error);
        auto expected = events(0, 5);
        for (auto& m : events(11, 7))
            expected.push_back(m);
        EXPECT_EQ(r.messages, expected);
        ASSERT_EQ(r.gaps.size(), 1u);
        EXPECT_EQ(r.gaps[0].first, 5u);
        EXPECT_EQ(r.gaps[0].end, 11u);
        ASSERT_EQ(r.offsets.size(), 12u);
        EXPECT_EQ(r.offsets[5], 11u);  // offsets around the gap keep their numbers
    }

    std::ostringstream log_;
};

TEST_F(JournalFaults, ASecondWriterIsRefusedNamingTheDirectoryAndThePid) {
    auto first = open(options());
    append(*first, events(0, 3));
    std::error_code ec;
    auto second = daemon::journal::open(options(), ec);
    EXPECT_FALSE(second);
    EXPECT_EQ(ec, daemon::journal_open_errc::locked);
    EXPECT_NE(
        log_.str().find("the data directory " + dir_.string() +
                        " is in use by another objwired (pid " + std::to_string(::getpid()) + ")"),
        std::string::npos)
        << log_.str();
    // The first goes on; a reader reads while it holds the lock.
    append(*first, events(3, 2));
    EXPECT_EQ(read_all(dir_), events(0, 5));
    first.reset();
    EXPECT_TRUE(open(options()));  // released with the journal
}

TEST_F(JournalFaults, TheLockIsReleasedByTheKernelWhenItsHolderDies) {
    std::filesystem::create_directories(dir_);
    const pid_t child = ::fork();
    if (child == 0) {
        std::error_code ec;
        std::string why;
        auto lock = daemon::data_dir_lock::acquire(dir_, ec, why);
        ::_exit(ec ? 1 : 0);  // exits holding it: no destructor runs
    }
    int status = 0;
    ::waitpid(child, &status, 0);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    std::error_code ec;
    std::string why;
    auto lock = daemon::data_dir_lock::acquire(dir_, ec, why);
    EXPECT_FALSE(ec) << why;
    EXPECT_TRUE(lock.held());
}

// Data a killed daemon wrote but never synced is synced by recovery - every segment it keeps
// and the directory - before open() returns, so before any resume point is taken from it.
TEST_F(JournalFaults, RecoverySyncsWhatItKeepsBeforeOpenReturns) {
    write_three(fsync_policy::never, true);  // nothing synced: three segments in page cache
    auto o = options(fsync_policy::interval);
    std::vector<ino_t> synced;
    o.sync = [&](int fd) {
        struct stat st {};
        ::fstat(fd, &st);
        synced.push_back(st.st_ino);
        return 0;
    };
    o.fsync_interval = std::chrono::hours(1);
    auto j = open(o);
    const auto at_open = synced;
    EXPECT_EQ(j->recovery().files_synced, 3u);
    for (std::uint64_t first : {0u, 5u, 11u}) {
        struct stat st {};
        ASSERT_EQ(::stat(segment(first).c_str(), &st), 0);
        EXPECT_NE(std::find(at_open.begin(), at_open.end(), st.st_ino), at_open.end())
            << "segment " << first << " not synced by recovery";
    }
    // The checkpoint now says all 18 were synced.
    bool damaged = false;
    const auto c = daemon::read_checkpoint(dir_, damaged);
    ASSERT_TRUE(c);
    EXPECT_EQ(c->end_offset, 18u);
}

TEST_F(JournalFaults, NeverSyncsNothingAtRecoveryEither) {
    write_three(fsync_policy::never, false);
    auto j = open(options(fsync_policy::never));
    EXPECT_EQ(sync_calls_.load(), 0);
}

// One flipped bit anywhere in the middle block of the open segment: that block is lost, the
// one after it stays in place with its offsets, and new blocks never reuse a lost offset.
TEST_F(JournalFaults, AFlippedByteInTheOpenSegmentCostsOneBlock) {
    write_three(fsync_policy::never, false);
    const auto whole = read_bytes(segment(0));
    const auto first_size = make_block(events(0, 5)).size();
    const auto second_size = make_block(events(5, 6)).size();
    for (std::size_t at = first_size; at < first_size + second_size; at += 7) {
        SCOPED_TRACE("byte " + std::to_string(at));
        write_bytes(segment(0), whole);
        std::filesystem::remove(dir_ / daemon::gap_log_file_name);
        flip(segment(0), at);
        auto j = open(options());
        ASSERT_TRUE(j);
        EXPECT_EQ(j->next_offset(), 18u);
        EXPECT_EQ(j->recovery().cut_bytes, 0u);
        ASSERT_EQ(j->recovery().new_gaps.size(), 1u);
        EXPECT_EQ(j->recovery().new_gaps[0].first, 5u);
        EXPECT_EQ(j->recovery().new_gaps[0].end, 11u);
        EXPECT_EQ(j->gap_stats().gaps, 1u);
        EXPECT_EQ(j->gap_stats().lost_offsets, 6u);
        j.reset();
        EXPECT_EQ(std::filesystem::file_size(segment(0)), whole.size());  // kept in place
        expect_middle_block_lost();
    }
    EXPECT_NE(log_.str().find("offsets 5 to 10 lost"), std::string::npos) << log_.str();
    // Recorded: the next start knows the gap (a warning, not a new error), and appends go on
    // at 18.
    auto j = open(options());
    EXPECT_TRUE(j->recovery().new_gaps.size() == 1);
    EXPECT_EQ(j->gap_stats().gaps, 1u);
    EXPECT_EQ(daemon::read_gap_log(dir_).size(), 1u);
    EXPECT_EQ(append(*j, events(18, 2)), 20u);
    j.reset();
    const auto r = read_with_gaps();
    ASSERT_EQ(r.offsets.size(), 14u);
    EXPECT_EQ(r.offsets.back(), 19u);
}

TEST_F(JournalFaults, AFlippedByteInAClosedSegmentIsFoundAtStartAndCostsOneBlock) {
    write_three(fsync_policy::never, true);
    flip(segment(5), 80);
    auto j = open(options());
    ASSERT_TRUE(j);
    EXPECT_EQ(j->next_offset(), 18u);
    ASSERT_EQ(j->recovery().new_gaps.size(), 1u);
    EXPECT_EQ(j->recovery().new_gaps[0].first, 5u);
    EXPECT_EQ(j->recovery().new_gaps[0].end, 11u);
    j.reset();
    expect_middle_block_lost();
}

// The cheap check walks to the last block from a window at the file's end, however large that
// block is: a segment whose last block is over the first window's MiB checks cheaply (no block
// counted: the full check did not run), a later next segment is a gap with nothing damaged,
// and a torn last block sends the segment to the full check.
TEST_F(JournalFaults, TheCheapCheckFindsALastBlockLargerThanItsWindow) {
    std::vector<std::uint8_t> file;
    std::uint64_t offset = 0;
    const auto add = [&](std::vector<std::uint8_t> block) {
        seal_journal_block(block, offset);
        offset += journal_block_message_count(block);
        file.insert(file.end(), block.begin(), block.end());
    };
    add(make_block(events(0, 5)));
    const message large{
        make_record(event_type(), {std::int64_t{5}, "host", std::string(2 << 20, 'x'), list{}}),
        {}};
    add(make_block({large}));
    ASSERT_GT(file.size(), std::size_t{2} << 20);
    std::filesystem::create_directories(dir_);
    write_bytes(segment(0), file);
    const daemon::segment_info seg{segment(0), 0, file.size()};

    daemon::segment_findings whole;
    const auto ec = daemon::check_closed_segment(seg, offset, false, whole);
    ASSERT_FALSE(ec) << ec.message();
    EXPECT_EQ(whole.blocks, 0u);
    EXPECT_TRUE(whole.gaps.empty());
    EXPECT_EQ(whole.damage, "");

    daemon::segment_findings missing;
    ASSERT_FALSE(daemon::check_closed_segment(seg, offset + 4, false, missing));
    EXPECT_EQ(missing.blocks, 0u);
    ASSERT_EQ(missing.gaps.size(), 1u);
    EXPECT_EQ(missing.gaps[0].first, offset);
    EXPECT_EQ(missing.gaps[0].end, offset + 4);
    EXPECT_EQ(missing.gaps[0].bytes, 0u);
    EXPECT_EQ(missing.damage,
              "the next segment begins at offset 10, this one ends at 6 (a "
              "segment file is missing)");

    file.pop_back();
    write_bytes(segment(0), file);
    daemon::segment_findings torn;
    ASSERT_FALSE(daemon::check_closed_segment({segment(0), 0, file.size()}, offset, false, torn));
    EXPECT_EQ(torn.blocks, 1u);  // the full check ran
    ASSERT_EQ(torn.gaps.size(), 1u);
    EXPECT_EQ(torn.gaps[0].first, 5u);
    EXPECT_EQ(torn.gaps[0].end, 6u);
    EXPECT_EQ(torn.damage, std::to_string(file.size() - make_block(events(0, 5)).size()) +
                               " bytes at position " +
                               std::to_string(make_block(events(0, 5)).size()) +
                               " are not whole blocks (short block payload)");
}

// Damage the cheap check does not see (a payload in the middle of a closed segment) is met by
// readers: the offline reader and the daemon's cursor both report the gap and go on.
TEST_F(JournalFaults, DamageInsideAClosedSegmentIsAGapForReaders) {
    {
        auto o = options();
        // Blocks 1-3 in one segment, the fourth in the next.
        o.segment_bytes = make_block(events(0, 5)).size() + make_block(events(5, 6)).size() +
                          make_block(events(11, 7)).size();
        auto j = open(o);
        append(*j, events(0, 5));
        append(*j, events(5, 6));
        append(*j, events(11, 7));
        append(*j, events(18, 1));  // in a segment of its own
    }
    ASSERT_TRUE(std::filesystem::exists(segment(18)));
    flip(segment(0), make_block(events(0, 5)).size() + 90);
    daemon::segment_findings cheap;
    ASSERT_FALSE(daemon::check_closed_segment(
        {segment(0), 0, std::filesystem::file_size(segment(0))}, 18, false, cheap));
    EXPECT_TRUE(cheap.gaps.empty());  // first and last blocks are intact
    daemon::segment_findings full;
    ASSERT_FALSE(daemon::check_closed_segment(
        {segment(0), 0, std::filesystem::file_size(segment(0))}, 18, true, full));
    ASSERT_EQ(full.gaps.size(), 1u);
    EXPECT_EQ(full.gaps[0].first, 5u);
    EXPECT_EQ(full.gaps[0].end, 11u);

    daemon::journal_cursor c(dir_, 0);
    journal_block_view view;
    std::span<const std::uint8_t> bytes;
    std::vector<std::uint64_t> firsts;
    std::vector<daemon::offset_gap> gaps;
    for (;;) {
        const auto st = c.next(19, view, bytes);
        if (st == daemon::journal_cursor::status::block) {
            firsts.push_back(view.header.first_offset);
        } else if (st == daemon::journal_cursor::status::gap) {
            gaps.push_back(c.gap());
        } else {
            EXPECT_EQ(st, daemon::journal_cursor::status::caught_up) << c.error_detail();
            break;
        }
    }
    EXPECT_EQ(firsts, (std::vector<std::uint64_t>{0, 11, 18}));
    ASSERT_EQ(gaps.size(), 1u);
    EXPECT_EQ(gaps[0].first, 5u);
    EXPECT_EQ(gaps[0].end, 11u);
}

TEST_F(JournalFaults, ADeletedMiddleSegmentIsReportedAtStart) {
    write_three(fsync_policy::never, true);
    std::filesystem::remove(segment(5));
    auto j = open(options());
    ASSERT_TRUE(j);
    ASSERT_EQ(j->recovery().new_gaps.size(), 1u);
    EXPECT_EQ(j->recovery().new_gaps[0].first, 5u);
    EXPECT_EQ(j->recovery().new_gaps[0].end, 11u);
    EXPECT_NE(log_.str().find("a segment file is missing"), std::string::npos) << log_.str();
    EXPECT_NE(log_.str().find("offsets 5 to 10 lost"), std::string::npos) << log_.str();
    j.reset();
    expect_middle_block_lost();
}

// A cut inside what the checkpoint says was synced is not a torn append: the journal does not
// open unless asked to repair; the repair keeps the cut bytes, records the lost offsets and
// numbers on after them.
TEST_F(JournalFaults, ACutInsideSyncedDataRefusesToOpenWithoutRepair) {
    write_three(fsync_policy::always, false);
    const auto whole = read_bytes(segment(0));
    const auto first_size = make_block(events(0, 5)).size();
    const std::size_t cut = first_size + 20;  // inside the second block
    write_bytes(segment(0), std::span<const std::uint8_t>(whole).first(cut));
    std::error_code ec;
    EXPECT_FALSE(daemon::journal::open(options(fsync_policy::always), ec));
    EXPECT_EQ(ec, daemon::journal_open_errc::synced_data_lost);
    EXPECT_NE(log_.str().find("synced data lost: offsets 5 to 17"), std::string::npos)
        << log_.str();
    EXPECT_EQ(std::filesystem::file_size(segment(0)), cut);  // nothing touched

    auto o = options(fsync_policy::always);
    o.repair = true;
    auto j = open(o);
    ASSERT_TRUE(j);
    EXPECT_TRUE(j->recovery().repaired);
    EXPECT_EQ(j->gap_stats().repairs, 1u);
    EXPECT_EQ(j->next_offset(), 18u);  // offsets up to 17 may have been read: never again
    ASSERT_FALSE(j->recovery().saved_to.empty());
    EXPECT_EQ(read_bytes(j->recovery().saved_to).size(), 20u);
    j.reset();
    // Accepted once: later starts open without repair, and go on at 18.
    j = open(options(fsync_policy::always));
    ASSERT_TRUE(j);
    EXPECT_EQ(append(*j, events(18, 2)), 20u);
    j.reset();
    const auto r = read_with_gaps();
    EXPECT_FALSE(r.error);
    ASSERT_EQ(r.offsets.size(), 7u);
    EXPECT_EQ(r.offsets[5], 18u);
    ASSERT_EQ(r.gaps.size(), 1u);
    EXPECT_EQ(r.gaps[0].first, 5u);
    EXPECT_EQ(r.gaps[0].end, 18u);
}

// Bytes past what was synced that do not form a block are a torn append: cut with a warning.
TEST_F(JournalFaults, ATornTailPastTheCheckpointIsOnlyAWarning) {
    write_three(fsync_policy::always, false);
    auto bytes = read_bytes(segment(0));
    const auto extra = make_block(events(18, 3));
    bytes.insert(bytes.end(), extra.begin(), extra.begin() + 30);
    write_bytes(segment(0), bytes);
    auto j = open(options(fsync_policy::always));
    ASSERT_TRUE(j);
    EXPECT_EQ(j->recovery().cut_bytes, 30u);
    EXPECT_FALSE(j->recovery().repaired);
    EXPECT_NE(log_.str().find("torn tail cut"), std::string::npos) << log_.str();
}

TEST_F(JournalFaults, ALostOpenSegmentRefusesToOpenWithoutRepair) {
    write_three(fsync_policy::always, true);
    std::filesystem::remove(segment(11));
    std::error_code ec;
    EXPECT_FALSE(daemon::journal::open(options(fsync_policy::always), ec));
    EXPECT_EQ(ec, daemon::journal_open_errc::synced_data_lost);
}

// What the daemon's cursor hands out walking the journal from 0 below `limit`, within a bound
// of calls: a cursor that opened the same segment again would never end.
struct cursor_walk {
    std::vector<std::uint64_t> firsts;
    std::vector<daemon::offset_gap> gaps;
    std::vector<bool> by_retention;
    bool ended = false;
};
cursor_walk walk_cursor(daemon::journal_cursor& c, std::uint64_t limit) {
    cursor_walk w;
    journal_block_view view;
    std::span<const std::uint8_t> bytes;
    for (int calls = 0; calls < 100 && !w.ended; ++calls) {
        const auto st = c.next(limit, view, bytes);
        if (st == daemon::journal_cursor::status::block) {
            w.firsts.push_back(view.header.first_offset);
        } else if (st == daemon::journal_cursor::status::gap) {
            w.gaps.push_back(c.gap());
            w.by_retention.push_back(c.gap_by_retention());
        } else {
            EXPECT_EQ(st, daemon::journal_cursor::status::caught_up) << c.error_detail();
            w.ended = true;
        }
    }
    return w;
}

// A closed segment with nothing intact in it - its only block damaged, zeroed, or cut to 0
// bytes - is one gap for the cursor, which goes on with the next segment.
TEST_F(JournalFaults, AWhollyDamagedSegmentIsOneGapForTheCursor) {
    for (int how = 0; how < 3; ++how) {
        std::filesystem::remove_all(dir_);
        write_three(fsync_policy::never, true);
        const auto middle = segment(5);
        const auto size = std::filesystem::file_size(middle);
        if (how == 0) flip(middle, size / 2);
        if (how == 1) write_bytes(middle, std::vector<std::uint8_t>(size, 0));
        if (how == 2) std::filesystem::resize_file(middle, 0);
        daemon::journal_cursor c(dir_, 0);
        const auto w = walk_cursor(c, 18);
        EXPECT_TRUE(w.ended) << "damage kind " << how;
        EXPECT_EQ(w.firsts, (std::vector<std::uint64_t>{0, 11})) << "damage kind " << how;
        ASSERT_EQ(w.gaps.size(), 1u) << "damage kind " << how;
        EXPECT_EQ(w.gaps[0].first, 5u);
        EXPECT_EQ(w.gaps[0].end, 11u);
        EXPECT_FALSE(w.by_retention[0]);
    }
}

// A closed segment renamed one offset up holds a block numbered below its name: whatever the
// name says, its offsets are a gap up to the next segment, and the cursor reads on there.
TEST_F(JournalFaults, ARenamedSegmentIsAGapForTheCursor) {
    write_three(fsync_policy::never, true);
    std::filesystem::rename(segment(5), segment(6));
    daemon::journal_cursor c(dir_, 0);
    const auto w = walk_cursor(c, 18);
    EXPECT_TRUE(w.ended);
    EXPECT_EQ(w.firsts, (std::vector<std::uint64_t>{0, 11}));
    ASSERT_EQ(w.gaps.size(), 2u);
    EXPECT_EQ(w.gaps[0].first, 5u);  // no segment starts at 5
    EXPECT_EQ(w.gaps[0].end, 6u);
    EXPECT_EQ(w.gaps[1].first, 6u);  // the renamed one holds nothing numbered from 6
    EXPECT_EQ(w.gaps[1].end, 11u);
}

// The last segment renamed: nothing after it goes on, and the error says why.
TEST_F(JournalFaults, ARenamedLastSegmentStopsTheCursorSayingWhy) {
    write_three(fsync_policy::never, true);
    std::filesystem::rename(segment(11), segment(12));
    daemon::journal_cursor c(dir_, 0);
    journal_block_view view;
    std::span<const std::uint8_t> bytes;
    auto st = daemon::journal_cursor::status::block;
    for (int calls = 0; calls < 100 && st != daemon::journal_cursor::status::error &&
                        st != daemon::journal_cursor::status::caught_up;
         ++calls)
        st = c.next(18, view, bytes);
    ASSERT_EQ(st, daemon::journal_cursor::status::error);
    EXPECT_EQ(c.error(), journal_errc::offset_gap);
    EXPECT_NE(c.error_detail().find(daemon::segment_file_name(12) + " at position 0"),
              std::string::npos)
        << c.error_detail();
}

// Retention that deletes a segment the cursor has not read yet is a gap, marked as retention's.
TEST_F(JournalFaults, RetentionAheadOfTheCursorIsAGap) {
    write_three(fsync_policy::never, true);
    daemon::journal_cursor c(dir_, 0);
    journal_block_view view;
    std::span<const std::uint8_t> bytes;
    ASSERT_EQ(c.next(18, view, bytes), daemon::journal_cursor::status::block);
    EXPECT_EQ(view.header.first_offset, 0u);
    std::filesystem::remove(segment(0));  // open: the cursor still reads it
    std::filesystem::remove(segment(5));
    const auto w = walk_cursor(c, 18);
    EXPECT_TRUE(w.ended);
    EXPECT_EQ(w.firsts, (std::vector<std::uint64_t>{11}));
    ASSERT_EQ(w.gaps.size(), 1u);
    EXPECT_EQ(w.gaps[0].first, 5u);
    EXPECT_EQ(w.gaps[0].end, 11u);
    EXPECT_TRUE(w.by_retention[0]);
    EXPECT_EQ(c.skipped_by_retention(), 6u);
}

// A gap log line whose end is near 2^64 would make the journal number on from there and wrap.
TEST_F(JournalFaults, AGapLogLinePastTheLargestOffsetRefusesToOpen) {
    write_three(fsync_policy::always, false);
    {
        std::ofstream out(dir_ / daemon::gap_log_file_name, std::ios::app);
        out << "gap 18 18446744073709551610 by hand\n";
    }
    std::error_code ec;
    auto j = daemon::journal::open(options(), ec);
    EXPECT_FALSE(j);
    EXPECT_EQ(ec, daemon::journal_open_errc::offset_out_of_range);
    EXPECT_NE(log_.str().find("journal.gaps line 1: end offset 18446744073709551610"),
              std::string::npos)
        << log_.str();
}

// The checkpoint deleted and the open segment cut: its copy still proves how far the journal
// was synced, so the cut is lost synced data, not a torn tail whose offsets could be reused.
TEST_F(JournalFaults, TheCheckpointCopyProvesTheEndWhenTheCheckpointIsLost) {
    write_three(fsync_policy::always, false);
    std::filesystem::remove(dir_ / daemon::checkpoint_file_name);
    std::filesystem::resize_file(segment(0), make_block(events(0, 5)).size() + 10);
    std::error_code ec;
    EXPECT_FALSE(daemon::journal::open(options(), ec));
    EXPECT_EQ(ec, daemon::journal_open_errc::synced_data_lost);
    auto o = options();
    o.repair = true;
    auto j = open(o);
    ASSERT_TRUE(j);
    EXPECT_EQ(j->durable_offset(), 18u);  // numbers on after the loss
}

// A reader gives back the cursor's buffer while its peer is slow (docs/PROTOCOL.md 1.2,
// "Memory"): keeping only the read-ahead, or nothing, the cursor reads on where it stopped and
// hands out the same blocks, byte for byte, as one that never gave anything back.
TEST_F(JournalFaults, ACursorThatGivesBackItsBufferReadsOnWhereItStopped) {
    std::uint64_t end = 0;
    {
        auto j = open(options());
        // Small blocks, a block larger than two 256 KiB read chunks, small ones again.
        for (int i = 0; i < 40; ++i)
            end = append(*j, events(end, 20));
        end = append(*j, events(end, 20000));
        for (int i = 0; i < 40; ++i)
            end = append(*j, events(end, 20));
    }
    const auto walk = [&](int release_every) {
        std::vector<std::vector<std::uint8_t>> blocks;
        std::size_t given_back = 0;
        daemon::journal_cursor c(dir_, 0);
        journal_block_view view;
        std::span<const std::uint8_t> bytes;
        while (c.next(end, view, bytes) == daemon::journal_cursor::status::block) {
            blocks.emplace_back(bytes.begin(), bytes.end());
            if (release_every == 0 || blocks.size() % static_cast<std::size_t>(release_every) != 0)
                continue;
            given_back +=
                c.release_buffer(blocks.size() % 2 ? daemon::journal_cursor::keep::nothing
                                                   : daemon::journal_cursor::keep::read_ahead);
        }
        EXPECT_FALSE(c.error()) << c.error_detail();
        EXPECT_EQ(c.next_offset(), end);
        return std::make_pair(blocks, given_back);
    };
    const auto [plain, none] = walk(0);
    ASSERT_EQ(plain.size(), 81u);
    EXPECT_GT(plain[40].size(), 512u * 1024) << "the large block is larger than two read chunks";
    for (int every : {1, 2, 3}) {
        const auto [released, given_back] = walk(every);
        EXPECT_EQ(released, plain) << "released every " << every << " blocks";
        EXPECT_GT(given_back, plain[40].size()) << "the large block's copy was given back";
    }
}

}  // namespace
}  // namespace objwire::test
