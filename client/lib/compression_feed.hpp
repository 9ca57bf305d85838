// What the connection tells the compression policy after each write: the interval since the
// last one with the time spent blocked in it - on the socket's full buffer, and on acks while
// max_in_flight was reached - and, at most every link_sample_every_ns unless a write found the
// buffer full, a reading of the link (client/lib/link_meter.hpp) with whether the sender waited
// since the previous one. No I/O and no clock: times are monotonic nanoseconds, passed in.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>

namespace objwire::client {

class compression_feed {
  public:
    // TCP_INFO is read at most this often unless a write found the send buffer full (~1 us a
    // read).
    static constexpr std::uint64_t link_sample_every_ns = 2'000'000;

    struct interval {
        std::uint64_t elapsed_ns = 0;
        std::uint64_t blocked_ns = 0;      // waiting for room in the socket's buffer
        std::uint64_t ack_blocked_ns = 0;  // waiting for acks: max_in_flight reached
    };

    void start(std::uint64_t now_ns) { interval_start_ns_ = now_ns; }
    void blocked_on_socket(std::uint64_t ns) {
        interval_blocked_ns_ += ns;
        waited_since_sample_ = true;
    }
    void blocked_on_acks(std::uint64_t ns) { interval_ack_blocked_ns_ += ns; }
    // The interval that ends at `now_ns`; the next one starts there.
    interval end_interval(std::uint64_t now_ns) {
        const interval done{now_ns - interval_start_ns_, interval_blocked_ns_,
                            interval_ack_blocked_ns_};
        interval_start_ns_ = now_ns;
        interval_blocked_ns_ = interval_ack_blocked_ns_ = 0;
        return done;
    }
    // Whether the link is read at `now_ns` (`congested`: this write found the buffer full) and
    // if so, whether the sender waited on the buffer since the previous reading.
    std::optional<bool> link_sample(bool congested, std::uint64_t now_ns) {
        if (!congested && now_ns - last_link_sample_ns_ < link_sample_every_ns) return std::nullopt;
        last_link_sample_ns_ = now_ns;
        return std::exchange(waited_since_sample_, false);
    }

  private:
    std::uint64_t interval_start_ns_ = 0;
    std::uint64_t interval_blocked_ns_ = 0;
    std::uint64_t interval_ack_blocked_ns_ = 0;
    std::uint64_t last_link_sample_ns_ = 0;
    bool waited_since_sample_ = false;  // the socket's buffer was full since the last sample
};

}  // namespace objwire::client
