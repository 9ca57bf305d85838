// The accept loop's answer to failed accepts: out of descriptors it pauses, longer while it
// lasts, and asks for one log line per second with the count; a peer's own failure is
// retried at once.
#include "daemon/serve/accept_backoff.hpp"

#include <gtest/gtest.h>

#include <asio.hpp>

#include <cerrno>

namespace objwire::daemon {
namespace {

using std::chrono::milliseconds;

const std::error_code emfile(EMFILE, std::generic_category());

TEST(AcceptBackoff, OutOfDescriptorsPausesLongerAndLogsOncePerInterval) {
    accept_backoff b;
    auto now = accept_backoff::clock::time_point{} + std::chrono::hours(1);
    int lines = 0;
    std::uint64_t reported = 0;
    std::vector<milliseconds> pauses;
    // 10,000 failures within 2.5 s: three lines (at 0, 1 s, 2 s), every failure counted.
    for (int i = 0; i < 10'000; ++i) {
        const auto d = b.on_error(emfile, now + milliseconds(i / 4));
        if (i < 6) pauses.push_back(d.pause);
        if (d.log) {
            ++lines;
            reported += d.failures;
        }
    }
    EXPECT_EQ(lines, 3);
    EXPECT_LE(reported, 10'000u);
    EXPECT_GT(reported, 10'000u - 2'600u);  // what came after the last line is still owed
    EXPECT_EQ(pauses[0], accept_backoff::first_pause);
    EXPECT_EQ(pauses[1], accept_backoff::first_pause * 2);
    EXPECT_EQ(pauses[5], accept_backoff::max_pause);
    // A success ends the run, says how long it was, and the next failure pauses from the first
    // pause again; its line waits for the interval since the last one (at 2 s), so a success
    // between failures - a descriptor freed for a moment - cannot multiply the lines.
    EXPECT_EQ(b.on_success(), 10'000u);
    auto d = b.on_error(emfile, now + milliseconds(2600));
    EXPECT_FALSE(d.log);
    EXPECT_EQ(d.pause, accept_backoff::first_pause);
    EXPECT_EQ(b.on_success(), 1u);
    d = b.on_error(emfile, now + milliseconds(3000));
    EXPECT_TRUE(d.log);
    EXPECT_EQ(d.failures, 1u) << "the failures counted since the last line, not before a success";
    EXPECT_EQ(d.pause, accept_backoff::first_pause);
}

TEST(AcceptBackoff, APeersOwnFailureIsRetriedAtOnce) {
    accept_backoff b;
    const auto d = b.on_error(std::make_error_code(std::errc::connection_aborted),
                              accept_backoff::clock::now());
    EXPECT_LE(d.pause, milliseconds(1));
    EXPECT_TRUE(d.log);
    EXPECT_TRUE(accept_backoff::exhausted(std::error_code(ENFILE, std::generic_category())));
    EXPECT_FALSE(accept_backoff::exhausted(std::make_error_code(std::errc::connection_aborted)));
    // As asio reports it.
    EXPECT_TRUE(accept_backoff::exhausted(asio::error::no_descriptors));
    EXPECT_FALSE(accept_backoff::exhausted(asio::error::connection_aborted));
}

// Out of descriptors with connections waiting for their hello: the oldest is shed and the
// accept tried again at once; the failure is not one of the run's (no line, no longer pause).
TEST(AcceptBackoff, OutOfDescriptorsWithConnectionsWaitingForTheirHelloShedsTheOldest) {
    accept_backoff b;
    const auto now = accept_backoff::clock::now();
    for (int i = 0; i < 100; ++i) {
        const auto d = b.on_error(emfile, now, {.waiting_for_hello = 3, .spare_held = true});
        EXPECT_EQ(d.relieve, accept_backoff::relief::shed_waiting);
        EXPECT_EQ(d.pause, accept_backoff::shed_wait)
            << "at most: until the shed descriptor is free";
        EXPECT_FALSE(d.log);
    }
    EXPECT_EQ(b.on_success(), 0u) << "shedding is no failed run";
    // None waiting: the spare is spent on a refusal, and the pause and the line are the run's.
    const auto d = b.on_error(emfile, now, {.waiting_for_hello = 0, .spare_held = true});
    EXPECT_EQ(d.relieve, accept_backoff::relief::refuse_with_spare);
    EXPECT_EQ(d.pause, accept_backoff::first_pause);
    EXPECT_TRUE(d.log);
    // No spare (a refused socket still holds it): only the pause.
    EXPECT_EQ(b.on_error(emfile, now, {.waiting_for_hello = 0, .spare_held = false}).relieve,
              accept_backoff::relief::none);
    // A peer's own failure frees nothing: nobody is shed for it.
    EXPECT_EQ(b.on_error(std::make_error_code(std::errc::connection_aborted), now,
                         {.waiting_for_hello = 3, .spare_held = true})
                  .relieve,
              accept_backoff::relief::none);
}

// None waiting for its hello but a sender idle long enough: it is shed rather than the
// newcomer refused, and that is no failed run either; a connection waiting comes first.
TEST(AcceptBackoff, OutOfDescriptorsWithNoneWaitingAnIdleSenderIsShed) {
    accept_backoff b;
    const auto now = accept_backoff::clock::now();
    const auto d = b.on_error(emfile, now, {.spare_held = true, .idle_sender = true});
    EXPECT_EQ(d.relieve, accept_backoff::relief::shed_idle);
    EXPECT_EQ(d.pause, accept_backoff::shed_wait);
    EXPECT_FALSE(d.log);
    EXPECT_EQ(b.on_error(emfile, now, {.waiting_for_hello = 1, .idle_sender = true}).relieve,
              accept_backoff::relief::shed_waiting);
    EXPECT_EQ(b.on_success(), 0u);
    EXPECT_EQ(
        b.on_error(std::make_error_code(std::errc::connection_aborted), now, {.idle_sender = true})
            .relieve,
        accept_backoff::relief::none);
}

}  // namespace
}  // namespace objwire::daemon
