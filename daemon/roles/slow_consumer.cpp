#include "daemon/roles/slow_consumer.hpp"

#include <fmt/format.h>

namespace objwire::daemon {

void slow_consumer_rule::write_started(clock::time_point now, std::size_t bytes) {
    waiting_ = bytes;
    last_progress_ = now;
}

void slow_consumer_rule::bytes_taken(clock::time_point now, std::size_t n) {
    if (n == 0) return;
    waiting_ -= std::min(n, waiting_);
    last_progress_ = now;
}

slow_consumer_rule::clock::time_point slow_consumer_rule::deadline() const {
    if (waiting_ == 0 || idle_timeout_.count() <= 0) return clock::time_point::max();
    return last_progress_ + idle_timeout_;
}

std::string slow_consumer_rule::reason(clock::time_point now) const {
    const double idle = std::chrono::duration<double>(now - last_progress_).count();
    return fmt::format(
        "slow consumer: took no bytes for {:.1f} s with {} bytes waiting for it "
        "(limits.idle_timeout = {} s)",
        idle, waiting_, std::chrono::duration<double>(idle_timeout_).count());
}

}  // namespace objwire::daemon
