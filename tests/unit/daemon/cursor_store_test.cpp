// cursor_store: named reader positions in a data directory, and the one-reader-per-name claim.
#include "daemon/store/cursor_store.hpp"

#include <cstdlib>
#include <filesystem>
#include <map>

#include <gtest/gtest.h>

#include "proto/errors.hpp"

namespace objwire::daemon {
namespace {

class CursorStore : public ::testing::Test {
  protected:
    void SetUp() override {
        std::string tmpl = (std::filesystem::temp_directory_path() / "cursors-XXXXXX").string();
        ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
        dir_ = tmpl;
    }
    void TearDown() override { std::filesystem::remove_all(dir_); }
    std::filesystem::path dir_;
};

TEST_F(CursorStore, AbsentUntilSavedThenKeptAcrossStores) {
    std::error_code ec;
    {
        cursor_store s(dir_);
        EXPECT_FALSE(s.get("etl", ec).has_value());
        EXPECT_FALSE(ec);
        ASSERT_FALSE(s.save("etl", 1200));
        EXPECT_EQ(s.get("etl", ec), 1200u);
    }
    cursor_store again(dir_);
    EXPECT_EQ(again.get("etl", ec), 1200u) << "a position survives the process";
    EXPECT_FALSE(ec);
}

TEST_F(CursorStore, SaveReplacesAndListShowsEveryName) {
    cursor_store s(dir_);
    ASSERT_FALSE(s.save("a", 1));
    ASSERT_FALSE(s.save("b", 2));
    ASSERT_FALSE(s.save("a", 10));
    std::error_code ec;
    std::string damaged;
    const auto all = s.list(ec, damaged);
    ASSERT_FALSE(ec);
    EXPECT_EQ(damaged, "");
    ASSERT_EQ(all.size(), 2u);
    std::map<std::string, std::uint64_t> by_name;
    for (const auto& c : all)
        by_name[c.name] = c.next_offset;
    EXPECT_EQ(by_name["a"], 10u);
    EXPECT_EQ(by_name["b"], 2u);
}

// A staged position is the cursor's at once for get(), and on disk only after flush(): one
// file fsync per cursor and one of the directory for all of them, however often it moved.
TEST_F(CursorStore, StagedPositionsAreStoredByOneFlush) {
    cursor_store s(dir_);
    ASSERT_FALSE(s.save("a", 1));
    const auto fsyncs = s.fsyncs();
    for (std::uint64_t at = 2; at <= 1000; ++at)
        s.stage("a", at);
    s.stage("b", 7);
    std::error_code ec;
    EXPECT_EQ(s.get("a", ec), 1000u);
    EXPECT_EQ(cursor_store(dir_).get("a", ec), 1u) << "not on disk before the flush";
    EXPECT_FALSE(cursor_store(dir_).get("b", ec).has_value());
    EXPECT_EQ(s.fsyncs(), fsyncs) << "staging costs no fsync";
    std::string damaged;
    const auto listed = s.list(ec, damaged);
    ASSERT_EQ(listed.size(), 1u) << "b has no file yet";
    EXPECT_EQ(listed[0].next_offset, 1000u) << "`cursor list` shows the staged position";
    EXPECT_EQ(s.positions().size(), 2u) << "the metrics see both";
    s.flush();
    EXPECT_EQ(s.fsyncs(), fsyncs + 3) << "a's file, b's file, the directory";
    EXPECT_EQ(cursor_store(dir_).get("a", ec), 1000u);
    EXPECT_EQ(cursor_store(dir_).get("b", ec), 7u);
    s.flush();
    EXPECT_EQ(s.fsyncs(), fsyncs + 3) << "nothing staged, nothing synced";
}

// save() (a reader's end, `cursor set`) and remove() supersede what was staged: a later
// flush never writes an older position back.
TEST_F(CursorStore, SaveAndRemoveSupersedeWhatIsStaged) {
    cursor_store s(dir_);
    s.stage("a", 5);
    ASSERT_FALSE(s.save("a", 9));
    ASSERT_FALSE(s.save("b", 3));
    s.stage("b", 4);
    ASSERT_FALSE(s.remove("b"));
    s.flush();
    std::error_code ec;
    EXPECT_EQ(cursor_store(dir_).get("a", ec), 9u);
    EXPECT_FALSE(cursor_store(dir_).get("b", ec).has_value());
    EXPECT_FALSE(s.get("b", ec).has_value());
}

// A reader's end stores what it staged before it is answered: persist() writes that one
// cursor now, and does nothing for a name with nothing staged.
TEST_F(CursorStore, PersistStoresOneStagedPositionNow) {
    cursor_store s(dir_);
    s.stage("a", 11);
    s.stage("b", 12);
    const auto fsyncs = s.fsyncs();
    ASSERT_FALSE(s.persist("a"));
    EXPECT_EQ(s.fsyncs(), fsyncs + 2) << "the file and the directory";
    std::error_code ec;
    EXPECT_EQ(cursor_store(dir_).get("a", ec), 11u);
    EXPECT_FALSE(cursor_store(dir_).get("b", ec).has_value()) << "b waits for the flush";
    ASSERT_FALSE(s.persist("a"));
    ASSERT_FALSE(s.persist("none"));
    EXPECT_EQ(s.fsyncs(), fsyncs + 2) << "nothing staged, nothing written";
}

TEST_F(CursorStore, RemoveDeletesAndSaysWhenThereWasNone) {
    cursor_store s(dir_);
    ASSERT_FALSE(s.save("a", 5));
    EXPECT_FALSE(s.remove("a"));
    std::error_code ec;
    EXPECT_FALSE(s.get("a", ec).has_value());
    EXPECT_TRUE(s.remove("a")) << "removing a missing cursor is an error the CLI reports";
}

TEST_F(CursorStore, OneReaderAtATimeHoldsAName) {
    cursor_store s(dir_);
    EXPECT_TRUE(s.claim("etl"));
    EXPECT_TRUE(s.in_use("etl"));
    EXPECT_FALSE(s.claim("etl"));
    EXPECT_TRUE(s.claim("other"));
    s.release("etl");
    EXPECT_FALSE(s.in_use("etl"));
    EXPECT_TRUE(s.claim("etl"));
}

// `cursor set` moves or makes a cursor up to the durable end; a refused one changes nothing
// and makes no cursor, past the end (2^64-1 too) or while a reader holds the name.
TEST_F(CursorStore, ASetIsRefusedPastTheEndOrInUseChangingNothing) {
    cursor_store s(dir_);
    std::error_code ec;
    EXPECT_EQ(s.set("new", 60, 50), proto_errc::past_end);
    EXPECT_EQ(s.set("new", UINT64_MAX, 50), proto_errc::past_end);
    EXPECT_FALSE(s.get("new", ec).has_value()) << "a refused set made the cursor";
    EXPECT_FALSE(ec);
    std::string damaged;
    EXPECT_TRUE(s.list(ec, damaged).empty());
    EXPECT_TRUE(s.positions().empty());

    ASSERT_FALSE(s.set("etl", 50, 50)) << "the durable end itself is a position";
    EXPECT_EQ(s.set("etl", 51, 50), proto_errc::past_end);
    EXPECT_EQ(s.get("etl", ec), 50u);
    ASSERT_FALSE(s.set("etl", 7, 50)) << "back";
    EXPECT_EQ(s.get("etl", ec), 7u);

    ASSERT_TRUE(s.claim("etl"));
    EXPECT_EQ(s.set("etl", 9, 50), proto_errc::sender_busy);
    EXPECT_EQ(s.get("etl", ec), 7u);
    s.release("etl");
    ASSERT_FALSE(s.set("etl", 9, 50));
    EXPECT_FALSE(s.in_use("etl")) << "a set holds the name only while it stores";
    EXPECT_EQ(s.get("etl", ec), 9u);
}

TEST_F(CursorStore, OneStorePerDataDirectory) {
    auto& a = cursor_store::for_data_dir(dir_);
    auto& b = cursor_store::for_data_dir(dir_);
    EXPECT_EQ(&a, &b) << "readers of one daemon share the in-use names";
    EXPECT_EQ(a.dir(), dir_ / "cursors");
}

}  // namespace
}  // namespace objwire::daemon
