// A relay's view of its next hop: down after a failed connect, new streams refused with the
// cause and a retry-after until the next attempt is due, attempts backing off to a bound, and
// one log line per interval with the counts.
#include "daemon/sinks/hop_health.hpp"

#include <gtest/gtest.h>

#include <objwire/connection.hpp>

#include "proto/errors.hpp"

namespace objwire::daemon {
namespace {

using std::chrono::milliseconds;
const auto health_t0 = hop_health::clock::time_point{} + std::chrono::hours(1);

TEST(HopHealth, AdmitsWhileTheHopIsNotKnownDown) {
    hop_health h("127.0.0.1:9");
    for (int i = 0; i < 100; ++i)
        EXPECT_TRUE(h.admit(health_t0 + milliseconds(i)).admit);
    EXPECT_FALSE(h.take_log(health_t0).has_value());
}

TEST(HopHealth, RefusesWithTheCauseAndARetryAfterUntilTheNextAttempt) {
    hop_health h("127.0.0.1:9");
    h.on_failure("cannot connect to 127.0.0.1:9: Connection refused", health_t0);
    auto a = h.admit(health_t0 + milliseconds(30));
    EXPECT_FALSE(a.admit);
    EXPECT_EQ(a.retry_after, hop_health::first_pause - milliseconds(30));
    EXPECT_NE(a.why.find("next hop 127.0.0.1:9 is unavailable"), std::string::npos) << a.why;
    EXPECT_NE(a.why.find("Connection refused"), std::string::npos) << a.why;
    EXPECT_NE(a.why.find("retry after 70 ms"), std::string::npos) << a.why;
    // The attempt is due: one stream goes through to try the hop; the next waits again.
    EXPECT_TRUE(h.admit(health_t0 + hop_health::first_pause).admit);
    EXPECT_FALSE(h.admit(health_t0 + hop_health::first_pause + milliseconds(1)).admit);
}

TEST(HopHealth, AttemptsBackOffToABoundAndASuccessEndsTheRun) {
    hop_health h("h:1");
    std::vector<milliseconds> pauses;
    for (int i = 0; i < 10; ++i) {
        h.on_failure("refused", health_t0);
        pauses.push_back(h.pause());
    }
    EXPECT_EQ(pauses[0], hop_health::first_pause);
    EXPECT_EQ(pauses[1], hop_health::first_pause * 2);
    EXPECT_EQ(pauses[9], hop_health::max_pause);
    EXPECT_EQ(h.on_success(), 10u);
    EXPECT_FALSE(h.down());
    EXPECT_TRUE(h.admit(health_t0).admit);
    h.on_failure("refused", health_t0);
    EXPECT_EQ(h.pause(), hop_health::first_pause);  // a new run starts from the first pause
}

TEST(HopHealth, LogsOncePerIntervalWithTheCounts) {
    hop_health h("h:1");
    int lines = 0;
    std::string first;
    // 20 s of a stream refused every millisecond and a failed attempt whenever one is due.
    for (int ms = 0; ms < 20'000; ++ms) {
        const auto now = health_t0 + milliseconds(ms);
        if (ms == 0 || h.admit(now).admit) h.on_failure("Connection refused", now);
        if (auto line = h.take_log(now)) {
            if (lines++ == 0) first = *line;
        }
    }
    EXPECT_EQ(lines, 4);  // at 0, 5, 10 and 15 s
    EXPECT_NE(first.find("1 connect attempts failed"), std::string::npos) << first;
    EXPECT_NE(first.find("Connection refused"), std::string::npos) << first;
}

TEST(HopHealth, OnlyFailuresToReachTheHopMarkItDown) {
    using client::client_errc;
    for (auto ec :
         {make_error_code(client_errc::connect_failed),
          make_error_code(client_errc::connection_lost), make_error_code(client_errc::timed_out),
          make_error_code(proto_errc::not_available),
          make_error_code(proto_errc::too_many_connections),
          make_error_code(proto_errc::unauthorized)})
        EXPECT_TRUE(hop_unreachable(ec)) << ec.message();
    for (auto ec :
         {make_error_code(proto_errc::sender_fenced), make_error_code(proto_errc::sender_busy),
          make_error_code(proto_errc::store_limit_exceeded),
          make_error_code(client_errc::input_mismatch), std::error_code{}})
        EXPECT_FALSE(hop_unreachable(ec)) << ec.message();
}

}  // namespace
}  // namespace objwire::daemon
