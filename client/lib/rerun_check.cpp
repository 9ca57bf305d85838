#include "client/lib/rerun_check.hpp"

#include <cinttypes>
#include <cstdio>

#include "proto/input_digest.hpp"

namespace objwire::client {
namespace {

std::string hex(std::uint64_t v) {
    char text[20];
    std::snprintf(text, sizeof text, "%016" PRIx64, v);
    return text;
}

}  // namespace

std::optional<std::uint64_t> rerun_check::learn(std::uint64_t stored_objects,
                                                std::uint64_t stored_digest) {
    stored_ = stored_objects;
    stored_digest_ = stored_digest;
    skip_digest_ = empty_input_digest;
    skipped_ = 0;
    to_skip_ = skip_stored_ ? stored_ : 0;
    if (to_skip_ > 0) return std::nullopt;
    // A stream that goes on after what its id stored goes on with their digest; after objects
    // stored without one, its digest is unknown too (0 stays 0).
    return stored_ == 0 ? empty_input_digest : stored_digest_;
}

rerun_check::outcome rerun_check::skip(std::uint64_t object_digest) {
    if (mismatch_) return outcome::mismatched;
    skip_digest_ = chain_input_digest(skip_digest_, object_digest);
    if (++skipped_ < to_skip_) return outcome::more;
    if (stored_digest_ != 0 && skip_digest_ != stored_digest_) {
        mismatch_ = true;
        return outcome::differs;
    }
    return outcome::last;
}

bool rerun_check::input_ended() {
    if (mismatch_ || skipped_ >= to_skip_) return false;
    mismatch_ = true;
    return true;
}

std::string rerun_check::mismatch_text(const std::string& sender_id) const {
    return "the input is not the one sender id '" + sender_id + "' stored: its first " +
           std::to_string(to_skip_) + " objects differ from the " + std::to_string(to_skip_) +
           " stored (input digest " + hex(skip_digest_) + ", stored " + hex(stored_digest_) +
           "); nothing of it was sent. Rerun the input that was sent under this id, "
           "or send this one under another sender id";
}

std::string rerun_check::short_input_text(const std::string& sender_id) const {
    return "the input has " + std::to_string(skipped_) + " objects, fewer than the " +
           std::to_string(to_skip_) + " sender id '" + sender_id +
           "' stored: it is not the input that was sent under this id (nothing of it was sent)";
}

}  // namespace objwire::client
