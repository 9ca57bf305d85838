// A following reader's rules when it loses its daemon (client/lib/follow_resume.hpp): which
// failures are worth a reconnection, where the next connection starts, and the pauses (at
// once, then 100 ms doubling to 2 s) within resume.retry_for of failures in a row.
#include "client/lib/follow_resume.hpp"

#include <gtest/gtest.h>

#include <asio/error.hpp>

#include <objwire/connection.hpp>

namespace objwire::client {
namespace {

using std::chrono::milliseconds;
const auto t0 = follow_resume::clock::time_point{} + std::chrono::hours(1);

TEST(FollowResume, ConnectionFailuresAndAStoppingDaemonAreWorthReconnecting) {
    EXPECT_TRUE(follow_resume::worth_reconnecting(client_errc::connection_lost));
    EXPECT_TRUE(follow_resume::worth_reconnecting(client_errc::connect_failed));
    EXPECT_TRUE(follow_resume::worth_reconnecting(client_errc::timed_out));
    EXPECT_TRUE(follow_resume::worth_reconnecting(asio::error::connection_reset));
    EXPECT_TRUE(follow_resume::worth_reconnecting(proto_errc::not_available));
    // The cursor still held by the connection the daemon has not noticed is gone.
    EXPECT_TRUE(follow_resume::worth_reconnecting(proto_errc::sender_busy));
}

TEST(FollowResume, RefusalsAndProtocolErrorsAreNot) {
    EXPECT_FALSE(follow_resume::worth_reconnecting({}));
    EXPECT_FALSE(follow_resume::worth_reconnecting(proto_errc::unauthorized));
    EXPECT_FALSE(follow_resume::worth_reconnecting(proto_errc::not_found));
    EXPECT_FALSE(follow_resume::worth_reconnecting(proto_errc::bad_sequence));
    EXPECT_FALSE(follow_resume::worth_reconnecting(proto_errc::frame_too_large));
    follow_resume f(milliseconds(30'000));
    f.connected(0, false);
    EXPECT_FALSE(f.after_failure(proto_errc::bad_message, t0));
}

TEST(FollowResume, ResumesAfterTheLastObjectHandedOut) {
    follow_resume f(milliseconds(30'000));
    f.connected(1000, false);
    EXPECT_EQ(f.resume_at(), 1000u);  // nothing handed out yet: where the stream started
    f.handed_out(1000);
    f.handed_out(1001);
    EXPECT_EQ(f.resume_at(), 1002u);
    // A cursor's daemon starts at its last stored ack, before what was handed out: the
    // resume point does not go back.
    f.connected(900, false);
    EXPECT_EQ(f.resume_at(), 1002u);
    f.handed_out(1002);
    EXPECT_EQ(f.resume_at(), 1003u);
}

TEST(FollowResume, ResumesAfterAGapNotInsideIt) {
    follow_resume f(milliseconds(30'000));
    f.connected(0, false);
    f.handed_out(9);
    f.gap(50);  // offsets 10 to 49 lost: not asked for again
    EXPECT_EQ(f.resume_at(), 50u);
    f.gap(20);  // heard of again after a reconnection
    EXPECT_EQ(f.resume_at(), 50u);
}

TEST(FollowResume, AtOnceThenDoublingFrom100MsTo2s) {
    follow_resume f(milliseconds(60'000));
    f.connected(0, false);
    const milliseconds want[] = {milliseconds(0),    milliseconds(100), milliseconds(200),
                                 milliseconds(400),  milliseconds(800), milliseconds(1600),
                                 milliseconds(2000), milliseconds(2000)};
    auto now = t0;
    for (const auto w : want) {
        const auto pause = f.after_failure(client_errc::connect_failed, now);
        ASSERT_TRUE(pause);
        EXPECT_EQ(*pause, w);
        now += *pause;
    }
}

TEST(FollowResume, AConnectionStartsTheCountAgain) {
    follow_resume f(milliseconds(1000));
    f.connected(0, false);
    EXPECT_EQ(*f.after_failure(client_errc::connection_lost, t0), milliseconds(0));
    EXPECT_EQ(*f.after_failure(client_errc::connect_failed, t0), milliseconds(100));
    f.connected(0, false);  // welcomed again
    // Much later: the window counts from this failure, and the first try is at once.
    const auto later = t0 + std::chrono::hours(5);
    EXPECT_EQ(*f.after_failure(client_errc::connection_lost, later), milliseconds(0));
    EXPECT_EQ(*f.after_failure(client_errc::connect_failed, later + milliseconds(999)),
              milliseconds(1));  // cut to the window's end
    EXPECT_FALSE(f.after_failure(client_errc::connect_failed, later + milliseconds(1000)));
}

TEST(FollowResume, GivesUpAfterRetryForOfFailuresInARow) {
    follow_resume f(milliseconds(3000));
    f.connected(0, false);
    auto now = t0;
    int tries = 0;
    while (auto pause = f.after_failure(client_errc::connect_failed, now)) {
        ASSERT_LE(now + *pause, t0 + milliseconds(3000)) << "a pause past the window";
        now += *pause;
        ASSERT_LT(++tries, 100);
    }
    EXPECT_GE(now, t0 + milliseconds(3000));
    // 0, 100, 200, 400, 800, 1500 (cut), then the try at the end fails for good.
    EXPECT_EQ(tries, 6);
}

TEST(FollowResume, NoWindowOrOffsetsCountingBlocksNeverReconnect) {
    follow_resume off(milliseconds(0));
    off.connected(0, false);
    EXPECT_FALSE(off.after_failure(client_errc::connection_lost, t0));
    follow_resume nats(milliseconds(30'000));
    nats.connected(0, true);
    EXPECT_FALSE(nats.after_failure(client_errc::connection_lost, t0));
}

}  // namespace
}  // namespace objwire::client
