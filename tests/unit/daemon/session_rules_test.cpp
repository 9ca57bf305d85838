// A sender connection's rules without a socket: the phases it moves through
// (daemon/serve/session_phase.hpp) and its replies held until their batch is durable
// (daemon/serve/reply_queue.hpp).
#include <gtest/gtest.h>

#include <cerrno>
#include <string>
#include <vector>

#include "daemon/serve/reply_queue.hpp"
#include "daemon/serve/session_phase.hpp"

namespace objwire::daemon {
namespace {

std::vector<std::uint8_t> bytes_of(const std::string& s) {
    return {s.begin(), s.end()};
}

std::string sent(reply_queue& q, std::vector<std::uint64_t>* acked = nullptr) {
    byte_buffer out;
    std::vector<std::uint64_t> ns;
    q.take_released(out, ns);
    if (acked) *acked = ns;
    return {reinterpret_cast<const char*>(out.data()), out.size()};
}

TEST(ReplyQueue, HeldRepliesGoOutInOrderOnceTheirBatchIsDurable) {
    reply_queue q;
    q.push_released(bytes_of("W"));  // the welcome
    const auto first = q.next_id();
    q.push_held(bytes_of("A1"), 10, 100);
    const auto second = q.next_id();
    q.push_held(bytes_of("A2"), 20, 50);
    EXPECT_EQ(q.held_bytes(), 150u);
    std::vector<std::uint64_t> acked;
    EXPECT_EQ(sent(q, &acked), "W");
    EXPECT_TRUE(acked.empty());
    // The second batch durable first (it cannot be with an in-order sink, but the queue keeps
    // the order whatever): nothing goes out before the first.
    EXPECT_EQ(q.release(second), 50u);
    EXPECT_FALSE(q.has_released());
    EXPECT_EQ(sent(q), "");
    EXPECT_EQ(q.release(first), 100u);
    EXPECT_EQ(q.held_bytes(), 0u);
    EXPECT_TRUE(q.all_released());
    EXPECT_EQ(sent(q, &acked), "A1A2");
    EXPECT_EQ(acked, (std::vector<std::uint64_t>{10, 20}));
    EXPECT_TRUE(q.empty());
}

TEST(ReplyQueue, AReleaseCountsOnceAndUnknownIdsHoldNothing) {
    reply_queue q;
    const auto id = q.next_id();
    q.push_held(bytes_of("A"), 1, 64);
    EXPECT_EQ(q.release(id), 64u);
    EXPECT_EQ(q.release(id), 0u);
    EXPECT_EQ(q.release(id + 7), 0u);
    EXPECT_EQ(q.held_bytes(), 0u);
}

TEST(ReplyQueue, AStalledBatchDropsItsReplyAndTheOnesAfterButNotThoseBefore) {
    reply_queue q;
    const auto stored = q.next_id();
    q.push_held(bytes_of("A1"), 1, 10);  // committed, waiting for its sync
    const auto stalled = q.next_id();
    q.push_held(bytes_of("A2"), 2, 20);  // its batch is out of space
    q.push_released(bytes_of("G"));      // a goodbye after it must not overtake it
    EXPECT_EQ(q.drop_from(stalled), 20u);
    EXPECT_EQ(q.held_bytes(), 10u);
    EXPECT_FALSE(q.all_released());
    EXPECT_EQ(q.release(stored), 10u);
    EXPECT_EQ(sent(q), "A1");
    EXPECT_TRUE(q.empty());
}

TEST(ReplyQueue, ARepliesBytesAreCopiedNotBorrowed) {
    reply_queue q;
    auto b = bytes_of("ack");
    q.push_released(b);
    b.assign(3, 'x');
    EXPECT_EQ(sent(q), "ack");
}

TEST(SessionPhase, ASenderStreamsPausesStallsAndFinishes) {
    session_state s;
    EXPECT_EQ(s.phase(), session_phase::handshake);
    EXPECT_TRUE(s.reading());
    EXPECT_FALSE(s.admitted());  // no hello yet
    EXPECT_TRUE(s.hello_received());
    EXPECT_FALSE(s.reading());
    EXPECT_TRUE(s.admitted());
    EXPECT_TRUE(s.reading());
    EXPECT_TRUE(s.pause());
    EXPECT_FALSE(s.reading());
    EXPECT_TRUE(s.stall());  // a retry found the disk full while paused
    EXPECT_FALSE(s.unpause());
    EXPECT_TRUE(s.unstall());
    EXPECT_EQ(s.phase(), session_phase::streaming);
    EXPECT_FALSE(s.replies_closed());
    EXPECT_TRUE(s.finish());
    EXPECT_TRUE(s.replies_closed());
    EXPECT_FALSE(s.over());
    EXPECT_FALSE(s.finish());  // once
    s.end();
    EXPECT_TRUE(s.over());
}

TEST(SessionPhase, AStopDrainsAReadingConnectionAndFinishesAWaitingOne) {
    const auto stopped_from = [](auto to_phase) {
        session_state s;
        to_phase(s);
        const auto was = s.stop();
        return std::pair{was, s.phase()};
    };
    using p = session_phase;
    EXPECT_EQ(stopped_from([](session_state&) {}), std::pair(p::handshake, p::draining));
    EXPECT_EQ(stopped_from([](session_state& s) { s.hello_received(); }),
              std::pair(p::admitting, p::finishing));
    const auto streaming = [](session_state& s) { s.hello_received(), s.admitted(); };
    EXPECT_EQ(stopped_from(streaming), std::pair(p::streaming, p::draining));
    EXPECT_EQ(stopped_from([&](session_state& s) { streaming(s), s.pause(); }),
              std::pair(p::paused, p::draining));
    // A stalled batch is not stored: there is nothing to drain into.
    EXPECT_EQ(stopped_from([&](session_state& s) { streaming(s), s.stall(); }),
              std::pair(p::stalled, p::finishing));
    EXPECT_EQ(stopped_from([](session_state& s) { s.hello_received(), s.hand_over(); }),
              std::pair(p::handed_over, p::handed_over));
    EXPECT_EQ(stopped_from([&](session_state& s) { streaming(s), s.fail(); }),
              std::pair(p::failed, p::failed));
}

TEST(SessionPhase, AFailureIsFinalUntilTheEnd) {
    session_state s;
    s.hello_received();
    s.admitted();
    s.fail();
    EXPECT_TRUE(s.over());
    EXPECT_TRUE(s.replies_closed());
    EXPECT_FALSE(s.finish());
    EXPECT_FALSE(s.stall());
    EXPECT_FALSE(s.pause());
    EXPECT_EQ(s.stop(), session_phase::failed);
    EXPECT_EQ(s.phase(), session_phase::failed);
    s.end();
    s.fail();
    EXPECT_EQ(s.phase(), session_phase::ended);
}

TEST(SessionPhase, AnAdmittedRoleNeverStreams) {
    session_state s;
    s.hello_received();
    EXPECT_TRUE(s.hand_over());
    EXPECT_FALSE(s.admitted());
    EXPECT_FALSE(s.reading());
    EXPECT_TRUE(s.replies_closed());  // the writer stops: the role's service writes alone
    EXPECT_FALSE(s.finish());
    EXPECT_EQ(to_string(s.phase()), "handed_over");
}

TEST(SessionPhase, OnlyAFullDiskOrQuotaStallsABatch) {
    EXPECT_TRUE(out_of_space(std::make_error_code(std::errc::no_space_on_device)));
    EXPECT_TRUE(out_of_space(std::make_error_code(std::errc::file_too_large)));
    EXPECT_TRUE(out_of_space(std::error_code(EDQUOT, std::generic_category())));
    EXPECT_FALSE(out_of_space(std::make_error_code(std::errc::io_error)));
    EXPECT_FALSE(out_of_space({}));
}

}  // namespace
}  // namespace objwire::daemon
