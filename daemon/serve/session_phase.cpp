#include "daemon/serve/session_phase.hpp"

#include <cerrno>

namespace objwire::daemon {

std::string_view to_string(session_phase p) {
    switch (p) {
        case session_phase::handshake:
            return "handshake";
        case session_phase::admitting:
            return "admitting";
        case session_phase::streaming:
            return "streaming";
        case session_phase::paused:
            return "paused";
        case session_phase::stalled:
            return "stalled";
        case session_phase::draining:
            return "draining";
        case session_phase::finishing:
            return "finishing";
        case session_phase::handed_over:
            return "handed_over";
        case session_phase::failed:
            return "failed";
        case session_phase::ended:
            return "ended";
    }
    return "unknown";
}

bool session_state::move(session_phase from, session_phase to) {
    if (phase_ != from) return false;
    phase_ = to;
    return true;
}

bool session_state::stall() {
    return move(session_phase::streaming, session_phase::stalled) ||
           move(session_phase::paused, session_phase::stalled) ||
           move(session_phase::draining, session_phase::stalled);
}

session_phase session_state::stop() {
    const auto was = phase_;
    switch (phase_) {
        case session_phase::handshake:
        case session_phase::streaming:
        case session_phase::paused:
            phase_ = session_phase::draining;
            break;
        case session_phase::admitting:
        case session_phase::stalled:
            phase_ = session_phase::finishing;
            break;
        default:
            break;
    }
    return was;
}

bool session_state::finish() {
    switch (phase_) {
        case session_phase::handshake:
        case session_phase::admitting:
        case session_phase::streaming:
        case session_phase::paused:
        case session_phase::stalled:
        case session_phase::draining:
            phase_ = session_phase::finishing;
            return true;
        default:
            return false;
    }
}

void session_state::fail() {
    if (phase_ != session_phase::ended) phase_ = session_phase::failed;
}

bool session_state::reading() const {
    return phase_ == session_phase::handshake || phase_ == session_phase::streaming;
}

bool session_state::replies_closed() const {
    return phase_ == session_phase::finishing || phase_ == session_phase::handed_over ||
           phase_ == session_phase::failed || phase_ == session_phase::ended;
}

bool out_of_space(std::error_code ec) {
    return ec == std::errc::no_space_on_device || ec == std::errc::file_too_large ||
           ec == std::error_code(EDQUOT, std::generic_category());
}

}  // namespace objwire::daemon
