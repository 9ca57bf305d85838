// How long a resumable connection keeps trying (resume.retry_for, `--retry-for`): the window
// counts from the last acknowledged progress, not from the last connect, so a daemon that
// welcomes every reconnect but never acknowledges - or a relay that welcomes and then loses its
// next hop - cannot keep a sender trying for ever. Progress is an ack that moved the count of
// acknowledged objects, or a moment when nothing waited for one (an idle producer has not
// failed). Also the bounded exponential backoff between reconnects. No I/O and no clock of its
// own: the connection says when.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>

#include "proto/util/backoff.hpp"

namespace objwire::client {

class retry_window {
  public:
    using clock = std::chrono::steady_clock;
    static constexpr std::chrono::milliseconds first_backoff{50};
    static constexpr std::chrono::milliseconds max_backoff{1000};

    // `length` 0: no window (the connection does not resume).
    explicit retry_window(std::chrono::milliseconds length) : length_(length) {}

    bool enabled() const { return length_.count() > 0; }
    std::chrono::milliseconds length() const { return length_; }

    // What the connection sees at `now`: `acked` objects acknowledged so far (over every
    // reconnect), and whether anything sent still waits for its ack.
    void observe(std::uint64_t acked, bool waiting, clock::time_point now) {
        if (!started_ || acked > acked_ || !waiting) {
            since_ = now;
            backoff_.reset();
        }
        started_ = true;
        acked_ = std::max(acked_, acked);
    }

    // When the window ends: retry_for after the last progress.
    clock::time_point deadline() const { return since_ + length_; }
    bool expired(clock::time_point now) const { return enabled() && now >= deadline(); }

    // How long a wait for the daemon may last at `now`: `cap`, cut to what is left of the
    // window (never below 1 ms, so a wait that starts just before the end still reads).
    std::chrono::milliseconds wait_for(std::chrono::milliseconds cap, clock::time_point now) const {
        if (!enabled()) return cap;
        const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline() - now);
        return std::clamp(left, std::chrono::milliseconds(1), cap);
    }

    // The pause before the next reconnect: 50 ms doubling to 1 s, never past the deadline.
    std::chrono::milliseconds next_pause(clock::time_point now) {
        const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline() - now);
        return std::clamp(left, std::chrono::milliseconds(0), backoff_.next());
    }

  private:
    std::chrono::milliseconds length_;
    bool started_ = false;
    std::uint64_t acked_ = 0;
    clock::time_point since_{};
    exponential_backoff backoff_{first_backoff, max_backoff};
};

}  // namespace objwire::client
