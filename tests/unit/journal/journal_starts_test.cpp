// Starts found through the start index (daemon/store/journal_starts.hpp) against a real
// journal: by time and by a sender's last N objects they give what a scan of every block
// gives, from the index kept by appends and from the one rebuilt at open, reading a bounded
// number of block headers whatever the journal's length; a journal_cursor begun at the place
// found serves the same blocks; retention drops what it deleted.
#include <gtest/gtest.h>

#include <deque>
#include <random>

#include "daemon/store/journal_cursor.hpp"
#include "daemon/store/journal_starts.hpp"
#include "journal_support.hpp"

namespace objwire::test {
namespace {

struct stored_block {
    std::uint64_t first;
    std::uint64_t count;
    std::uint64_t time_ms;
    std::string sender;
};

class JournalStarts : public journal_dir {
  protected:
    // Appends `blocks` blocks of 1-5 objects from 4 senders; the clock goes back now and then.
    void fill(daemon::journal& j, std::size_t blocks, std::uint32_t seed = 7) {
        std::mt19937 rng(seed);
        std::uint64_t t = 1'700'000'000'000 + stored_.size() * 10;
        for (std::size_t i = 0; i < blocks; ++i) {
            const auto n = static_cast<std::int64_t>(1 + rng() % 5);
            const std::string sender = "s" + std::to_string(rng() % 4);
            t = rng() % 50 == 0 ? t - 500 : t + 10;
            auto block = make_block(events(0, n), sender, 1, 1, t);
            std::error_code ec;
            const auto end = j.append(
                block, [](std::error_code) {}, ec);
            ASSERT_FALSE(ec) << ec.message();
            stored_.push_back(
                {end - static_cast<std::uint64_t>(n), static_cast<std::uint64_t>(n), t, sender});
        }
    }
    std::uint64_t end() const {
        return stored_.empty() ? 0 : stored_.back().first + stored_.back().count;
    }
    // What a scan of every block below `limit` answers.
    std::uint64_t scan_time(std::uint64_t since, std::uint64_t limit) const {
        for (const auto& b : stored_)
            if (b.first < limit && b.time_ms >= since) return b.first;
        return limit;
    }
    std::uint64_t scan_last(const std::string& sender, std::uint64_t n, std::uint64_t limit) const {
        std::deque<const stored_block*> newest;
        std::uint64_t held = 0;
        for (const auto& b : stored_) {
            if (b.first >= limit || b.sender != sender) continue;
            newest.push_back(&b);
            held += b.count;
            while (newest.size() > 1 && held - newest.front()->count >= n) {
                held -= newest.front()->count;
                newest.pop_front();
            }
        }
        if (newest.empty()) return limit;
        return newest.front()->first + (held > n ? held - n : 0);
    }
    void expect_index_answers_as_a_scan(const daemon::journal& j) {
        std::mt19937 rng(11);
        const auto t0 = stored_.front().time_ms;
        const auto t1 = stored_.back().time_ms + 100;
        for (int q = 0; q < 300; ++q) {
            const std::uint64_t limit = q % 3 == 0 ? end() : rng() % (end() + 1);
            daemon::journal_index_scan stats;
            const std::uint64_t since = t0 + rng() % (t1 - t0);
            const auto t = daemon::start_of_time(j, since, limit, stats);
            ASSERT_FALSE(t.error) << t.detail;
            EXPECT_EQ(t.offset, scan_time(since, limit)) << "since " << since << " limit " << limit;
            const std::string sender = "s" + std::to_string(rng() % 5);  // s4 stored nothing
            const std::uint64_t n = 1 + rng() % 300;
            const auto l = daemon::start_of_senders_last(j, sender, n, limit, stats);
            ASSERT_FALSE(l.error) << l.detail;
            EXPECT_EQ(l.offset, scan_last(sender, n, limit))
                << sender << " last " << n << " limit " << limit;
        }
    }
    std::vector<stored_block> stored_;
};

TEST_F(JournalStarts, ByTimeAndBySendersLastTheyAnswerAsAScanOfEveryBlock) {
    auto o = options();
    o.segment_bytes = 64 * 1024;  // many segments, spans closed at each one's end
    auto j = open(o);
    fill(*j, 3000);
    ASSERT_GE(j->segments().size(), 5u);
    expect_index_answers_as_a_scan(*j);  // the index appends kept
    j.reset();
    j = open(o);
    expect_index_answers_as_a_scan(*j);  // the index rebuilt at open
}

TEST_F(JournalStarts, AStartReadsABoundedNumberOfHeadersWhateverTheJournalsLength) {
    auto o = options();
    o.segment_bytes = 1 << 20;
    auto j = open(o);
    fill(*j, 40000);
    const auto bound = 2 * daemon::start_index::default_span_blocks;
    daemon::journal_index_scan by_time, by_sender;
    const auto t = daemon::start_of_time(*j, stored_[20000].time_ms + 1, end(), by_time);
    EXPECT_EQ(t.offset, scan_time(stored_[20000].time_ms + 1, end()));
    const auto l = daemon::start_of_senders_last(*j, "s1", 20000, end(), by_sender);
    EXPECT_EQ(l.offset, scan_last("s1", 20000, end()));
    // A scan would read 40,000 headers; a start reads at most two spans' worth.
    EXPECT_LE(by_time.blocks, bound);
    EXPECT_LE(by_sender.blocks, bound);
    EXPECT_LE(by_time.bytes_read + by_sender.bytes_read, 4u * (1u << 20));
}

TEST_F(JournalStarts, ACursorBegunAtThePlaceFoundServesTheSameBlocks) {
    auto o = options();
    o.segment_bytes = 64 * 1024;
    auto j = open(o);
    fill(*j, 2000);
    const std::uint64_t from = stored_[1234].first + 1;  // inside a block
    const auto found = daemon::start_at_offset(*j, from);
    ASSERT_TRUE(found.place);
    EXPECT_GT(found.place->position, 0u);  // not a segment's start: the blocks before unread
    const auto walk = [&](std::optional<daemon::block_place> place) {
        daemon::journal_cursor c(dir_, from, place);
        std::vector<std::uint64_t> firsts;
        journal_block_view v;
        std::span<const std::uint8_t> bytes;
        for (int i = 0; i < 10000; ++i) {
            const auto st = c.next(end(), v, bytes);
            if (st != daemon::journal_cursor::status::block) {
                EXPECT_EQ(st, daemon::journal_cursor::status::caught_up);
                break;
            }
            firsts.push_back(v.header.first_offset);
        }
        return firsts;
    };
    const auto with_place = walk(found.place);
    EXPECT_EQ(with_place, walk(std::nullopt));
    ASSERT_FALSE(with_place.empty());
    EXPECT_EQ(with_place.front(), stored_[1234].first);
}

TEST_F(JournalStarts, RetentionTakesTheDeletedSegmentsOutOfTheIndex) {
    auto o = options();
    o.segment_bytes = 64 * 1024;
    o.retention_bytes = 256 * 1024;
    auto j = open(o);
    fill(*j, 3000);
    j->enforce_retention();
    const auto first = j->segments().front().first_offset;
    ASSERT_GT(first, 0u);
    daemon::journal_index_scan stats;
    EXPECT_EQ(daemon::start_of_time(*j, 0, end(), stats).offset, first);
    const auto p = daemon::start_at_offset(*j, 0).place;
    ASSERT_TRUE(p);
    EXPECT_EQ(p->first_offset, first);
}

}  // namespace
}  // namespace objwire::test
