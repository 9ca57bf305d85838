// At most one log line per interval about a condition that repeats (accept() failing, a
// relay's next hop down): the first line at once, then one per interval while it goes on,
// each saying what was counted since the last. Once the condition ends (reset()), its next
// occurrence is logged at once again. The one rule behind daemon/serve/accept_backoff.hpp and
// daemon/sinks/hop_health.hpp. No clock of its own: the caller says when.
#pragma once

#include <chrono>

namespace objwire {

class log_pacer {
  public:
    using clock = std::chrono::steady_clock;

    explicit constexpr log_pacer(clock::duration interval) : interval_(interval) {}

    // Whether a line is due at `now`; when it is, the caller writes it and the next is due an
    // interval later.
    bool take(clock::time_point now) {
        if (logged_ && now - last_ < interval_) return false;
        logged_ = true;
        last_ = now;
        return true;
    }
    // Whether a line was written since the start or the last reset() ("since the last line"
    // rather than "so far").
    bool logged() const { return logged_; }
    // The condition ended: its next occurrence is logged at once.
    void reset() { logged_ = false; }

  private:
    clock::duration interval_;
    bool logged_ = false;
    clock::time_point last_{};
};

}  // namespace objwire
