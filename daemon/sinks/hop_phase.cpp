#include "daemon/sinks/hop_phase.hpp"

namespace objwire::daemon {

void hop_phase::on_connecting(clock::time_point now) {
    connecting_ = true;
    since_ = now;
}

void hop_phase::on_connected(clock::time_point now) {
    connecting_ = false;
    connected_ = true;
    since_ = now;
}

void hop_phase::on_progress(std::uint64_t sent, std::uint64_t acked, clock::time_point now) {
    // The ack clock starts when objects begin to wait, and again at each ack that moves.
    if (acked > acked_ || !waiting_for_acks()) since_ = now;
    sent_ = sent;
    acked_ = acked;
}

void hop_phase::on_stop(clock::time_point now) {
    if (draining_ || failed_) return;
    draining_ = true;
    since_ = now;
}

hop_phase::state hop_phase::current(clock::time_point now) const {
    if (failed_) return state::failed;
    if (draining_) return state::draining;
    if (connecting_) return state::connecting;
    if (waiting_for_acks() && now - since_ >= stall_after) return state::stalled;
    return state::streaming;
}

std::optional<hop_phase::clock::time_point> hop_phase::deadline() const {
    if (failed_) return std::nullopt;
    if (draining_) return since_ + drain_window;
    if (connecting_) return since_ + connect_window_;
    if (waiting_for_acks()) return since_ + ack_window_;
    return std::nullopt;
}

std::optional<std::string> hop_phase::expired(clock::time_point now) {
    const auto due = deadline();
    if (!due || now < *due) return std::nullopt;
    const auto waiting = std::to_string(sent_ - acked_);
    std::string why;
    if (draining_)
        why = waiting + " objects not acknowledged within " + std::to_string(drain_window.count()) +
              " ms of the stream's end; given up";
    else if (connecting_)
        why = "no welcome within " + std::to_string(connect_window_.count()) + " ms";
    else
        why = "no acknowledgement for " + std::to_string(ack_window_.count()) + " ms with " +
              waiting + " objects waiting (the hop's resume.retry_for)";
    failed_ = true;
    return why;
}

const char* to_string(hop_phase::state s) {
    switch (s) {
        case hop_phase::state::connecting:
            return "connecting";
        case hop_phase::state::streaming:
            return "streaming";
        case hop_phase::state::stalled:
            return "stalled";
        case hop_phase::state::draining:
            return "draining";
        case hop_phase::state::failed:
            return "failed";
    }
    return "?";
}

}  // namespace objwire::daemon
