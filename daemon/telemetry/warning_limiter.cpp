// Repeated peer warnings summarised per kind and interval (daemon/telemetry/warning_limiter.hpp).
#include "daemon/telemetry/warning_limiter.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace objwire::daemon {

std::string_view warning_name(warning_kind kind) {
    switch (kind) {
        case warning_kind::bad_hello:
            return "bad hello";
        case warning_kind::bad_frame:
            return "bad frame";
        case warning_kind::refused_at_cap:
            return "refused at a connection cap";
        case warning_kind::handshake_timeout:
            return "handshake timeout";
        case warning_kind::refused_access:
            return "access refused";
    }
    return "peer";
}

std::string warning_limiter::summary::text() const {
    const double seconds = std::chrono::duration<double>(interval).count();
    return fmt::format("... and {} more '{}' warning{} in the last {:g} s", suppressed,
                       warning_name(kind), suppressed == 1 ? "" : "s", seconds);
}

warning_limiter::warning_limiter(std::uint32_t burst, clock::duration interval)
    : burst_(burst), interval_(interval) {}

void warning_limiter::close_if_over(std::size_t index, clock::time_point now,
                                    std::vector<summary>& out) {
    auto& w = windows_[index];
    if (!w.open || now < w.start + interval_) return;
    if (w.suppressed > 0)
        out.push_back({static_cast<warning_kind>(index), w.suppressed, interval_});
    w = window{};
}

bool warning_limiter::admit(warning_kind kind, clock::time_point now) {
    if (burst_ == 0) return true;
    const auto index = static_cast<std::size_t>(kind);
    close_if_over(index, now, pending_);
    auto& w = windows_[index];
    if (!w.open) {
        w.open = true;
        w.start = now;
    }
    if (w.logged < burst_) {
        ++w.logged;
        return true;
    }
    ++w.suppressed;
    return false;
}

std::vector<warning_limiter::summary> warning_limiter::due(clock::time_point now) {
    auto out = std::move(pending_);
    pending_.clear();
    for (std::size_t i = 0; i < windows_.size(); ++i)
        close_if_over(i, now, out);
    return out;
}

std::optional<warning_limiter::clock::time_point> warning_limiter::next_due() const {
    std::optional<clock::time_point> next;
    if (!pending_.empty()) next = clock::time_point::min();
    for (const auto& w : windows_) {
        if (!w.open || w.suppressed == 0) continue;
        const auto end = w.start + interval_;
        if (!next || end < *next) next = end;
    }
    return next;
}

std::vector<warning_limiter::summary> warning_limiter::flush(clock::time_point now) {
    auto out = std::move(pending_);
    pending_.clear();
    for (std::size_t i = 0; i < windows_.size(); ++i) {
        auto& w = windows_[i];
        if (w.open && w.suppressed > 0)
            out.push_back(
                {static_cast<warning_kind>(i), w.suppressed, std::min(now - w.start, interval_)});
        w = window{};
    }
    return out;
}

}  // namespace objwire::daemon
