// Whether a relay (sink.kind = "forward") takes new streams while its next hop is down. A failed
// connect to the hop marks it down; from then on new sender streams are refused, with the cause
// and a retry-after, until the next attempt is due - 100 ms after the first failure, doubling
// to 5 s while they go on - when one stream is let through to try the hop again. The log gets
// one line per 5 s with the counts of failed attempts and refused streams, not one per attempt.
// No I/O, no lock and no clock of its own: the forward sink holds a mutex and says when.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <system_error>
#include <utility>

#include "proto/util/backoff.hpp"
#include "proto/util/log_pacer.hpp"

namespace objwire::daemon {

// Whether a forward stream's failure says the hop cannot be used (a connect that failed, a
// connection lost or silent, the hop busy, without its own sink, or turning this relay away at
// the hello: its token, its version) - what marks it down. A refusal of the stream itself (a
// message over the hop's limits, a fenced or busy sender id) is that stream's failure: the
// next stream may well go through.
bool hop_unreachable(std::error_code ec);

class hop_health {
  public:
    using clock = std::chrono::steady_clock;
    static constexpr std::chrono::milliseconds first_pause{100};
    static constexpr std::chrono::milliseconds max_pause{5000};
    static constexpr std::chrono::milliseconds log_interval{5000};

    explicit hop_health(std::string hop) : hop_(std::move(hop)) {}

    struct admission {
        bool admit = true;
        std::string why;  // refused: the cause and the retry-after, for the error frame
        std::chrono::milliseconds retry_after{0};
    };
    // A new sender stream asks at `now`.
    admission admit(clock::time_point now);

    // A connection to the hop failed (`why`: the client library's reason).
    void on_failure(const std::string& why, clock::time_point now);
    // A connection to the hop was welcomed: the failed attempts of the run it ends (0: none).
    std::uint64_t on_success();

    // The line to log at `now`, at most one per log_interval, when there is something to say.
    std::optional<std::string> take_log(clock::time_point now);

    bool down() const { return down_; }
    std::chrono::milliseconds pause() const { return pause_.current(); }

  private:
    std::string hop_;
    bool down_ = false;
    std::string why_;
    exponential_backoff pause_{first_pause, max_pause};
    clock::time_point next_try_{};
    std::uint64_t run_ = 0;  // failed attempts since the last success
    std::uint64_t unlogged_failures_ = 0;
    std::uint64_t unlogged_refusals_ = 0;
    log_pacer log_{log_interval};
};

}  // namespace objwire::daemon
