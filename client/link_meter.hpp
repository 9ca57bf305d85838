// Measures the bandwidth of a connected TCP socket from the kernel's TCP_INFO: the delivery
// rate of its latest acknowledged data (tcpi_delivery_rate), falling back to bytes acknowledged
// over time. A sample taken while something other than the network held the socket back - the
// sender had nothing to send (app-limited) or the receiver's window was full - says only that
// the link carries *at least* that much, and is marked a lower bound.
#pragma once

#include <cstdint>
#include <optional>

namespace objwire::client {

struct link_sample {
    double bits_per_second = 0;
    bool lower_bound = false;
};

class link_meter {
  public:
    // Reads TCP_INFO of `fd`; nothing when the kernel has no rate yet (or no TCP_INFO).
    // `now_ns` is a monotonic time, for the bytes-acknowledged fallback.
    std::optional<link_sample> sample(int fd, std::uint64_t now_ns);

  private:
    std::uint64_t busy_us_ = 0;   // tcpi_busy_time at the previous sample
    std::uint64_t rwnd_us_ = 0;   // tcpi_rwnd_limited at the previous sample
    std::uint64_t acked_ = 0;     // tcpi_bytes_acked at the previous sample
    std::uint64_t acked_at_ = 0;  // when it was read
};

}  // namespace objwire::client
