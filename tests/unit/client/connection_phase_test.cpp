// The client connection's phase (client/lib/connection_phase.hpp): the transitions a connection
// makes from open() to close(), a resume returning to the phase it left, and which phases
// count as open, resumable and welcomed.
#include "client/lib/connection_phase.hpp"

#include <gtest/gtest.h>

namespace objwire::client {
namespace {

TEST(ConnectionPhase, OpenStreamDrainClose) {
    connection_state s;
    EXPECT_EQ(s.phase(), connection_phase::closed);
    EXPECT_FALSE(s.is_open());
    EXPECT_FALSE(s.welcomed());  // no welcome before a hello
    ASSERT_TRUE(s.connect());
    EXPECT_FALSE(s.is_open());  // not before the socket is connected
    ASSERT_TRUE(s.connected());
    EXPECT_TRUE(s.is_open());
    EXPECT_FALSE(s.resumable());  // a daemon that turns the hello away is not retried
    EXPECT_FALSE(s.after_welcome());
    ASSERT_TRUE(s.welcomed());
    EXPECT_TRUE(s.resumable());
    EXPECT_TRUE(s.after_welcome());
    ASSERT_TRUE(s.drain());
    EXPECT_TRUE(s.is_open());
    EXPECT_TRUE(s.resumable());
    ASSERT_TRUE(s.close());
    EXPECT_EQ(s.phase(), connection_phase::closed);
    EXPECT_FALSE(s.is_open());
    EXPECT_FALSE(s.drain());
    EXPECT_FALSE(s.start_resume());
}

TEST(ConnectionPhase, AResumeReturnsWhereItLeft) {
    for (const bool draining : {false, true}) {
        connection_state s;
        s.connect();
        s.connected();
        s.welcomed();
        if (draining) s.drain();
        const auto left = s.phase();
        ASSERT_TRUE(s.start_resume());
        EXPECT_EQ(s.phase(), connection_phase::resuming);
        EXPECT_TRUE(s.is_open());
        EXPECT_TRUE(s.after_welcome());  // reads wait no longer than the retry window
        EXPECT_FALSE(s.resumable());     // an attempt's failure is not resumed again
        EXPECT_FALSE(s.start_resume());  // no resume inside a resume
        EXPECT_FALSE(s.drain());
        ASSERT_TRUE(s.end_resume());
        EXPECT_EQ(s.phase(), left);
        EXPECT_FALSE(s.end_resume());
    }
}

TEST(ConnectionPhase, FailedIsClosedAndMayConnectAgain) {
    connection_state s;
    s.connect();
    s.fail();  // the connect failed
    EXPECT_EQ(s.phase(), connection_phase::failed);
    EXPECT_FALSE(s.is_open());
    EXPECT_FALSE(s.connected());
    ASSERT_TRUE(s.connect());  // open(retry_for) tries again
    s.connected();
    s.welcomed();
    s.start_resume();
    s.end_resume();
    s.fail();  // resume.retry_for passed
    EXPECT_FALSE(s.is_open());
    EXPECT_FALSE(s.resumable());
    EXPECT_FALSE(s.close());
}

TEST(ConnectionPhase, EveryPhaseHasAName) {
    EXPECT_EQ(to_string(connection_phase::closed), "closed");
    EXPECT_EQ(to_string(connection_phase::connecting), "connecting");
    EXPECT_EQ(to_string(connection_phase::handshaking), "handshaking");
    EXPECT_EQ(to_string(connection_phase::streaming), "streaming");
    EXPECT_EQ(to_string(connection_phase::resuming), "resuming");
    EXPECT_EQ(to_string(connection_phase::draining), "draining");
    EXPECT_EQ(to_string(connection_phase::failed), "failed");
}

}  // namespace
}  // namespace objwire::client
