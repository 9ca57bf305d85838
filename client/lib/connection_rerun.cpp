// Reruns on the client side (docs/PROTOCOL.md 1.1, "Reruns"): the connection hands the rule of
// client/lib/rerun_check.hpp the welcome's figures and each message it is to skip, and tells
// its sender the input digest to go on with.
#include "client/lib/connection_core.hpp"
#include "proto/input_digest.hpp"

namespace objwire::client {

void connection_core::learn_stored() {
    const auto& peer = core_.peer();
    if (const auto digest = rerun_.learn(peer.stored_objects, peer.stored_digest))
        core_.continue_input_digest(*digest);
}

std::error_code connection_core::skip_message(const message& m) {
    switch (rerun_.skip(object_digest(m))) {
        case rerun_check::outcome::more:
            return {};
        case rerun_check::outcome::last:
            core_.continue_input_digest(rerun_.goes_on_with());
            return {};
        case rerun_check::outcome::differs:
            last_error_ = rerun_.mismatch_text(settings_.sender_id);
            return client_errc::input_mismatch;
        case rerun_check::outcome::mismatched:
            break;
    }
    return client_errc::input_mismatch;
}

void connection_core::check_skipped_all() {
    if (rerun_.input_ended()) last_error_ = rerun_.short_input_text(settings_.sender_id);
}

}  // namespace objwire::client
