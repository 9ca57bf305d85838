#include "client/lib/resume_rule.hpp"

#include <objwire/errors.hpp>

#include "proto/errors.hpp"

namespace objwire::client {

bool retryable(std::error_code ec) {
    return ec == client_errc::connection_lost || ec == client_errc::timed_out ||
           ec == client_errc::connect_failed || ec == proto_errc::sender_busy ||
           ec == proto_errc::too_many_connections || ec == proto_errc::not_available;
}

bool resumes(bool resumable, const retry_window& window, std::error_code ec) {
    return resumable && window.enabled() && retryable(ec);
}

std::optional<std::chrono::milliseconds> pause_before(int attempt, retry_window& window,
                                                      retry_window::clock::time_point now) {
    if (window.expired(now)) return std::nullopt;
    if (attempt == 0) return std::chrono::milliseconds(0);
    return window.next_pause(now);
}

handshake_verdict after_handshake(std::error_code ec, bool welcomed) {
    if (ec && retryable(ec)) return handshake_verdict::retry;
    if (welcomed) return handshake_verdict::resumed;
    // Another stream owns the id now: what it stored is not ours to count (docs/PROTOCOL.md
    // 1.1, "Ownership").
    return ec == proto_errc::sender_fenced ? handshake_verdict::fenced : handshake_verdict::give_up;
}

std::string fenced_text(const std::string& text, const std::string& attempt_error) {
    return text + "; resuming refused: " + attempt_error;
}

std::string gave_up_text(const std::string& text, std::chrono::milliseconds retry_for,
                         const std::string& attempt_error) {
    return text + "; no acknowledged progress for " + std::to_string(retry_for.count()) +
           " ms (resume.retry_for): " + (attempt_error.empty() ? "gave up" : attempt_error);
}

}  // namespace objwire::client
