#include "daemon/serve/accept_backoff.hpp"

#include <cerrno>
#include <string_view>
#include <utility>

namespace objwire::daemon {

bool accept_backoff::exhausted(std::error_code ec) {
    // By errno value: asio reports them in a category of its own ("asio.system") that does not
    // map them to std::errc conditions.
    const std::string_view category = ec.category().name();
    if (category != "asio.system" && category != "system" && category != "generic") return false;
    const int v = ec.value();
    return v == EMFILE || v == ENFILE || v == ENOBUFS || v == ENOMEM;
}

accept_backoff::decision accept_backoff::on_error(std::error_code ec, clock::time_point now,
                                                  reserve r) {
    decision d;
    if (exhausted(ec) && (r.waiting_for_hello > 0 || r.idle_sender)) {
        // No pause of the run's: the loop waits only for the shed descriptor (shed_wait at
        // most), since a backlog of connections waits behind this one.
        d.pause = shed_wait;
        d.relieve = r.waiting_for_hello > 0 ? relief::shed_waiting : relief::shed_idle;
        return d;
    }
    ++run_;
    ++unlogged_;
    if (exhausted(ec)) {
        d.pause = pause_.next();
        if (r.spare_held) d.relieve = relief::refuse_with_spare;
    } else {
        // One peer's trouble (ECONNABORTED, EPROTO...): the next connection may be fine. A
        // short pause all the same, so an error that does repeat cannot spin the loop.
        d.pause = std::chrono::milliseconds(1);
    }
    if (log_.take(now)) {
        d.log = true;
        d.failures = std::exchange(unlogged_, 0);
    }
    return d;
}

std::uint64_t accept_backoff::on_success() {
    pause_.reset();
    unlogged_ = 0;
    // The log keeps its pace across a success: out of descriptors, a refusal through the spare
    // or a shed connection frees one for a moment, and each accept that takes it would
    // otherwise let the next failure log at once.
    return std::exchange(run_, 0);
}

}  // namespace objwire::daemon
