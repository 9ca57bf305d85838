// The rule that summarises repeated peer warnings (daemon/telemetry/warning_limiter.hpp), on a fake
// clock: the first few of a kind per interval in full, the rest counted, one summary per kind
// when the interval ends.
#include "daemon/telemetry/warning_limiter.hpp"

#include <gtest/gtest.h>

namespace objwire::daemon {
namespace {

using namespace std::chrono_literals;
using clock = warning_limiter::clock;

const clock::time_point t0{};

TEST(warning_limiter, the_first_of_an_interval_are_logged_then_counted) {
    warning_limiter limiter(3, 10s);
    int logged = 0;
    for (int i = 0; i < 300; ++i)
        logged += limiter.admit(warning_kind::bad_hello, t0 + i * 10ms) ? 1 : 0;
    EXPECT_EQ(logged, 3);
    EXPECT_TRUE(limiter.due(t0 + 9s).empty()) << "the interval is not over";
    ASSERT_EQ(limiter.next_due(), t0 + 10s);
    const auto summaries = limiter.due(t0 + 10s);
    ASSERT_EQ(summaries.size(), 1u);
    EXPECT_EQ(summaries[0].suppressed, 297u);
    EXPECT_EQ(summaries[0].text(), "... and 297 more 'bad hello' warnings in the last 10 s");
    EXPECT_TRUE(limiter.due(t0 + 20s).empty()) << "summarised once";
    EXPECT_FALSE(limiter.next_due());
}

TEST(warning_limiter, kinds_are_limited_apart) {
    warning_limiter limiter(2, 10s);
    EXPECT_TRUE(limiter.admit(warning_kind::bad_hello, t0));
    EXPECT_TRUE(limiter.admit(warning_kind::bad_hello, t0));
    EXPECT_FALSE(limiter.admit(warning_kind::bad_hello, t0));
    EXPECT_TRUE(limiter.admit(warning_kind::refused_at_cap, t0 + 1s));
    EXPECT_TRUE(limiter.admit(warning_kind::refused_at_cap, t0 + 1s));
    EXPECT_FALSE(limiter.admit(warning_kind::refused_at_cap, t0 + 1s));
    EXPECT_FALSE(limiter.admit(warning_kind::refused_at_cap, t0 + 1s));
    EXPECT_EQ(limiter.next_due(), t0 + 10s);
    auto first = limiter.due(t0 + 10s);
    ASSERT_EQ(first.size(), 1u);
    EXPECT_EQ(first[0].kind, warning_kind::bad_hello);
    EXPECT_EQ(first[0].text(), "... and 1 more 'bad hello' warning in the last 10 s");
    auto second = limiter.due(t0 + 11s);
    ASSERT_EQ(second.size(), 1u);
    EXPECT_EQ(second[0].kind, warning_kind::refused_at_cap);
    EXPECT_EQ(second[0].suppressed, 2u);
}

TEST(warning_limiter, a_new_interval_logs_in_full_again) {
    warning_limiter limiter(1, 10s);
    EXPECT_TRUE(limiter.admit(warning_kind::bad_frame, t0));
    EXPECT_FALSE(limiter.admit(warning_kind::bad_frame, t0 + 1s));
    // The next warning after the interval opens a new one; the old one's summary is kept for
    // due(), which gives it before anything of the new interval is summarised.
    EXPECT_TRUE(limiter.admit(warning_kind::bad_frame, t0 + 12s));
    EXPECT_EQ(limiter.next_due(), clock::time_point::min());
    const auto summaries = limiter.due(t0 + 12s);
    ASSERT_EQ(summaries.size(), 1u);
    EXPECT_EQ(summaries[0].suppressed, 1u);
    EXPECT_FALSE(limiter.admit(warning_kind::bad_frame, t0 + 13s));
    EXPECT_EQ(limiter.next_due(), t0 + 22s);
}

TEST(warning_limiter, an_interval_without_extra_warnings_needs_no_summary) {
    warning_limiter limiter(5, 10s);
    for (int i = 0; i < 5; ++i)
        EXPECT_TRUE(limiter.admit(warning_kind::handshake_timeout, t0 + i * 1s));
    EXPECT_FALSE(limiter.next_due());
    EXPECT_TRUE(limiter.due(t0 + 60s).empty());
}

TEST(warning_limiter, flush_gives_every_pending_summary_for_the_time_it_covers) {
    warning_limiter limiter(1, 10s);
    limiter.admit(warning_kind::refused_access, t0);
    limiter.admit(warning_kind::refused_access, t0 + 1s);
    limiter.admit(warning_kind::refused_access, t0 + 2s);
    const auto summaries = limiter.flush(t0 + 4s);
    ASSERT_EQ(summaries.size(), 1u);
    EXPECT_EQ(summaries[0].text(), "... and 2 more 'access refused' warnings in the last 4 s");
    EXPECT_FALSE(limiter.next_due());
    EXPECT_TRUE(limiter.flush(t0 + 5s).empty());
}

TEST(warning_limiter, burst_zero_logs_everything) {
    warning_limiter limiter(0, 10s);
    for (int i = 0; i < 100; ++i)
        EXPECT_TRUE(limiter.admit(warning_kind::bad_hello, t0));
    EXPECT_FALSE(limiter.next_due());
}

}  // namespace
}  // namespace objwire::daemon
