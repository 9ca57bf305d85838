// Resume on the client side (docs/PROTOCOL.md "Resume"): when the connection breaks, the
// connection object reconnects - at once, then with exponential backoff - until resume.retry_for
// has passed since the last acknowledged progress (client/lib/retry_window.hpp), says hello
// under the same sender id, and its sender re-encodes and resends
// the frames after the one the daemon's welcome says it stored last. The caller's send(),
// flush() or close() then simply goes on.
#include <algorithm>
#include <chrono>

#include "client/lib/connection_core.hpp"
#include "proto/errors.hpp"

namespace objwire::client {
namespace {

// A broken or hung connection, a daemon still finishing the old connection of our sender id,
// one at its connection cap (the old connection may still hold our slot), or one that cannot
// serve a stream now (not_available: a relay whose next hop is down, a daemon shutting down);
// anything else (a refusal, a protocol error) would only happen again.
bool retryable(std::error_code ec) {
    return ec == client_errc::connection_lost || ec == client_errc::timed_out ||
           ec == client_errc::connect_failed || ec == proto_errc::sender_busy ||
           ec == proto_errc::too_many_connections || ec == proto_errc::not_available;
}

}  // namespace

std::error_code connection_core::resume_after(std::error_code ec, std::string text) {
    if (resuming_ || !welcomed_ || settings_.resume_retry_for.count() == 0 || !retryable(ec))
        return fail(ec, std::move(text));
    if (interrupted_) return fail(client_errc::interrupted, text + "; not resumed: interrupted");
    observe_progress();
    resuming_ = true;
    // attempt_error_ is kept: a window can span several breaks, and the last reason is the one
    // to report.
    for (unsigned attempt = 0;; ++attempt) {
        std::error_code ignored;
        socket_.close(ignored);
        const auto now = std::chrono::steady_clock::now();
        if (interrupted_ || window_.expired(now)) break;
        const auto pause = attempt > 0 ? window_.next_pause(now) : std::chrono::milliseconds(0);
        notify_reconnect(attempt + 1, pause, attempt > 0 ? attempt_error_ : text);
        if (!pause_unless_interrupted(pause)) break;
        if (window_.expired(std::chrono::steady_clock::now())) break;
        if (core_.restart()) break;
        if (connect_socket()) continue;
        const auto e = handshake();
        if (e && retryable(e)) continue;
        if (!welcomed(core_.current())) {  // refused for good, or interrupted
            if (e == proto_errc::sender_fenced) {
                // Another stream owns the id now: what it stored is not ours to count, and
                // going on would mix two streams (docs/PROTOCOL.md 1.1, "Ownership").
                resuming_ = false;
                socket_.close(ignored);
                return fail(e, text + "; resuming refused: " + attempt_error_);
            }
            break;
        }
        // The resent frames go out at once: they are what the daemon is missing.
        if (write_all(core_.output())) continue;
        core_.consume_output();
        resuming_ = false;
        open_ = true;
        ++stats_.reconnects;
        return {};
    }
    resuming_ = false;
    std::error_code ignored;
    socket_.close(ignored);
    if (interrupted_)
        return fail(client_errc::interrupted,
                    text + "; reconnecting interrupted" +
                        (attempt_error_.empty() ? "" : " (last attempt: " + attempt_error_ + ")"));
    return fail(
        ec, text + "; no acknowledged progress for " +
                std::to_string(settings_.resume_retry_for.count()) +
                " ms (resume.retry_for): " + (attempt_error_.empty() ? "gave up" : attempt_error_));
}

void connection_core::notify_reconnect(unsigned attempt, std::chrono::milliseconds pause,
                                       const std::string& why) {
    if (!on_reconnect_) return;
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(
        window_.deadline() - std::chrono::steady_clock::now());
    on_reconnect_({why, attempt, pause, std::max(left, std::chrono::milliseconds(0))});
}

}  // namespace objwire::client
