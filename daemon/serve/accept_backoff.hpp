// What the accept loop does when accept() fails. Out of file descriptors or kernel memory
// (EMFILE, ENFILE, ENOBUFS, ENOMEM) the failure repeats at once for as long as it lasts, so
// accepting pauses - 50 ms, doubling to 1 s while it goes on - and the log gets one line per
// second with the count, not one per failure. A failure that belongs to one peer (it reset
// before we took it) is retried at once. No I/O and no clock of its own: the caller says when.
//
// Out of descriptors, a pause alone leaves an honest newcomer waiting in the backlog until a
// descriptor frees itself (a handshake timeout: seconds). So the loop is told what it can free
// at once: the oldest connection still waiting for its hello is closed (the newcomer, which
// says its hello within a round trip, is likelier honest) and accepting is tried again as
// soon as its descriptor is free; with none waiting, a sender that said its hello and has been
// idle long enough is closed the same way; with neither, the spare descriptor the server keeps is
// spent to accept the newcomer and tell it why it is refused, rather than leave it to time out
// unanswered.
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
    // After shedding, the longest wait for the shed connection's descriptor to be free.
    static constexpr std::chrono::milliseconds shed_wait{50};

    // What the loop does at once, before its pause, to free a descriptor.
    enum class relief : std::uint8_t {
        none,
        shed_waiting,       // close the oldest connection waiting for its hello
        shed_idle,          // else close the sender idle longest (daemon/serve/idle_shedding.hpp)
        refuse_with_spare,  // close the spare, accept, refuse that peer, open the spare again
    };
    // What the server holds that could free a descriptor.
    struct reserve {
        std::size_t waiting_for_hello = 0;
        bool spare_held = false;
        bool idle_sender = false;  // a sender idle at least limits.shed_idle_after
    };
    struct decision {
        std::chrono::milliseconds pause{0};  // before the next accept
        bool log = false;                    // write a line now, saying `failures`
        std::uint64_t failures = 0;          // since the last line (this one included)
        relief relieve = relief::none;
    };

    // accept() failed with `ec` at `now`. A failure relieved by shedding a waiting connection
    // is not one of the run's: the loop frees a descriptor and goes on, and the shed
    // connection's close is logged (as a refusal at a cap), not the failure.
    decision on_error(std::error_code ec, clock::time_point now, reserve r);
    decision on_error(std::error_code ec, clock::time_point now) {
        return on_error(ec, now, reserve{});
    }
    // accept() succeeded: the number of failures in the run it ends (0: there was none), for
    // a line saying accepting works again. Failure lines stay at most one per interval.
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
