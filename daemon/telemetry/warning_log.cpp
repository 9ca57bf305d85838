// The driver of the peer-warning rule (daemon/telemetry/warning_log.hpp).
#include "daemon/telemetry/warning_log.hpp"

#include <spdlog/spdlog.h>

#include <atomic>

namespace objwire::daemon {
namespace {

std::atomic<warning_log*> installed{nullptr};

}  // namespace

warning_log::warning_log(asio::io_context& io, std::uint32_t burst,
                         std::chrono::steady_clock::duration interval)
    : limiter_(burst, interval), timer_(io) {}

void warning_log::warn(warning_kind kind, const std::string& text) {
    const auto now = std::chrono::steady_clock::now();
    std::lock_guard lock(mutex_);
    // An interval that just ended is summarised before the next interval's first line.
    log_due(now);
    if (limiter_.admit(kind, now)) spdlog::warn("{}", text);
    arm();
}

void warning_log::stop() {
    std::lock_guard lock(mutex_);
    stopped_ = true;
    timer_.cancel();
    for (const auto& s : limiter_.flush(std::chrono::steady_clock::now()))
        spdlog::warn("{}", s.text());
}

void warning_log::log_due(std::chrono::steady_clock::time_point now) {
    for (const auto& s : limiter_.due(now))
        spdlog::warn("{}", s.text());
}

void warning_log::arm() {
    if (armed_ || stopped_) return;
    const auto next = limiter_.next_due();
    if (!next) return;
    armed_ = true;
    timer_.expires_at(*next);
    timer_.async_wait([this](std::error_code ec) {
        std::lock_guard lock(mutex_);
        armed_ = false;
        if (ec || stopped_) return;
        log_due(std::chrono::steady_clock::now());
        arm();
    });
}

void install_warning_log(warning_log* log) {
    installed.store(log);
}

void warn_peer(warning_kind kind, const std::string& text) {
    if (auto* log = installed.load()) {
        log->warn(kind, text);
    } else {
        spdlog::warn("{}", text);
    }
}

}  // namespace objwire::daemon
