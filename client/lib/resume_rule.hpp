// The resume rule on the client side (docs/PROTOCOL.md "Resume"): which breaks are resumed,
// when the next reconnect may start, what each attempt's handshake leads to, and what a
// connection that gave up says. No I/O and no clock: the connection (client/lib/
// connection_resume.cpp) reconnects, says hello, replays, and asks this between the steps; the
// time is passed in, and the window is the retry window of client/lib/retry_window.hpp.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <system_error>

#include "client/lib/retry_window.hpp"

namespace objwire::client {

// A broken or hung connection, a daemon still finishing the old connection of our sender id,
// one at its connection cap (the old connection may still hold our slot), or one that cannot
// serve a stream now (not_available: a relay whose next hop is down, a daemon shutting down);
// anything else (a refusal, a protocol error) would only happen again.
bool retryable(std::error_code ec);

// A break with `ec` is resumed: the stream was welcomed and is not resuming already
// (`resumable`), the window is on (resume.retry_for > 0), and a reconnect may cure `ec`.
bool resumes(bool resumable, const retry_window& window, std::error_code ec);

// The pause before attempt number `attempt` (0: at once) at `now`, or none: the window has
// ended, the connection gives up.
std::optional<std::chrono::milliseconds> pause_before(int attempt, retry_window& window,
                                                      retry_window::clock::time_point now);

// What a reconnect's handshake, which returned `ec`, leads to.
enum class handshake_verdict {
    retry,    // a failure a later attempt may cure
    resumed,  // welcomed: the kept frames are replayed
    fenced,   // another stream owns the sender id now: giving up, going on would mix two streams
    give_up,  // refused for good (or, from the resume loop, the window ended): giving up
};
handshake_verdict after_handshake(std::error_code ec, bool welcomed);

// What last_error() says when the attempts end: `text` the break's reason, `attempt_error`
// why the last attempt failed ("" if none got that far).
std::string fenced_text(const std::string& text, const std::string& attempt_error);
std::string gave_up_text(const std::string& text, std::chrono::milliseconds retry_for,
                         const std::string& attempt_error);

}  // namespace objwire::client
