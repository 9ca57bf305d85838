// How objwired's log lines look, chosen from its environment once at start:
// - under systemd (JOURNAL_STREAM set), each line starts with its syslog priority in the
//   sd-daemon form ("<4>" for a warning) and carries no timestamp or name: journald adds both,
//   and sorts by the priority (`journalctl -p warning`);
// - on a terminal, the level is coloured unless NO_COLOR is set (https://no-color.org);
// - otherwise, plain lines with a timestamp.
#pragma once

#include <spdlog/common.h>

#include <functional>
#include <memory>
#include <string>

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

// The line format of `style`, for a program called `name`.
std::unique_ptr<spdlog::formatter> make_log_formatter(const std::string& name, log_style style);

// A logger named `name` writing to stderr in `style`.
std::shared_ptr<spdlog::logger> make_stderr_logger(const std::string& name, log_style style);

}  // namespace objwire::daemon
