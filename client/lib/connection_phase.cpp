#include "client/lib/connection_phase.hpp"

namespace objwire::client {

std::string_view to_string(connection_phase p) {
    switch (p) {
        case connection_phase::closed:
            return "closed";
        case connection_phase::connecting:
            return "connecting";
        case connection_phase::handshaking:
            return "handshaking";
        case connection_phase::streaming:
            return "streaming";
        case connection_phase::resuming:
            return "resuming";
        case connection_phase::draining:
            return "draining";
        case connection_phase::failed:
            return "failed";
    }
    return "unknown";
}

bool connection_state::move(connection_phase from, connection_phase to) {
    if (phase() != from) return false;
    set(to);
    return true;
}

bool connection_state::connect() {
    return move(connection_phase::closed, connection_phase::connecting) ||
           move(connection_phase::failed, connection_phase::connecting);
}

bool connection_state::start_resume() {
    if (!resumable()) return false;
    resumed_to_ = phase();
    set(connection_phase::resuming);
    return true;
}

bool connection_state::end_resume() {
    return move(connection_phase::resuming, resumed_to_);
}

bool connection_state::is_open() const {
    switch (phase()) {
        case connection_phase::handshaking:
        case connection_phase::streaming:
        case connection_phase::resuming:
        case connection_phase::draining:
            return true;
        default:
            return false;
    }
}

bool connection_state::resumable() const {
    const auto p = phase();
    return p == connection_phase::streaming || p == connection_phase::draining;
}

}  // namespace objwire::client
