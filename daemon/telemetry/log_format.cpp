#include "daemon/telemetry/log_format.hpp"

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

namespace objwire::daemon {
namespace {

// "%*" in a pattern: the message, each of its lines after "<N>", the sd-daemon prefix
// journald reads the priority from.
class journal_message_flag final : public spdlog::custom_flag_formatter {
  public:
    void format(const spdlog::details::log_msg& msg, const std::tm&,
                spdlog::memory_buf_t& dest) override {
        const auto text = journal_lines(syslog_priority(msg.level),
                                        std::string_view(msg.payload.data(), msg.payload.size()));
        dest.append(text.data(), text.data() + text.size());
    }
    std::unique_ptr<custom_flag_formatter> clone() const override {
        return std::make_unique<journal_message_flag>();
    }
};

}  // namespace

log_style choose_log_style(const std::function<const char*(const char*)>& getenv, bool terminal) {
    const auto set = [&](const char* name) {
        const char* v = getenv(name);
        return v != nullptr && *v != '\0';
    };
    if (set("JOURNAL_STREAM")) return log_style::journal;
    return terminal && !set("NO_COLOR") ? log_style::color : log_style::plain;
}

std::string journal_lines(int priority, std::string_view text) {
    const std::string prefix = "<" + std::to_string(priority) + ">";
    std::string out;
    out.reserve(text.size() + prefix.size());
    for (std::size_t start = 0;;) {
        const auto end = text.find('\n', start);
        out += prefix;
        out += text.substr(start, end - start);
        if (end == std::string_view::npos) break;
        out += '\n';
        start = end + 1;
    }
    return out;
}

int syslog_priority(spdlog::level::level_enum level) {
    switch (level) {
        case spdlog::level::critical:
            return 2;
        case spdlog::level::err:
            return 3;
        case spdlog::level::warn:
            return 4;
        case spdlog::level::info:
            return 6;
        default:
            return 7;
    }
}

std::unique_ptr<spdlog::formatter> make_log_formatter(const std::string& name, log_style style) {
    auto formatter = std::make_unique<spdlog::pattern_formatter>();
    if (style == log_style::journal)
        formatter->add_flag<journal_message_flag>('*').set_pattern("%*");
    else
        formatter->set_pattern("%Y-%m-%dT%H:%M:%S.%e%z %^%l%$ " + name + ": %v");
    return formatter;
}

std::shared_ptr<spdlog::logger> make_stderr_logger(const std::string& name, log_style style) {
    auto logger =
        style == log_style::color ? spdlog::stderr_color_mt(name) : spdlog::stderr_logger_mt(name);
    logger->set_formatter(make_log_formatter(name, style));
    return logger;
}

}  // namespace objwire::daemon
