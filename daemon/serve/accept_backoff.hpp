// What the accept loop does when accept() fails. Out of file descriptors or kernel memory
// (EMFILE, ENFILE, ENOBUFS, ENOMEM) the failure repeats at once for as long as it lasts, so
// accepting pauses - 50 ms, doubling to 1 s while it goes on - and the log gets one line per
// second with the count, not one per failure. A failure that belongs to one peer (it reset
// before we took it) is retried at once. No I/O and no clock of its own: the caller says when.
#pragma once

#include <chrono>
#include <cstdint>
#include <system_error>

#include "proto/util/backoff.hpp"
#include "proto/util/log_pacer.hpp"

namespace objwire::daemon {

class accept_backoff {
  public:
    using clock = std::chrono::steady_clock;
    static constexpr std::chrono::milliseconds first_pause{50};
    static constexpr std::chrono::milliseconds max_pause{1000};
    static constexpr std::chrono::milliseconds log_interval{1000};

    struct decision {
        std::chrono::milliseconds pause{0};  // before the next accept
        bool log = false;                    // write a line now, saying `failures`
        std::uint64_t failures = 0;          // since the last line (this one included)
    };

    // accept() failed with `ec` at `now`.
    decision on_error(std::error_code ec, clock::time_point now);
    // accept() succeeded: the number of failures in the run it ends (0: there was none), for
    // a line saying accepting works again.
    std::uint64_t on_success();

    // Whether `ec` says the process or the system is out of a resource (a pause helps).
    static bool exhausted(std::error_code ec);

  private:
    exponential_backoff pause_{first_pause, max_pause};
    log_pacer log_{log_interval};
    std::uint64_t unlogged_ = 0;  // failures since the last line
    std::uint64_t run_ = 0;       // failures since the last success
};

}  // namespace objwire::daemon
