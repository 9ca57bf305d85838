// objwire::config unit parsers and printers: sizes, durations, bandwidths, HOST:PORT.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "config/settings.hpp"

namespace cfg = objwire::config;
using namespace std::chrono_literals;
using ::testing::HasSubstr;

namespace {

template <class T>
std::string error_of(const cfg::outcome<T>& o) {
    return o ? std::string("(parsed without error)") : o.error().message;
}

}  // namespace

TEST(config_units, size_good) {
    const std::vector<std::pair<std::string_view, std::uint64_t>> cases{
        {"0", 0},
        {"4096", 4096},
        {"4096B", 4096},
        {"64KiB", 64 * 1024},
        {"64kib", 64 * 1024},
        {"16MiB", 16 * 1024 * 1024},
        {"1GiB", 1024ULL * 1024 * 1024},
        {"2TiB", 2ULL << 40},
        {"64KB", 64000},
        {"3MB", 3000000},
        {"1 MiB", 1024 * 1024},
        {" 7 ", 7},
        {"18446744073709551615", 18446744073709551615ULL},
    };
    for (const auto& [text, bytes] : cases) {
        const auto r = cfg::parse_size(text);
        ASSERT_TRUE(r) << text << ": " << error_of(r);
        EXPECT_EQ(*r, bytes) << text;
    }
}

TEST(config_units, size_bad) {
    EXPECT_EQ(error_of(cfg::parse_size("")),
              "\"\" is not a valid size: it is empty (e.g. \"64KiB\")");
    EXPECT_EQ(error_of(cfg::parse_size("ten")),
              "\"ten\" is not a valid size: expected a whole number and a unit (e.g. "
              "\"64KiB\")");
    EXPECT_EQ(error_of(cfg::parse_size("-1KiB")),
              "\"-1KiB\" is not a valid size: it cannot be negative");
    EXPECT_THAT(error_of(cfg::parse_size("1.5GiB")), HasSubstr("use a whole number"));
    EXPECT_THAT(error_of(cfg::parse_size("64XB")), HasSubstr("unknown unit 'XB' (use B, KiB"));
    EXPECT_THAT(error_of(cfg::parse_size("64K")), HasSubstr("unknown unit 'K'"));
    EXPECT_THAT(error_of(cfg::parse_size("KiB")), HasSubstr("expected a whole number"));
    EXPECT_EQ(error_of(cfg::parse_size("99999999999GiB")),
              "\"99999999999GiB\" is not a valid size: it is too large");
    EXPECT_THAT(error_of(cfg::parse_size("18446744073709551616")), HasSubstr("too large"));
    EXPECT_THAT(error_of(cfg::parse_size("99999999999999999999999999")), HasSubstr("too large"));
    EXPECT_THAT(error_of(cfg::parse_size("16777216TiB")), HasSubstr("too large"));
}

TEST(config_units, duration_good) {
    const std::vector<std::pair<std::string_view, std::chrono::microseconds>> cases{
        {"5ms", 5ms},   {"2s", 2s},    {"250us", 250us},    {"1m", 1min},
        {"1min", 1min}, {"1h", 1h},    {"5000ms", 5000ms},  {"0", 0us},
        {"0ms", 0us},   {"10 s", 10s}, {"7\xC2\xB5s", 7us}, {"3MS", 3ms},
    };
    for (const auto& [text, d] : cases) {
        const auto r = cfg::parse_duration(text);
        ASSERT_TRUE(r) << text << ": " << error_of(r);
        EXPECT_EQ(*r, d) << text;
    }
}

TEST(config_units, duration_bad) {
    EXPECT_THAT(error_of(cfg::parse_duration("5 fortnights")),
                HasSubstr("\"5 fortnights\" is not a valid duration: unknown unit 'fortnights' "
                          "(use us, ms, s, m or h)"));
    EXPECT_EQ(error_of(cfg::parse_duration("5")),
              "\"5\" has no unit: write \"5s\" or \"5ms\" (a duration takes us, ms, s, m or h; "
              "only 0 goes without one)");
    EXPECT_THAT(error_of(cfg::parse_duration("-1s")), HasSubstr("cannot be negative"));
    EXPECT_THAT(error_of(cfg::parse_duration("1.5s")), HasSubstr("use a whole number"));
    EXPECT_THAT(error_of(cfg::parse_duration("s")), HasSubstr("expected a whole number"));
    EXPECT_THAT(error_of(cfg::parse_duration("99999999999999999h")), HasSubstr("too large"));
    EXPECT_THAT(error_of(cfg::parse_duration("9223372036854775808us")), HasSubstr("too large"));
    EXPECT_TRUE(cfg::parse_duration("9223372036854775807us"));
}

TEST(config_units, bandwidth_good) {
    const std::vector<std::pair<std::string_view, std::uint64_t>> cases{
        {"100Mbit", 100000000}, {"1Gbit", 1000000000},   {"10mbit", 10000000},
        {"100Mbps", 100000000}, {"1Gbit/s", 1000000000}, {"56kbit", 56000},
        {"1500", 1500},         {"1500bit", 1500},       {"2 Tbit", 2000000000000},
        {"1GBIT", 1000000000},
    };
    for (const auto& [text, bits] : cases) {
        const auto r = cfg::parse_bandwidth(text);
        ASSERT_TRUE(r) << text << ": " << error_of(r);
        EXPECT_EQ(*r, bits) << text;
    }
}

TEST(config_units, bandwidth_bad) {
    // Bytes per second with a capital B are read times 8; a lowercase "mb" is ambiguous.
    EXPECT_EQ(*cfg::parse_bandwidth("100MB/s"), 800'000'000u);
    EXPECT_EQ(*cfg::parse_bandwidth("100MBps"), 800'000'000u);
    EXPECT_EQ(*cfg::parse_bandwidth("1MiB/s"), 8u * 1024 * 1024);
    EXPECT_THAT(error_of(cfg::parse_bandwidth("100mb")),
                HasSubstr("'mb' is ambiguous: write \"100Mbit\" (bits per second) or "
                          "\"100MB/s\" (bytes per second)"));
    EXPECT_EQ(cfg::decimal_size_note("64KB"),
              "\"64KB\" is read as 64000 bytes (KB, MB, GB and TB are powers of 1000); for "
              "powers of 1024 write \"64KiB\"");
    EXPECT_EQ(cfg::format_size(64'000'000), "64MB");
    EXPECT_EQ(cfg::format_size(64 * 1024), "64KiB");
    EXPECT_THAT(error_of(cfg::parse_bandwidth("fast")), HasSubstr("expected a whole number"));
    EXPECT_THAT(error_of(cfg::parse_bandwidth("10xbit/s")),
                HasSubstr("\"10xbit/s\" is not a valid bandwidth: unknown unit 'xbit'"));
    EXPECT_THAT(error_of(cfg::parse_bandwidth("99999999999Tbit")), HasSubstr("too large"));
    EXPECT_THAT(error_of(cfg::parse_bandwidth("1.5Gbit")), HasSubstr("use a whole number"));
}

TEST(config_units, host_port_good) {
    const std::vector<std::tuple<std::string_view, std::string_view, std::uint16_t>> cases{
        {"127.0.0.1:7878", "127.0.0.1", 7878},
        {"[::1]:0", "::1", 0},
        {"localhost:9000", "localhost", 9000},
        {"[::]:65535", "::", 65535},
        {"0.0.0.0:1", "0.0.0.0", 1},
        {"my-host.example_1.com:80", "my-host.example_1.com", 80},
        {"[fe80::1%eth0]:80", "fe80::1%eth0", 80},
    };
    for (const auto& [text, host, port] : cases) {
        const auto r = cfg::parse_host_port(text);
        ASSERT_TRUE(r) << text << ": " << error_of(r);
        EXPECT_EQ(r->host, host) << text;
        EXPECT_EQ(r->port, port) << text;
    }
}

TEST(config_units, host_port_bad) {
    EXPECT_THAT(error_of(cfg::parse_host_port("")), HasSubstr("it is empty"));
    EXPECT_THAT(error_of(cfg::parse_host_port("127.0.0.1")), HasSubstr("missing ':PORT'"));
    EXPECT_THAT(error_of(cfg::parse_host_port("::1:7878")), HasSubstr("needs brackets"));
    EXPECT_THAT(error_of(cfg::parse_host_port(":7878")), HasSubstr("no host before ':7878'"));
    EXPECT_THAT(error_of(cfg::parse_host_port("host:")), HasSubstr("missing port number"));
    EXPECT_THAT(error_of(cfg::parse_host_port("host:http")), HasSubstr("is not a number"));
    EXPECT_THAT(error_of(cfg::parse_host_port("host:65536")), HasSubstr("above 65535"));
    EXPECT_THAT(error_of(cfg::parse_host_port("host:99999999999999999999")),
                HasSubstr("above 65535"));
    EXPECT_THAT(error_of(cfg::parse_host_port("[::1]")), HasSubstr("missing ':PORT' after ']'"));
    EXPECT_THAT(error_of(cfg::parse_host_port("[::1:80")), HasSubstr("missing ']'"));
    EXPECT_THAT(error_of(cfg::parse_host_port("[]:80")), HasSubstr("empty IPv6 address"));
    EXPECT_THAT(error_of(cfg::parse_host_port("[1.2.3.4]:80")), HasSubstr("IPv6 addresses only"));
    EXPECT_THAT(error_of(cfg::parse_host_port("[::g]:80")), HasSubstr("is not an IPv6 address"));
    EXPECT_THAT(error_of(cfg::parse_host_port("[::1]x:80")), HasSubstr("missing ':PORT' after"));
    EXPECT_THAT(error_of(cfg::parse_host_port("ho st:80")), HasSubstr("invalid character ' '"));
}

TEST(config_units, formatting) {
    EXPECT_EQ(cfg::format_size(16 * 1024 * 1024), "16MiB");
    EXPECT_EQ(cfg::format_size(1024ULL * 1024 * 1024), "1GiB");
    EXPECT_EQ(cfg::format_size(1536), "1536");
    EXPECT_EQ(cfg::format_size(0), "0");
    EXPECT_EQ(cfg::format_duration(5000ms), "5s");
    EXPECT_EQ(cfg::format_duration(5ms), "5ms");
    EXPECT_EQ(cfg::format_duration(250us), "250us");
    EXPECT_EQ(cfg::format_duration(90s), "90s");
    EXPECT_EQ(cfg::format_duration(120s), "2m");
    EXPECT_EQ(cfg::format_duration(0us), "0ms");
    EXPECT_EQ(cfg::format_bandwidth(100000000), "100Mbit");
    EXPECT_EQ(cfg::format_bandwidth(1500), "1500bit");
    EXPECT_EQ(cfg::format_host_port("::1", 0), "[::1]:0");
    EXPECT_EQ(cfg::format_host_port("localhost", 80), "localhost:80");
}

TEST(config_units, formatting_round_trips) {
    for (const std::uint64_t n :
         {0ULL, 1ULL, 1000ULL, 1024ULL, 3ULL << 30, 18446744073709551615ULL}) {
        EXPECT_EQ(*cfg::parse_size(cfg::format_size(n)), n);
        EXPECT_EQ(*cfg::parse_bandwidth(cfg::format_bandwidth(n)), n);
    }
    for (const std::chrono::microseconds d :
         {0us, 1us, 999us, 1000us, std::chrono::microseconds(61s), std::chrono::microseconds(3h)}) {
        EXPECT_EQ(*cfg::parse_duration(cfg::format_duration(d)), d);
    }
    const auto hp = cfg::parse_host_port(cfg::format_host_port("fe80::1", 7));
    ASSERT_TRUE(hp);
    EXPECT_EQ(*hp, (cfg::host_port{"fe80::1", 7}));
}
