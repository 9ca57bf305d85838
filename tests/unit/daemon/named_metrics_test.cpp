// The rules of the metrics labelled by peers' names (daemon/telemetry/named_metrics.hpp): the cap
// on sender ids and cursor names with the "" series for the rest, and lag arithmetic.
#include <gtest/gtest.h>

#include <string>

#include "daemon/telemetry/named_metrics.hpp"

namespace objwire::test {
namespace {

using daemon::cursor_position;
using daemon::sender_meter;

const sender_meter::row* find(const std::vector<sender_meter::row>& rows, const std::string& id) {
    for (const auto& r : rows)
        if (r.id == id) return &r;
    return nullptr;
}

std::uint64_t total_objects(const std::vector<sender_meter::row>& rows) {
    std::uint64_t n = 0;
    for (const auto& r : rows)
        n += r.objects;
    return n;
}

TEST(SenderMeter, CountsObjectsBytesAndLastSeenPerId) {
    sender_meter m(4);
    m.stored("app", 10, 1000, 100.0);
    m.stored("app", 5, 400, 130.5);
    m.stored("etl", 1, 50, 120.0);
    const auto rows = m.rows();
    ASSERT_EQ(rows.size(), 2u);  // no "" row: nothing counted there
    EXPECT_EQ(rows[0].id, "app");
    EXPECT_EQ(rows[0].objects, 15u);
    EXPECT_EQ(rows[0].bytes, 1400u);
    EXPECT_EQ(rows[0].last_seen_seconds, 130.5);
    EXPECT_EQ(rows[1].id, "etl");
    EXPECT_EQ(rows[1].objects, 1u);
}

TEST(SenderMeter, AnonymousStreamsCountUnderTheEmptyId) {
    sender_meter m(4);
    m.stored("", 3, 30, 10.0);
    m.stored("", 4, 40, 20.0);
    const auto rows = m.rows();
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0].id, "");
    EXPECT_EQ(rows[0].objects, 7u);
    EXPECT_EQ(rows[0].last_seen_seconds, 20.0);
}

// Many ids keep at most `cap` labelled, the most recently active; the others' counts move to
// "" so that the sum over the series stays every object stored.
TEST(SenderMeter, KeepsTheMostRecentIdsAndFoldsTheRestIntoTheEmptyId) {
    constexpr std::size_t cap = 3;
    sender_meter m(cap);
    for (int i = 0; i < 100; ++i)
        m.stored("id-" + std::to_string(i), 1, 10, i);
    m.stored("id-97", 1, 10, 200.0);  // the oldest of the three labelled is now 98
    m.stored("late", 2, 20, 201.0);   // pushes out id-98
    const auto rows = m.rows();
    ASSERT_EQ(rows.size(), cap + 1);
    ASSERT_NE(find(rows, "id-97"), nullptr);
    ASSERT_NE(find(rows, "id-99"), nullptr);
    ASSERT_NE(find(rows, "late"), nullptr);
    EXPECT_EQ(find(rows, "id-98"), nullptr);
    EXPECT_EQ(find(rows, "id-97")->objects, 2u);
    const auto* other = find(rows, "");
    ASSERT_NE(other, nullptr);
    EXPECT_EQ(other->objects, 98u);  // id-0 .. id-96 and id-98
    EXPECT_EQ(other->bytes, 980u);
    EXPECT_EQ(other->last_seen_seconds, 98.0);
    EXPECT_EQ(total_objects(rows), 103u);
    // An id pushed out starts again from what it stores next; the total still adds up.
    m.stored("id-0", 1, 10, 300.0);
    EXPECT_EQ(find(m.rows(), "id-0")->objects, 1u);
    EXPECT_EQ(total_objects(m.rows()), 104u);
    EXPECT_EQ(m.rows().size(), cap + 1);
}

TEST(SenderMeter, CapZeroLabelsNoId) {
    sender_meter m(0);
    m.stored("a", 1, 1, 1.0);
    m.stored("b", 1, 1, 2.0);
    const auto rows = m.rows();
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0].id, "");
    EXPECT_EQ(rows[0].objects, 2u);
}

TEST(Lag, IsTheOffsetsBetweenAPositionAndTheNextOffset) {
    EXPECT_EQ(daemon::lag_behind(1000, 400), 600u);
    EXPECT_EQ(daemon::lag_behind(1000, 1000), 0u);
    // A cursor saved past the end (the journal lost its tail, or a cursor of another journal)
    // is not behind.
    EXPECT_EQ(daemon::lag_behind(1000, 1500), 0u);
}

TEST(CursorLags, LabelsEveryCursorUnderTheCapByName) {
    const auto lags = daemon::cursor_lags({{"b", 700, 2}, {"a", 1000, 1}, {"c", 0, 0}}, 1000, 8);
    ASSERT_EQ(lags.size(), 3u);
    EXPECT_EQ(lags[0].name, "a");
    EXPECT_EQ(lags[0].lag, 0u);
    EXPECT_EQ(lags[1].name, "b");
    EXPECT_EQ(lags[1].lag, 300u);
    EXPECT_EQ(lags[2].name, "c");
    EXPECT_EQ(lags[2].lag, 1000u);
}

// Beyond the cap the most recently moved stay labelled and "" carries the worst lag of the
// others, so an alert on the maximum over all series still sees an abandoned cursor.
TEST(CursorLags, BeyondTheCapTheOthersShowTheirWorstLag) {
    std::vector<cursor_position> cursors;
    for (int i = 0; i < 50; ++i)
        cursors.push_back({"c" + std::to_string(i), static_cast<std::uint64_t>(i * 10),
                           static_cast<std::uint64_t>(i)});
    const auto lags = daemon::cursor_lags(cursors, 1000, 4);
    ASSERT_EQ(lags.size(), 5u);
    EXPECT_EQ(lags[0].name, "c46");
    EXPECT_EQ(lags[0].lag, 540u);
    EXPECT_EQ(lags[3].name, "c49");
    EXPECT_EQ(lags[4].name, "");
    EXPECT_EQ(lags[4].lag, 1000u);  // c0, never moved since offset 0
}

TEST(CursorLags, CursorsNeverMovedAreTakenByName) {
    const auto lags = daemon::cursor_lags({{"z", 5, 0}, {"y", 6, 0}, {"x", 7, 0}}, 10, 2);
    ASSERT_EQ(lags.size(), 3u);
    EXPECT_EQ(lags[0].name, "x");
    EXPECT_EQ(lags[1].name, "y");
    EXPECT_EQ(lags[2].name, "");
    EXPECT_EQ(lags[2].lag, 5u);
}

TEST(ReaderPositions, TheSlowestIsTheSmallestPositionOfTheReadersOpen) {
    daemon::reader_positions readers;
    EXPECT_FALSE(readers.slowest());
    {
        daemon::reader_position_mark a(readers, 100);
        daemon::reader_position_mark b(readers, 40);
        EXPECT_EQ(readers.slowest(), 40u);
        b.move(500);
        EXPECT_EQ(readers.slowest(), 100u);
        a.move(900);
        EXPECT_EQ(readers.slowest(), 500u);
    }
    EXPECT_FALSE(readers.slowest());  // both gone
}

TEST(ReaderPositions, EachReaderHasItsOwnLagTheMostRecentlyOpenedByName) {
    daemon::reader_positions readers;
    daemon::reader_position_mark a(readers, 100, "127.0.0.1:1");
    daemon::reader_position_mark b(readers, 40, "127.0.0.1:2");
    daemon::reader_position_mark c(readers, 70, "127.0.0.1:3");
    b.move(90);
    // Two labelled (the later opened), the first folded into "" with its lag.
    const auto lags = daemon::cursor_lags(readers.positions(), 150, 2);
    ASSERT_EQ(lags.size(), 3u);
    EXPECT_EQ(lags[0].name, "127.0.0.1:2");
    EXPECT_EQ(lags[0].lag, 60u);
    EXPECT_EQ(lags[1].name, "127.0.0.1:3");
    EXPECT_EQ(lags[1].lag, 80u);
    EXPECT_EQ(lags[2].name, "");
    EXPECT_EQ(lags[2].lag, 50u);
}

}  // namespace
}  // namespace objwire::test
