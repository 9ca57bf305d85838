// The open-loop schedule of `objwire bench --rate`: object i is due at start + i / rate,
// whatever happened to the objects before it, and its latency runs from that due time to the
// moment the sender learns of the acknowledgement that covers it. A stall therefore counts
// against every object it delayed (no coordinated omission): an object sent late because the
// sender was blocked starts its latency at its due time, not at its send. The clock is
// injected so that tests drive it by hand. No I/O.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <vector>

#include "client/lib/latency_histogram.hpp"

namespace objwire::client {

class open_loop {
  public:
    using clock_fn = std::function<std::int64_t()>;  // nanoseconds, monotonic

    // `count` objects at `rate` per second, the first due at the clock's current time.
    open_loop(double rate, std::uint64_t count, clock_fn now)
        : rate_(rate), count_(count), now_(std::move(now)), start_ns_(now_()) {}
    // The first object due at `start_ns`: senders that share a rate start a slot apart.
    open_loop(double rate, std::uint64_t count, clock_fn now, std::int64_t start_ns)
        : rate_(rate), count_(count), now_(std::move(now)), start_ns_(start_ns) {}

    std::int64_t due_ns(std::uint64_t i) const {
        return start_ns_ + static_cast<std::int64_t>(static_cast<double>(i) * 1e9 / rate_);
    }
    // Every object has been handed to the sender.
    bool all_sent() const { return next_ == count_; }
    // Every object has been acknowledged.
    bool all_acked() const { return acked_ == count_; }
    // How long until the next object is due: 0 when it is due now or overdue.
    std::int64_t wait_ns() const {
        if (all_sent()) return 0;
        return std::max<std::int64_t>(0, due_ns(next_) - now_());
    }
    // The index of the object to send next (call when wait_ns() is 0), and counts it sent.
    std::uint64_t take() { return next_++; }
    std::uint64_t sent() const { return next_; }
    // The sender has learned that its first `acked` objects are acknowledged: every object
    // newly covered gets its latency, due time to now. Returns the time used.
    std::int64_t on_acked(std::uint64_t acked) {
        acked = std::min(acked, next_);
        if (acked <= acked_) return 0;
        const std::int64_t now = now_();
        for (; acked_ < acked; ++acked_) {
            latencies_.record(
                static_cast<std::uint64_t>(std::max<std::int64_t>(0, now - due_ns(acked_))));
            if (keep_ack_times_) ack_ns_.push_back(now);
        }
        return now;
    }
    std::uint64_t acked() const { return acked_; }
    // Keeps each object's acknowledgement time (8 bytes an object), for followers' delivery
    // latency: acknowledged to delivered.
    void keep_ack_times() {
        keep_ack_times_ = true;
        ack_ns_.reserve(count_);
    }
    // When the sender learned that object i was acknowledged (i < acked(), keep_ack_times()).
    std::int64_t ack_ns(std::uint64_t i) const { return ack_ns_[i]; }
    std::int64_t start_ns() const { return start_ns_; }
    const latency_histogram& latencies() const { return latencies_; }

  private:
    double rate_;
    std::uint64_t count_;
    clock_fn now_;
    std::int64_t start_ns_;
    std::uint64_t next_ = 0;
    std::uint64_t acked_ = 0;
    latency_histogram latencies_;
    bool keep_ack_times_ = false;
    std::vector<std::int64_t> ack_ns_;
};

}  // namespace objwire::client
