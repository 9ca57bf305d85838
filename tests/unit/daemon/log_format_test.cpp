// objwired's log lines as journald, a terminal and a file see them
// (daemon/telemetry/log_format.hpp).
#include "daemon/telemetry/log_format.hpp"

#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <map>
#include <sstream>

namespace objwire::daemon {
namespace {

auto env(std::map<std::string, std::string> vars) {
    return [vars = std::move(vars)](const char* name) -> const char* {
        const auto it = vars.find(name);
        return it == vars.end() ? nullptr : it->second.c_str();
    };
}

TEST(LogFormat, JournalStreamWinsOverTheTerminal) {
    EXPECT_EQ(choose_log_style(env({{"JOURNAL_STREAM", "8:1234"}}), true), log_style::journal);
    EXPECT_EQ(choose_log_style(env({}), true), log_style::color);
    EXPECT_EQ(choose_log_style(env({}), false), log_style::plain);
}

TEST(LogFormat, NoColorIsHonouredWhenSet) {
    EXPECT_EQ(choose_log_style(env({{"NO_COLOR", "1"}}), true), log_style::plain);
    // no-color.org: an empty NO_COLOR does not count.
    EXPECT_EQ(choose_log_style(env({{"NO_COLOR", ""}}), true), log_style::color);
}

TEST(LogFormat, PrioritiesAreSyslogs) {
    EXPECT_EQ(syslog_priority(spdlog::level::critical), 2);
    EXPECT_EQ(syslog_priority(spdlog::level::err), 3);
    EXPECT_EQ(syslog_priority(spdlog::level::warn), 4);
    EXPECT_EQ(syslog_priority(spdlog::level::info), 6);
    EXPECT_EQ(syslog_priority(spdlog::level::debug), 7);
    EXPECT_EQ(syslog_priority(spdlog::level::trace), 7);
}

// The logger's formatter, applied to an in-memory sink.
std::string logged(log_style style, spdlog::level::level_enum level, const std::string& text) {
    std::ostringstream out;
    auto sink = std::make_shared<spdlog::sinks::ostream_sink_st>(out);
    sink->set_formatter(make_log_formatter("objwired", style));
    spdlog::logger logger("memory", sink);
    logger.log(level, text);
    return out.str();
}

TEST(LogFormat, JournalLinesStartWithThePriorityAndCarryNothingElse) {
    EXPECT_EQ(logged(log_style::journal, spdlog::level::warn, "disk filling"), "<4>disk filling\n");
    EXPECT_EQ(logged(log_style::journal, spdlog::level::err, "x"), "<3>x\n");
    EXPECT_EQ(logged(log_style::journal, spdlog::level::info, "y"), "<6>y\n");
}

TEST(LogFormat, EveryLineOfAMultiLineMessageCarriesThePriority) {
    // journald files a line without a prefix at info: `journalctl -p warning` would miss it.
    EXPECT_EQ(logged(log_style::journal, spdlog::level::err, "bad file\n  line 3\n  line 4"),
              "<3>bad file\n<3>  line 3\n<3>  line 4\n");
    EXPECT_EQ(journal_lines(4, "a\nb"), "<4>a\n<4>b");
    EXPECT_EQ(journal_lines(6, ""), "<6>");
}

TEST(LogFormat, PlainTimestampsCarryTheirUtcOffset) {
    const auto line = logged(log_style::plain, spdlog::level::info, "x");
    // 2026-12-07T10:55:01.123+01:00 info objwired: x
    ASSERT_GE(line.size(), 29u) << line;
    EXPECT_TRUE(line[23] == '+' || line[23] == '-') << line;
    EXPECT_EQ(line[26], ':') << line;
    EXPECT_EQ(line.substr(29), " info objwired: x\n") << line;
}

TEST(LogFormat, PlainLinesHaveATimestampLevelAndNameButNoColour) {
    const auto line = logged(log_style::plain, spdlog::level::warn, "disk filling");
    EXPECT_NE(line.find(" warning objwired: disk filling\n"), std::string::npos) << line;
    EXPECT_EQ(line.find('\x1b'), std::string::npos) << line;
}

}  // namespace
}  // namespace objwire::daemon
