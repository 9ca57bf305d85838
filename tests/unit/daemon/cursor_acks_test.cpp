// cursor_acks: a cursor reader's acks coalesce - the newest offset wins - and are written at
// most once per interval, driven by a fake clock; what is pending is never lost.
#include "daemon/store/cursor_acks.hpp"

#include <gtest/gtest.h>

namespace objwire::daemon {
namespace {

using namespace std::chrono_literals;
using time_point = cursor_acks::clock::time_point;

time_point at(std::chrono::milliseconds ms) {
    return time_point{} + ms;
}

TEST(CursorAcks, TheFirstAckIsWrittenAtOnce) {
    cursor_acks a(20ms);
    a.acked(10);
    EXPECT_EQ(a.take_due(at(1000ms)), 10u);
    a.stored(10, at(1000ms));
    EXPECT_FALSE(a.pending());
    EXPECT_EQ(a.writes(), 1u);
}

TEST(CursorAcks, AcksWithinTheIntervalCoalesceTheNewestWins) {
    cursor_acks a(20ms);
    a.acked(10);
    a.stored(*a.take_due(at(1000ms)), at(1000ms));
    for (std::uint64_t o = 11; o <= 1'000'010; ++o)
        a.acked(o);
    EXPECT_FALSE(a.take_due(at(1019ms)));
    EXPECT_EQ(a.due_at(), at(1020ms));
    EXPECT_EQ(a.take_due(at(1020ms)), 1'000'010u);
    a.stored(1'000'010, at(1020ms));
    EXPECT_EQ(a.acks(), 1'000'001u);
    EXPECT_EQ(a.writes(), 2u);
}

TEST(CursorAcks, AnAckAtOrBehindTheCursorLeavesNothingPending) {
    cursor_acks a(20ms, 500);
    a.acked(500);
    a.acked(3);
    EXPECT_FALSE(a.pending());
    a.acked(600);
    a.acked(550);  // older than what is pending: the newest stays
    EXPECT_EQ(a.take(), 600u);
}

TEST(CursorAcks, WhatIsPendingIsTakenAtTheEndWhateverTheInterval) {
    // A goodbye or a closed connection: the last ack is stored before the name is let go.
    cursor_acks a(1h);
    a.acked(7);
    a.stored(*a.take_due(at(0ms)), at(0ms));
    a.acked(9);
    EXPECT_FALSE(a.take_due(at(1ms)));
    EXPECT_EQ(a.take(), 9u);
    EXPECT_FALSE(a.take());
}

TEST(CursorAcks, AnAckDuringAWriteIsPendingForTheNext) {
    cursor_acks a(0ms);
    a.acked(5);
    const auto writing = a.take_due(at(0ms));
    a.acked(8);  // arrives while 5 is being written
    a.stored(*writing, at(0ms));
    EXPECT_TRUE(a.pending());
    EXPECT_EQ(a.take_due(at(0ms)), 8u);
}

}  // namespace
}  // namespace objwire::daemon
