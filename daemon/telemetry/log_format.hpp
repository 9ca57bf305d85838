// How objwired's log lines look, chosen from its environment once at start:
// - under systemd (JOURNAL_STREAM set), each line starts with its syslog priority in the
//   sd-daemon form ("<4>" for a warning) and carries no timestamp or name: journald adds both,
//   and sorts by the priority (`journalctl -p warning`); each line of a multi-line message
//   carries it;
// - on a terminal, the level is coloured unless NO_COLOR is set (https://no-color.org);
// - otherwise, plain lines with a timestamp in local time with its UTC offset
//   (2026-12-07T10:55:01.123+01:00), so lines from hosts in other zones compare.
#pragma once

#include <spdlog/common.h>

#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace spdlog {
class formatter;
class logger;
}  // namespace spdlog

namespace objwire::daemon {

enum class log_style { journal, color, plain };

// `getenv` reads the environment (a stand-in in tests); `terminal`: stderr is a tty.
log_style choose_log_style(const std::function<const char*(const char*)>& getenv, bool terminal);

// The syslog priority of a level: 7 debug (and trace), 6 info, 4 warning, 3 error, 2 critical.
int syslog_priority(spdlog::level::level_enum level);

// `text` for journald at `priority`: every line of it starts with "<priority>", so a
// multi-line error is filed as an error throughout, not its first line alone.
std::string journal_lines(int priority, std::string_view text);

// The line format of `style`, for a program called `name`.
std::unique_ptr<spdlog::formatter> make_log_formatter(const std::string& name, log_style style);

// A logger named `name` writing to stderr in `style`.
std::shared_ptr<spdlog::logger> make_stderr_logger(const std::string& name, log_style style);

}  // namespace objwire::daemon
