#include "daemon/serve/connection_guard.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace objwire::daemon {
namespace {

double seconds(std::chrono::nanoseconds d) {
    return std::chrono::duration<double>(d).count();
}

}  // namespace

void connection_guard::start(clock::time_point now) {
    started_ = true;
    last_frame_ = now;
}

void connection_guard::on_read(clock::time_point now, std::size_t n, bool in_frame,
                               bool completed) {
    if (completed) last_frame_ = now;
    if (!in_frame) {
        in_frame_ = false;
        return;
    }
    if (!in_frame_ || completed) {
        // A new frame in progress: its window starts with the bytes of it this read brought.
        in_frame_ = true;
        window_start_ = now;
        window_bytes_ = 0;
        if (!completed) window_bytes_ = n;
        return;
    }
    window_bytes_ += n;
}

void connection_guard::hold(clock::time_point now, bool held) {
    if (held_ && !held) {
        last_frame_ = now;
        window_start_ = now;
        window_bytes_ = 0;
    }
    held_ = held;
}

std::string connection_guard::check(clock::time_point now) {
    if (!started_ || held_) return "";
    if (limits_.idle_timeout.count() > 0 && !in_frame_ && now - last_frame_ >= limits_.idle_timeout)
        return fmt::format("idle: no frame for {} s (limits.idle_timeout)",
                           seconds(now - last_frame_));
    if (limits_.min_read_rate > 0 && in_frame_ && now - window_start_ >= limits_.read_rate_window) {
        const double elapsed = seconds(now - window_start_);
        const double rate = static_cast<double>(window_bytes_) / elapsed;
        if (rate < static_cast<double>(limits_.min_read_rate))
            return fmt::format(
                "too slow: a frame in progress arrived at {:.0f} bytes/s over {} s, under "
                "limits.min_read_rate {} bytes/s",
                rate, elapsed, limits_.min_read_rate);
        // Fast enough: the next window starts.
        window_start_ = now;
        window_bytes_ = 0;
    }
    return "";
}

std::chrono::milliseconds connection_guard::tick() const {
    using std::chrono::milliseconds;
    milliseconds shortest = milliseconds::max();
    if (limits_.idle_timeout.count() > 0) shortest = std::min(shortest, limits_.idle_timeout);
    if (limits_.min_read_rate > 0) shortest = std::min(shortest, limits_.read_rate_window);
    if (shortest == milliseconds::max()) return milliseconds(0);
    return std::clamp(shortest / 4, milliseconds(10), milliseconds(1000));
}

}  // namespace objwire::daemon
