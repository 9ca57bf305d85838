// Resume on the client side (docs/PROTOCOL.md "Resume"): when the connection breaks, the
// connection object reconnects - at once, then with exponential backoff - until resume.retry_for
// has passed since the last acknowledged progress (client/lib/retry_window.hpp), says hello
// under the same sender id, and its sender re-encodes and resends the frames after the one the
// daemon's welcome says it stored last. The caller's send(), flush() or close() then simply goes
// on. Which breaks resume and what each attempt leads to: client/lib/resume_rule.hpp; an
// interrupt() ends the reconnecting at once.
#include <algorithm>
#include <chrono>

#include "client/lib/connection_core.hpp"
#include "proto/errors.hpp"

namespace objwire::client {

std::error_code connection_core::resume_after(std::error_code ec, std::string text) {
    if (!resumes(state_.resumable(), window_, ec)) return fail(ec, std::move(text));
    if (interrupted_) return fail(client_errc::interrupted, text + "; not resumed: interrupted");
    observe_progress();
    state_.start_resume();
    // attempt_error_ is kept: a window can span several breaks, and the last reason is the one
    // to report.
    const auto verdict = reconnect_until_resumed(text);
    state_.end_resume();
    if (verdict == handshake_verdict::resumed) {
        ++stats_.reconnects;
        return {};
    }
    close_socket();
    if (verdict == handshake_verdict::fenced)
        return fail(proto_errc::sender_fenced, fenced_text(text, attempt_error_));
    if (interrupted_)
        return fail(client_errc::interrupted,
                    text + "; reconnecting interrupted" +
                        (attempt_error_.empty() ? "" : " (last attempt: " + attempt_error_ + ")"));
    return fail(ec, gave_up_text(text, settings_.resume_retry_for, attempt_error_));
}

handshake_verdict connection_core::reconnect_until_resumed(const std::string& why) {
    // Bounded by the window: every attempt after the first waits its pause, and none starts
    // once the window has ended or interrupt() was called.
    for (int attempt = 0;; ++attempt) {
        close_socket();
        if (interrupted_) return handshake_verdict::give_up;
        const auto pause = pause_before(attempt, window_, std::chrono::steady_clock::now());
        if (!pause) return handshake_verdict::give_up;
        notify_reconnect(static_cast<unsigned>(attempt) + 1, *pause,
                         attempt > 0 ? attempt_error_ : why);
        if (attempt > 0) {
            if (!pause_unless_interrupted(*pause)) return handshake_verdict::give_up;
            if (window_.expired(std::chrono::steady_clock::now()))
                return handshake_verdict::give_up;
        }
        if (core_.restart()) return handshake_verdict::give_up;
        const auto verdict = resume_attempt();
        if (verdict != handshake_verdict::retry) return verdict;
    }
}

handshake_verdict connection_core::resume_attempt() {
    if (connect_socket()) return handshake_verdict::retry;
    const auto ec = handshake();  // before welcomed() looks at the state it leaves
    const auto verdict = after_handshake(ec, welcomed(core_.current()));
    if (verdict != handshake_verdict::resumed) return verdict;
    // The resent frames go out at once: they are what the daemon is missing.
    if (write_all(core_.output())) return handshake_verdict::retry;
    core_.consume_output();
    return handshake_verdict::resumed;
}

void connection_core::notify_reconnect(unsigned attempt, std::chrono::milliseconds pause,
                                       const std::string& why) {
    if (!on_reconnect_) return;
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(
        window_.deadline() - std::chrono::steady_clock::now());
    on_reconnect_({why, attempt, pause, std::max(left, std::chrono::milliseconds(0))});
}

}  // namespace objwire::client
