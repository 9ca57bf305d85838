// The linger rule (batch.linger): a batch whose first message has waited this long is written
// even if small - by send() when it finds it so, by poll() at the end of its wait, and by the
// linger thread while the caller makes no call (client/lib/connection_linger.cpp), which also
// takes in the acks of what was written. No I/O and no clock: times are the coarse clock's
// nanoseconds (client/lib/coarse_clock.hpp), passed in.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>

namespace objwire::client {

class batch_linger {
  public:
    explicit batch_linger(std::chrono::nanoseconds linger) : linger_(linger) {}

    // Linger is on: the connection runs its linger thread.
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

// What the linger thread does next, from what the connection holds now.
enum class linger_step {
    sleep,       // nothing to do: wait until a call leaves work (or the connection closes)
    time_batch,  // a batch is open and not yet due: wait until it is
    flush,       // the open batch is due: write it
    read_acks,   // frames wait for their acks: wait on the socket and take them in
};

struct linger_view {
    bool open = false;                       // the connection is open
    bool background_error = false;           // an error waits for the caller's next call
    bool batch_open = false;                 // the open batch holds messages
    bool all_acked = true;                   // every written frame is acknowledged
    std::chrono::nanoseconds batch_left{0};  // batch_linger::left(), while a batch is open
};

inline linger_step next_linger_step(const linger_view& v) {
    if (!v.open || v.background_error) return linger_step::sleep;
    if (v.batch_open)
        return v.batch_left.count() > 0 ? linger_step::time_batch : linger_step::flush;
    return v.all_acked ? linger_step::sleep : linger_step::read_acks;
}

// Where the linger thread waits, so that a caller wakes it the one way that reaches it: the
// condition variable while it sleeps, the eventfd while it waits on the socket.
enum class linger_wait : std::uint8_t { none, sleeping, polling };

}  // namespace objwire::client
