// Reruns on the client side (docs/PROTOCOL.md 1.1, "Reruns"): the welcome says how many
// objects the sender id has stored and the input digest its sender reported for them; a
// connection told that its messages are the whole stream (skip_stored) checks and drops that
// many first messages instead of sending them again, and the stream's digest goes on from there.
#include <cinttypes>
#include <cstdio>

#include "client/lib/connection_core.hpp"
#include "proto/input_digest.hpp"

namespace objwire::client {
namespace {

std::string hex(std::uint64_t v) {
    char text[20];
    std::snprintf(text, sizeof text, "%016" PRIx64, v);
    return text;
}

}  // namespace

void connection_core::learn_stored() {
    stored_at_open_ = core_.peer().stored_objects;
    stored_digest_ = core_.peer().stored_digest;
    skip_digest_ = empty_input_digest;
    skipped_ = 0;
    to_skip_ = skip_stored_ ? stored_at_open_ : 0;
    // A stream that goes on after what its id stored goes on with their digest; after objects
    // stored without one, its digest is unknown too (0 stays 0).
    if (to_skip_ == 0)
        core_.continue_input_digest(stored_at_open_ == 0 ? empty_input_digest : stored_digest_);
}

std::error_code connection_core::skip_message(const message& m) {
    if (input_mismatch_) return client_errc::input_mismatch;
    skip_digest_ = chain_input_digest(skip_digest_, object_digest(m));
    if (++skipped_ < to_skip_) return {};
    if (stored_digest_ != 0 && skip_digest_ != stored_digest_) {
        input_mismatch_ = true;
        last_error_ =
            "the input is not the one sender id '" + settings_.sender_id + "' stored: its first " +
            std::to_string(to_skip_) + " objects differ from the " + std::to_string(to_skip_) +
            " stored (input digest " + hex(skip_digest_) + ", stored " + hex(stored_digest_) +
            "); nothing of it was sent. Rerun the input that was sent under this id, "
            "or send this one under another sender id";
        return client_errc::input_mismatch;
    }
    core_.continue_input_digest(stored_digest_ == 0 ? 0 : skip_digest_);
    return {};
}

std::error_code connection_core::check_skipped_all() {
    if (input_mismatch_ || skipped_ >= to_skip_) return {};
    input_mismatch_ = true;
    last_error_ = "the input has " + std::to_string(skipped_) + " objects, fewer than the " +
                  std::to_string(to_skip_) + " sender id '" + settings_.sender_id +
                  "' stored: it is not the input that was sent under this id (nothing of it was "
                  "sent)";
    return client_errc::input_mismatch;
}

}  // namespace objwire::client
