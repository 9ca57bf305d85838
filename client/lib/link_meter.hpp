// Measures the bandwidth of a connected TCP socket from the kernel's TCP_INFO: the delivery
// rate of its latest acknowledged data (tcpi_delivery_rate), and bytes acknowledged over time.
// A delivery rate taken while the network was the limit is a full sample: the connection had
// data in flight for most of the time since the previous reading, and neither the kernel nor
// the receiver's window says something else held it back. Otherwise - the sender had nothing
// to send most of the time (app-limited; on loopback acks return within microseconds, so a
// sender that produces slower than the link leaves it idle between frames), or the receiver's
// window was full - the link carries *at least* what it delivered: a lower bound, and that is
// taken from bytes acknowledged over a window of bound_window_ns, not from the delivery rate:
// an idle shaper's burst passes at the speed of the wire beneath it (on a shaped loopback, 10-30
// Gbit/s from a 1 Gbit/s token bucket), and a sender that compresses is idle often enough that
// such bursts would pass for a faster link (docs/COMPRESSION.md).
#pragma once

#include <cstdint>
#include <optional>

namespace objwire::client {

struct link_sample {
    double bits_per_second = 0;
    bool lower_bound = false;
};

// The TCP_INFO fields the meter uses, as the kernel keeps them (cumulative where they count).
struct tcp_counters {
    std::uint64_t delivery_rate = 0;      // bytes/s of the latest acknowledged data; 0: none yet
    bool app_limited = false;             // that rate was measured while we had nothing to send
    std::uint64_t busy_us = 0;            // time with data in flight, sending
    std::uint64_t rwnd_limited_us = 0;    // ... held back by the receiver's window
    std::uint64_t sndbuf_limited_us = 0;  // ... held back by our send buffer
    std::uint64_t bytes_acked = 0;
};

class link_meter {
  public:
    // Lower bounds average the bytes acknowledged over at least this long. A token bucket's
    // burst B at rate R inflates a window of W to R (1 + B / (R W)): link.sh's bucket (32 KiB,
    // or 1 ms of the rate) gives at most 1.7x at 10 Mbit/s and 1.02x at 1 Gbit/s over 50 ms -
    // under the policy's factor 2 before a lower bound raises its estimate.
    static constexpr std::uint64_t bound_window_ns = 50'000'000;
    // A delivery rate is a full sample only if data was in flight for at least this share of
    // the time since the previous reading: a link idle a fifth of the time is not the limit.
    static constexpr double full_share = 0.8;

    // Reads TCP_INFO of `fd` and takes next(); nothing without TCP_INFO. `now_ns` is monotonic.
    std::optional<link_sample> sample(int fd, std::uint64_t now_ns, bool sender_waited);
    // Sans-I/O: the sample these counters give, if any (nothing while a lower bound's window
    // is still open, or before the kernel has a rate). `sender_waited`: the sender found the
    // socket's buffer full since the previous reading - it had more to send than the link
    // took. Without that, the link was not shown to be the limit: a sender busy compressing
    // keeps data in flight most of the time (a "busy" link) while the link has room to spare,
    // and taking its rate for the link's would make heavier compression look right.
    std::optional<link_sample> next(const tcp_counters& c, std::uint64_t now_ns,
                                    bool sender_waited);

  private:
    std::uint64_t busy_us_ = 0;    // tcpi_busy_time at the previous sample
    std::uint64_t rwnd_us_ = 0;    // tcpi_rwnd_limited at the previous sample
    std::uint64_t sndbuf_us_ = 0;  // tcpi_sndbuf_limited at the previous sample
    std::uint64_t read_at_ = 0;    // when the previous sample was read; 0: not yet
    std::uint64_t acked_ = 0;      // tcpi_bytes_acked when the lower bound's window opened
    std::uint64_t acked_at_ = 0;   // when it opened; 0: not yet
};

}  // namespace objwire::client
