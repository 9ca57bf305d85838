// The slow-consumer rule of a reader (docs/PROTOCOL.md 1.2, "Slow readers"): a reader whose
// peer takes no byte of a pending write for limits.idle_timeout is closed, so a peer that
// stops reading does not hold its connection slot, its batch and its per-address share
// forever. A reader with nothing to send - a follower waiting at the live end - has no write
// pending and is never slow. No I/O and no timers: the reader's write loop reports each write
// and each byte count the peer took, and waits until deadline().
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

namespace objwire::daemon {

class slow_consumer_rule {
  public:
    using clock = std::chrono::steady_clock;

    // `idle_timeout`: limits.idle_timeout; 0 never calls a reader slow.
    explicit slow_consumer_rule(std::chrono::milliseconds idle_timeout)
        : idle_timeout_(idle_timeout) {}

    // `bytes` wait for the peer from `now` on.
    void write_started(clock::time_point now, std::size_t bytes);
    // The peer took `n` of them (n > 0 restarts the clock).
    void bytes_taken(clock::time_point now, std::size_t n);
    // Nothing waits for the peer any more (written, or the connection ended).
    void write_ended() { waiting_ = 0; }

    // When the pending write becomes slow unless the peer takes a byte first;
    // time_point::max() while nothing waits or the rule is off.
    clock::time_point deadline() const;
    bool slow(clock::time_point now) const { return now >= deadline(); }
    // For the log: how long nothing was taken, how much waits, and the key.
    std::string reason(clock::time_point now) const;

  private:
    std::chrono::milliseconds idle_timeout_;
    std::size_t waiting_ = 0;  // bytes of the pending write the peer has not taken
    clock::time_point last_progress_{};
};

}  // namespace objwire::daemon
