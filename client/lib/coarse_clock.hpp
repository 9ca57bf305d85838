// The kernel's coarse monotonic clock: a few nanoseconds a reading, ticks of 1-4 ms. For checks
// that run on every message (batch linger, progress redraws), where the precise clock would cost
// more than the check itself.
#pragma once

#include <cstdint>
#include <ctime>

namespace objwire::client {

inline std::uint64_t coarse_now_ns() {
    timespec ts{};
    ::clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000u +
           static_cast<std::uint64_t>(ts.tv_nsec);
}

}  // namespace objwire::client
