// The pause before trying again while failures go on: `first` after a success (or at the
// start), twice the last one after each further failure, never more than `max`. The one rule
// behind the accept loop's pause (daemon/serve/accept_backoff.hpp), a relay's next-hop retries
// (daemon/sinks/hop_health.hpp), a client's reconnects (client/lib/retry_window.hpp) and a
// following reader's (client/lib/follow_resume.hpp). No clock of its own: the caller waits.
#pragma once

#include <algorithm>
#include <chrono>

namespace objwire {

class exponential_backoff {
  public:
    constexpr exponential_backoff(std::chrono::milliseconds first, std::chrono::milliseconds max)
        : first_(first), max_(max) {}

    // A failure: the pause before the next try.
    std::chrono::milliseconds next() {
        current_ = current_.count() == 0 ? first_ : std::min(current_ * 2, max_);
        return current_;
    }
    // The last pause next() gave (0: none since the start or the last reset()).
    std::chrono::milliseconds current() const { return current_; }
    // A success: the next failure waits `first` again.
    void reset() { current_ = std::chrono::milliseconds(0); }

  private:
    std::chrono::milliseconds first_;
    std::chrono::milliseconds max_;
    std::chrono::milliseconds current_{0};
};

}  // namespace objwire
