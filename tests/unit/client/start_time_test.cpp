// `read --from @TIME` and `--since DURATION` (client/cli/start_time.hpp): what each text means
// in milliseconds since the epoch, and every malformed one refused.
#include <gtest/gtest.h>

#include "client/cli/start_time.hpp"

namespace objwire::client {
namespace {

TEST(StartTime, IsoTimesInUtcAndWithOffsets) {
    // 2026-12-01T10:00:00Z = 1796119200 s since the epoch.
    EXPECT_EQ(parse_start_time("2026-12-01T10:00:00Z"), 1796119200000u);
    EXPECT_EQ(parse_start_time("2026-12-01 10:00:00Z"), 1796119200000u);
    EXPECT_EQ(parse_start_time("2026-12-01T10:00:00.250Z"), 1796119200250u);
    EXPECT_EQ(parse_start_time("2026-12-01T11:30:00+01:30"), 1796119200000u);
    EXPECT_EQ(parse_start_time("2026-12-01T05:00:00-05:00"), 1796119200000u);
    EXPECT_EQ(parse_start_time("1970-01-01T00:00:00Z"), 0u);
    EXPECT_EQ(parse_start_time("2024-02-29T00:00:00Z"), 1709164800000u);  // a leap day
}

TEST(StartTime, MillisecondsSinceTheEpoch) {
    EXPECT_EQ(parse_start_time("1764583200123"), 1764583200123u);
    EXPECT_EQ(parse_start_time("99999999999999999999"), std::nullopt);  // past 2^64
}

TEST(StartTime, MalformedTimesAreRefused) {
    for (const char* bad :
         {"", "2026-12-01", "2026-12-01T10:00:00", "2026-13-01T10:00:00Z", "2026-02-30T10:00:00Z",
          "2026-12-01T24:00:00Z", "2026-12-01T10:60:00Z", "2026-12-01T10:00:00.5Z",
          "2026-12-01T10:00:00+1:00", "2026-12-01T10:00:00Z ", "1969-12-31T23:59:59Z",
          "1970-01-01T00:30:00+01:00", "-5", "12ab", "2026-12-01T10:00:00+24:00"})
        EXPECT_EQ(parse_start_time(bad), std::nullopt) << bad;
}

TEST(StartTime, SinceCountsBackFromNow) {
    const std::uint64_t now = 1796119200000;
    EXPECT_EQ(parse_since("10m", now), now - 600'000);
    EXPECT_EQ(parse_since("90s", now), now - 90'000);
    EXPECT_EQ(parse_since("2h", now), now - 7'200'000);
    EXPECT_EQ(parse_since("500ms", now), now - 500);
    EXPECT_EQ(parse_since("1d", now), now - 86'400'000);
    // Further back than the epoch: from the oldest (1 ms, as 0 means "not by time").
    EXPECT_EQ(parse_since("1d", 1000), 1u);
    for (const char* bad : {"", "0", "0s", "10", "ten minutes", "-5m", "d", "1.5h", "5x"})
        EXPECT_EQ(parse_since(bad, now), std::nullopt) << bad;
}

}  // namespace
}  // namespace objwire::client
