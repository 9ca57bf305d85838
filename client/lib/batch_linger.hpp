// The linger rule (batch.linger): a batch whose first message has waited this long is written
// even if small - by send() when it finds it so, by poll() at the end of its wait, and by
// linger while the caller makes no call (client/lib/connection_linger.cpp), which also takes
// in the acks of what was written once the caller is quiet. No I/O and no clock: times are the
// coarse clock's nanoseconds (client/lib/coarse_clock.hpp), passed in.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>

namespace objwire::client {

class batch_linger {
  public:
    explicit batch_linger(std::chrono::nanoseconds linger) : linger_(linger) {}

    // Linger is on: the process's linger service looks after the connection.
    bool enabled() const { return linger_.count() > 0; }
    // The open batch got its first message at `now_ns`, or what it holds waited behind a write
    // until then (not for the batch to fill).
    void opened(std::uint64_t now_ns) { opened_ns_ = now_ns; }
    // How long the open batch may still wait for more; 0: it is due.
    std::chrono::nanoseconds left(std::uint64_t now_ns) const {
        const auto waited = std::chrono::nanoseconds(now_ns - opened_ns_);
        return std::max(linger_ - waited, std::chrono::nanoseconds(0));
    }
    bool due(std::uint64_t now_ns) const { return left(now_ns).count() == 0; }
    // `wait`, cut so that it ends by the time the open batch is due.
    std::chrono::milliseconds cut(std::chrono::milliseconds wait, std::uint64_t now_ns) const {
        return std::min(wait, std::chrono::ceil<std::chrono::milliseconds>(left(now_ns)));
    }

  private:
    std::chrono::nanoseconds linger_;
    std::uint64_t opened_ns_ = 0;
};

// What linger does next, from what the connection holds now.
enum class linger_step {
    rest,       // nothing to do: the next call that leaves work starts linger again
    wait,       // look again after linger_wait(): the open batch is not due, or the caller
                // made a call less than batch.linger ago while frames await their acks
    flush,      // the open batch is due: write it
    read_acks,  // frames await their acks and the caller is quiet: take them as they come
};

struct linger_view {
    bool open = false;                       // the connection is open
    bool background_error = false;           // an error waits for the caller's next call
    bool batch_open = false;                 // the open batch holds messages
    bool all_acked = true;                   // every written frame is acknowledged
    std::chrono::nanoseconds batch_left{0};  // batch_linger::left(), while a batch is open
    // Until the caller has made no call for batch.linger; 0: it has. A caller that calls
    // takes its acks itself: linger leaves the socket to it until then.
    std::chrono::nanoseconds quiet_left{0};
};

inline linger_step next_linger_step(const linger_view& v) {
    if (!v.open || v.background_error) return linger_step::rest;
    if (v.batch_open) return v.batch_left.count() > 0 ? linger_step::wait : linger_step::flush;
    if (v.all_acked) return linger_step::rest;
    return v.quiet_left.count() > 0 ? linger_step::wait : linger_step::read_acks;
}

// For linger_step::wait: how long.
inline std::chrono::nanoseconds linger_wait(const linger_view& v) {
    return v.batch_open ? v.batch_left : v.quiet_left;
}

}  // namespace objwire::client
