// How long `send` waits, after SIGINT or SIGTERM, for the acknowledgements of what it sent:
// while they come, up to `longest` in all, and no longer than `quiet` without one - a daemon
// that answers acknowledges within milliseconds, and one that has gone silent (stopped, its
// disk full, a relay whose next hop stalls) would otherwise hold a stopped `send` for the whole
// grace. No I/O and no clock of its own: the caller says when.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>

namespace objwire::client {

class interrupt_grace {
  public:
    using clock = std::chrono::steady_clock;
    static constexpr std::chrono::milliseconds longest{5000};
    static constexpr std::chrono::milliseconds quiet{500};

    interrupt_grace(std::uint64_t acked, clock::time_point now)
        : end_(now + longest), last_progress_(now), acked_(acked) {}

    // Whether to wait on at `now`, with `acked` of the `sent` objects acknowledged.
    bool waiting(std::uint64_t acked, std::uint64_t sent, clock::time_point now) {
        if (acked >= sent) return false;
        if (acked > acked_) {
            acked_ = acked;
            last_progress_ = now;
        }
        return now < deadline();
    }

    // How long the next wait for an acknowledgement may last at `now` (at least 1 ms).
    std::chrono::milliseconds next_wait(clock::time_point now) const {
        const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline() - now);
        return std::max(left, std::chrono::milliseconds(1));
    }

  private:
    clock::time_point deadline() const { return std::min(end_, last_progress_ + quiet); }

    clock::time_point end_;
    clock::time_point last_progress_;
    std::uint64_t acked_;
};

}  // namespace objwire::client
