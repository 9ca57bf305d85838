// The resume rule (client/lib/resume_rule.hpp): which breaks are resumed, the pauses between
// attempts within the retry window, what a reconnect's handshake leads to, and the reports.
#include "client/lib/resume_rule.hpp"

#include <gtest/gtest.h>

#include <objwire/errors.hpp>

#include "proto/errors.hpp"

namespace objwire::client {
namespace {

using std::chrono::milliseconds;
const auto resume_t0 = retry_window::clock::time_point{} + std::chrono::hours(1);

TEST(ResumeRule, BreaksAReconnectMayCure) {
    for (std::error_code ec :
         {std::error_code(client_errc::connection_lost), std::error_code(client_errc::timed_out),
          std::error_code(client_errc::connect_failed), make_error_code(proto_errc::sender_busy),
          make_error_code(proto_errc::too_many_connections),
          make_error_code(proto_errc::not_available)})
        EXPECT_TRUE(retryable(ec)) << ec.message();
    for (std::error_code ec :
         {make_error_code(proto_errc::unauthorized), make_error_code(proto_errc::bad_handshake),
          make_error_code(proto_errc::sender_fenced), std::error_code(client_errc::input_mismatch)})
        EXPECT_FALSE(retryable(ec)) << ec.message();
}

TEST(ResumeRule, OnlyAWelcomedStreamWithAWindowResumes) {
    const retry_window on(milliseconds(3000)), off(milliseconds(0));
    const std::error_code lost = client_errc::connection_lost;
    EXPECT_TRUE(resumes(true, on, lost));
    EXPECT_FALSE(resumes(false, on, lost));  // not welcomed yet, or resuming already
    EXPECT_FALSE(resumes(true, off, lost));  // resume.retry_for 0
    EXPECT_FALSE(resumes(true, on, make_error_code(proto_errc::unauthorized)));
}

TEST(ResumeRule, AttemptsPauseWithinTheWindow) {
    retry_window w(milliseconds(3000));
    w.observe(0, true, resume_t0);
    EXPECT_EQ(pause_before(0, w, resume_t0), milliseconds(0));  // the first at once
    EXPECT_EQ(pause_before(1, w, resume_t0), retry_window::first_backoff);
    EXPECT_EQ(pause_before(2, w, resume_t0), retry_window::first_backoff * 2);
    EXPECT_EQ(pause_before(3, w, resume_t0 + milliseconds(2950)),
              milliseconds(50));                                                  // cut to the end
    EXPECT_EQ(pause_before(4, w, resume_t0 + milliseconds(3000)), std::nullopt);  // over: give up
    EXPECT_EQ(pause_before(0, w, resume_t0 + milliseconds(3000)), std::nullopt);
}

TEST(ResumeRule, WhatAHandshakeLeadsTo) {
    EXPECT_EQ(after_handshake({}, true), handshake_verdict::resumed);
    EXPECT_EQ(after_handshake(client_errc::timed_out, false), handshake_verdict::retry);
    EXPECT_EQ(after_handshake(proto_errc::sender_busy, false), handshake_verdict::retry);
    EXPECT_EQ(after_handshake(proto_errc::sender_fenced, false), handshake_verdict::fenced);
    EXPECT_EQ(after_handshake(proto_errc::unauthorized, false), handshake_verdict::give_up);
}

TEST(ResumeRule, TheReportSaysWhyAndForHowLong) {
    EXPECT_EQ(gave_up_text("connection lost: reset", milliseconds(2000), ""),
              "connection lost: reset; no acknowledged progress for 2000 ms "
              "(resume.retry_for): gave up");
    EXPECT_EQ(gave_up_text("write failed", milliseconds(500), "cannot connect"),
              "write failed; no acknowledged progress for 500 ms (resume.retry_for): "
              "cannot connect");
    EXPECT_EQ(fenced_text("connection lost", "handshake refused: fenced"),
              "connection lost; resuming refused: handshake refused: fenced");
}

}  // namespace
}  // namespace objwire::client
