// One forward stream's hop connection: every state that waits on the hop ends by a deadline
// with a reason, and the waits on the upstream alone have none.
#include "daemon/sinks/hop_phase.hpp"

#include <gtest/gtest.h>

namespace objwire::daemon {
namespace {

using std::chrono::milliseconds;
using state = hop_phase::state;

const auto hop_t0 = hop_phase::clock::time_point{} + std::chrono::hours(1);

TEST(HopPhase, AConnectThatGetsNoWelcomeFailsAtTheConnectWindow) {
    hop_phase p(milliseconds(5000), milliseconds(3000));
    p.on_connecting(hop_t0);
    EXPECT_EQ(p.current(hop_t0), state::connecting);
    EXPECT_FALSE(p.expired(hop_t0 + milliseconds(4999)));
    const auto why = p.expired(hop_t0 + milliseconds(5000));
    ASSERT_TRUE(why);
    EXPECT_EQ(*why, "no welcome within 5000 ms");
    EXPECT_EQ(p.current(hop_t0 + milliseconds(5000)), state::failed);
    EXPECT_FALSE(p.deadline());
}

TEST(HopPhase, AHopThatWelcomesAndNeverAcknowledgesStallsThenFails) {
    hop_phase p(milliseconds(5000), milliseconds(3000));
    p.on_connecting(hop_t0);
    p.on_connected(hop_t0);
    EXPECT_FALSE(p.deadline());  // idle: the wait is on the upstream
    p.on_progress(10, 0, hop_t0 + milliseconds(100));
    EXPECT_EQ(p.current(hop_t0 + milliseconds(1099)), state::streaming);
    EXPECT_EQ(p.current(hop_t0 + milliseconds(1100)), state::stalled);
    EXPECT_FALSE(p.expired(hop_t0 + milliseconds(3099)));
    const auto why = p.expired(hop_t0 + milliseconds(3100));
    ASSERT_TRUE(why);
    EXPECT_EQ(
        *why,
        "no acknowledgement for 3000 ms with 10 objects waiting (the hop's resume.retry_for)");
}

TEST(HopPhase, EachAckThatMovesRestartsTheWindow) {
    hop_phase p(milliseconds(5000), milliseconds(3000));
    p.on_connected(hop_t0);
    p.on_progress(10, 0, hop_t0);
    p.on_progress(20, 5, hop_t0 + milliseconds(2500));
    p.on_progress(20, 5, hop_t0 + milliseconds(4000));  // no ack: the clock runs on
    EXPECT_FALSE(p.expired(hop_t0 + milliseconds(5499)));
    EXPECT_TRUE(p.expired(hop_t0 + milliseconds(5500)));
}

TEST(HopPhase, EverythingAcknowledgedHasNoDeadline) {
    hop_phase p(milliseconds(5000), milliseconds(3000));
    p.on_connected(hop_t0);
    p.on_progress(10, 10, hop_t0);
    EXPECT_FALSE(p.deadline());
    EXPECT_FALSE(p.expired(hop_t0 + std::chrono::hours(24)));
    EXPECT_EQ(p.current(hop_t0 + std::chrono::hours(24)), state::streaming);
}

TEST(HopPhase, AStreamThatEndsWithObjectsWaitingDrainsForTheDrainWindowOnly) {
    hop_phase p(milliseconds(5000), milliseconds(30000));
    p.on_connected(hop_t0);
    p.on_progress(10, 2, hop_t0);
    p.on_stop(hop_t0 + milliseconds(100));
    EXPECT_EQ(p.current(hop_t0 + milliseconds(100)), state::draining);
    ASSERT_TRUE(p.deadline());
    EXPECT_EQ(*p.deadline(), hop_t0 + milliseconds(100) + hop_phase::drain_window);
    EXPECT_FALSE(p.expired(hop_t0 + milliseconds(599)));
    const auto why = p.expired(hop_t0 + milliseconds(600));
    ASSERT_TRUE(why);
    EXPECT_EQ(*why, "8 objects not acknowledged within 500 ms of the stream's end; given up");
}

TEST(HopPhase, AStopWhileConnectingDrainsToo) {
    hop_phase p(milliseconds(60000), milliseconds(30000));
    p.on_connecting(hop_t0);
    p.on_stop(hop_t0);
    EXPECT_EQ(*p.deadline(), hop_t0 + hop_phase::drain_window);
    EXPECT_EQ(to_string(p.current(hop_t0)), std::string("draining"));
}

}  // namespace
}  // namespace objwire::daemon
