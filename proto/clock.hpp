// The monotonic clock the sans-I/O state machines time their own work with (compression,
// decompression). Passed in as a function so tests can run on a fake clock.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>

namespace objwire {

using clock_function = std::function<std::uint64_t()>;  // nanoseconds, monotonic

inline std::uint64_t steady_now_ns() {
    return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                          std::chrono::steady_clock::now().time_since_epoch())
                                          .count());
}

}  // namespace objwire
