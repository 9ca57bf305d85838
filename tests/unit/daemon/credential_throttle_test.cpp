// Failed credentials slowed per address, by a fake clock: the burst, then the rate, and other
// addresses untouched.
#include "daemon/serve/credential_throttle.hpp"

#include <gtest/gtest.h>

namespace objwire::daemon {
namespace {

using namespace std::chrono_literals;
using clock = credential_throttle::clock;

// Tries `n` wrong credentials from `address` at `now`; how many were checked.
int attempts(credential_throttle& t, const std::string& address, int n, clock::time_point now) {
    int checked = 0;
    for (int i = 0; i < n; ++i) {
        if (!t.may_check(address, now)) continue;
        ++checked;
        t.failed(address, now);
    }
    return checked;
}

TEST(CredentialThrottle, ABurstThenTheRateThenAPause) {
    credential_throttle t({10, 1, 4096});
    const auto t0 = clock::time_point{} + 1h;
    EXPECT_EQ(attempts(t, "10.0.0.9", 1000, t0), 10);
    clock::duration wait{};
    EXPECT_FALSE(t.may_check("10.0.0.9", t0, &wait));
    EXPECT_EQ(std::chrono::duration_cast<std::chrono::milliseconds>(wait), 1000ms);
    EXPECT_EQ(attempts(t, "10.0.0.9", 1000, t0 + 500ms), 0);
    EXPECT_EQ(attempts(t, "10.0.0.9", 1000, t0 + 1s), 1);
    // 1,000 attempts spread over 60 s: at most the burst and one a second get checked.
    int checked = 0;
    for (int ms = 1000; ms < 61000; ms += 60)
        checked += attempts(t, "10.0.0.9", 1, t0 + std::chrono::milliseconds(ms));
    EXPECT_LE(checked, 60);
    EXPECT_GE(checked, 59);
}

TEST(CredentialThrottle, OtherAddressesAreNotSlowed) {
    credential_throttle t({10, 1, 4096});
    const auto t0 = clock::time_point{} + 1h;
    attempts(t, "10.0.0.9", 1000, t0);
    EXPECT_TRUE(t.may_check("10.0.0.10", t0));
    EXPECT_EQ(attempts(t, "10.0.0.10", 10, t0), 10);
}

TEST(CredentialThrottle, AnAddressIsForgivenOnceItsAllowanceIsWholeAndTheTableStaysBounded) {
    credential_throttle t({10, 1, 100});
    const auto t0 = clock::time_point{} + 1h;
    for (int i = 0; i < 1000; ++i)
        t.failed("10.1." + std::to_string(i / 256) + "." + std::to_string(i % 256), t0);
    EXPECT_LE(t.tracked(), 100u);
    attempts(t, "10.0.0.9", 100, t0);
    EXPECT_EQ(attempts(t, "10.0.0.9", 100, t0 + 10s), 10);
}

}  // namespace
}  // namespace objwire::daemon
