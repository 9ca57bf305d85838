// Recovery on open: a torn tail of every kind, at every byte of the last block, is cut and
// logged and the blocks before it survive; a bad block with intact ones after it costs only
// itself. The journal takes new blocks afterwards as if nothing happened.
#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <sstream>

#include "journal_support.hpp"

namespace objwire::test {
namespace {

class Recovery : public journal_dir {
  protected:
    void SetUp() override {
        journal_dir::SetUp();
        auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(log_);
        spdlog::set_default_logger(std::make_shared<spdlog::logger>("test", sink));
        // Three blocks: 5 + 6 + 7 messages.
        auto j = open(options());
        append(*j, events(0, 5));
        append(*j, events(5, 6));
        append(*j, events(11, 7));
        j.reset();
        segment_ = dir_ / daemon::segment_file_name(0);
        whole_ = read_bytes(segment_);
        last_block_at_ = whole_.size() - last_block_size();
    }
    void TearDown() override {
        spdlog::set_default_logger(std::make_shared<spdlog::logger>("null"));
        journal_dir::TearDown();
    }

    std::size_t last_block_size() const { return make_block(events(11, 7)).size(); }

    // Opens the journal on `bytes` as the only segment; returns what recovery found.
    daemon::journal_recovery recover(std::span<const std::uint8_t> bytes) {
        std::filesystem::remove_all(dir_);
        std::filesystem::create_directories(dir_);
        write_bytes(segment_, bytes);
        // Without the checkpoint files a journal holding data opens only when repairing: the
        // end its segments show is then taken, torn tails cut as ever.
        auto o = options();
        o.repair = true;
        auto j = open(o);
        if (!j) return {};
        return j->recovery();
    }

    // After a recovery that kept the first two blocks: they read back, and the journal goes on.
    void expect_two_blocks_kept_and_usable() {
        EXPECT_EQ(std::filesystem::file_size(segment_), last_block_at_);
        EXPECT_EQ(read_all(dir_), events(0, 11));
        auto j = open(options());
        EXPECT_EQ(j->next_offset(), 11u);
        EXPECT_EQ(j->recovery().cut_bytes, 0u);  // the second open finds nothing wrong
        append(*j, events(100, 3));
        j.reset();
        auto expected = events(0, 11);
        for (auto& m : events(100, 3))
            expected.push_back(m);
        EXPECT_EQ(read_all(dir_), expected);
    }

    std::ostringstream log_;
    std::filesystem::path segment_;
    std::vector<std::uint8_t> whole_;
    std::size_t last_block_at_ = 0;
};

TEST_F(Recovery, NothingToDoOnACleanJournal) {
    const auto r = recover(whole_);
    EXPECT_EQ(r.blocks, 3u);
    EXPECT_EQ(r.messages, 18u);
    EXPECT_EQ(r.cut_bytes, 0u);
    EXPECT_EQ(log_.str().find("cut"), std::string::npos) << log_.str();
}

// A torn append: the file ends at every byte of the last block (short header, short payload).
TEST_F(Recovery, ShortTailAtEveryByteIsCut) {
    for (std::size_t keep = last_block_at_; keep < whole_.size(); ++keep) {
        SCOPED_TRACE("file cut at " + std::to_string(keep));
        const auto r = recover(std::span<const std::uint8_t>(whole_).first(keep));
        EXPECT_EQ(r.blocks, 2u);
        EXPECT_EQ(r.messages, 11u);
        EXPECT_EQ(r.cut_bytes, keep - last_block_at_);
        if (r.cut_bytes > 0) {
            EXPECT_EQ(r.cut_at, last_block_at_);
        }
        if (keep == last_block_at_) {
            EXPECT_FALSE(r.reason);
        } else if (keep - last_block_at_ < journal_block_header_size) {
            EXPECT_EQ(r.reason, journal_errc::short_header);
        } else {
            EXPECT_EQ(r.reason, journal_errc::short_block);
        }
        EXPECT_TRUE(r.saved_to.empty());
        EXPECT_EQ(std::filesystem::file_size(segment_), last_block_at_);
        EXPECT_EQ(read_all(dir_), events(0, 11));
    }
    expect_two_blocks_kept_and_usable();
}

// A whole-length last block with any one byte wrong: cut. In the payload it is a torn write
// (the checksum fails and the block ends at the end of the file); in the header it can also
// read as something else, and then the cut bytes are kept aside.
TEST_F(Recovery, CorruptLastBlockAtEveryByteIsCut) {
    for (std::size_t i = last_block_at_; i < whole_.size(); ++i) {
        SCOPED_TRACE("byte " + std::to_string(i) + " flipped");
        auto bytes = whole_;
        bytes[i] ^= 0x20;
        const auto r = recover(bytes);
        EXPECT_EQ(r.blocks, 2u);
        EXPECT_EQ(r.cut_at, last_block_at_);
        EXPECT_EQ(r.cut_bytes, last_block_size());
        EXPECT_EQ(std::filesystem::file_size(segment_), last_block_at_);
        if (i >= last_block_at_ + journal_block_header_size) {
            EXPECT_EQ(r.reason, journal_errc::bad_checksum);
            EXPECT_TRUE(r.saved_to.empty());
        }
        if (!r.saved_to.empty()) {
            const auto saved = read_bytes(r.saved_to);
            EXPECT_TRUE(std::equal(saved.begin(), saved.end(), bytes.begin() + last_block_at_,
                                   bytes.end()));
        }
        EXPECT_EQ(read_all(dir_), events(0, 11));
    }
    expect_two_blocks_kept_and_usable();
}

// What a file system may leave of unsynced appends after a power loss: zeros.
TEST_F(Recovery, ZeroFilledTailIsCutAsTorn) {
    auto bytes = whole_;
    bytes.resize(bytes.size() + 4096, 0);
    const auto r = recover(bytes);
    EXPECT_EQ(r.blocks, 3u);
    EXPECT_EQ(r.cut_bytes, 4096u);
    EXPECT_EQ(r.reason, journal_errc::bad_magic);
    EXPECT_TRUE(r.saved_to.empty());
    EXPECT_EQ(read_all(dir_), events(0, 18));
}

// Not a torn append: a bad block with a good one after it. Recovery finds the intact block
// after it and keeps it in place (the lost offsets are a gap; journal_faults_test.cpp).
TEST_F(Recovery, BadBlockInTheMiddleCostsThatBlockOnly) {
    const auto first_size = make_block(events(0, 5)).size();
    auto bytes = whole_;
    bytes[first_size + 70] ^= 0x01;  // the second block's payload
    const auto r = recover(bytes);
    EXPECT_EQ(r.blocks, 2u);
    EXPECT_EQ(r.messages, 12u);
    EXPECT_EQ(r.cut_bytes, 0u);
    EXPECT_TRUE(r.saved_to.empty());
    ASSERT_EQ(r.new_gaps.size(), 1u);
    EXPECT_EQ(r.new_gaps[0].first, 5u);
    EXPECT_EQ(r.new_gaps[0].end, 11u);
    EXPECT_EQ(std::filesystem::file_size(segment_), whole_.size());
    EXPECT_NE(log_.str().find("offsets 5 to 10 lost"), std::string::npos) << log_.str();
}

TEST_F(Recovery, TheCutIsLogged) {
    recover(std::span<const std::uint8_t>(whole_).first(whole_.size() - 3));
    EXPECT_NE(log_.str().find("journal-00000000000000000000.owj: torn tail cut: " +
                              std::to_string(last_block_size() - 3) + " bytes at position " +
                              std::to_string(last_block_at_) +
                              " (short block payload); 2 blocks (11 messages) kept"),
              std::string::npos)
        << log_.str();
}

// Only the last segment is recovered; closed segments are checked by whoever reads them.
TEST_F(Recovery, OnlyTheLastSegmentIsScanned) {
    auto o = options();
    o.segment_bytes = 64;  // a segment per block
    std::filesystem::remove_all(dir_);
    {
        auto j = open(o);
        append(*j, events(0, 2));
        append(*j, events(2, 2));
        append(*j, events(4, 2));
    }
    const auto last = dir_ / daemon::segment_file_name(4);
    auto bytes = read_bytes(last);
    bytes.resize(bytes.size() - 1);
    write_bytes(last, bytes);
    auto j = open(o);
    EXPECT_EQ(j->recovery().segment, last);
    EXPECT_EQ(j->recovery().blocks, 0u);
    EXPECT_EQ(j->next_offset(), 4u);
    append(*j, events(4, 2));
    j.reset();
    EXPECT_EQ(read_all(dir_), events(0, 6));
}

TEST_F(Recovery, AReaderBeforeRecoverySeesATornTailAsTheEnd) {
    write_bytes(segment_, std::span<const std::uint8_t>(whole_).first(whole_.size() - 10));
    daemon::journal_reader r(dir_);
    message m;
    int n = 0;
    while (r.next(m))
        ++n;
    EXPECT_EQ(n, 11);
    EXPECT_FALSE(r.error());
    EXPECT_EQ(r.tail_bytes(), last_block_size() - 10);
}

}  // namespace
}  // namespace objwire::test
