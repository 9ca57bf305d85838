// The rerun rule on the client side (docs/PROTOCOL.md 1.1, "Reruns"): the welcome says how many
// objects the sender id has stored and the input digest its sender reported for them; a
// connection told that its messages are the whole stream (skip_stored) checks and drops that
// many first messages instead of sending them again, and the stream's digest goes on from
// there. No I/O: the connection gives it the welcome's figures and each skipped message's
// digest, and sends what it says.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace objwire::client {

class rerun_check {
  public:
    // What skip() found.
    enum class outcome {
        more,        // skipped; more stored ones are still to come
        last,        // the last stored one skipped, the digests agree: goes_on_with()
        differs,     // the last stored one skipped, the digests differ: mismatch_text()
        mismatched,  // a mismatch was found before: nothing is checked any more
    };

    void skip_stored(bool on) { skip_stored_ = on; }
    // At open(), the welcome's stored objects and input digest (0: unknown). The digest the
    // stream goes on with when nothing is to be skipped; none while the stored are skipped.
    std::optional<std::uint64_t> learn(std::uint64_t stored_objects, std::uint64_t stored_digest);
    // The next message is one of the stored ones, to be checked and dropped.
    bool skipping() const { return skipped_ < to_skip_; }
    // One stored message skipped, with its object digest (proto/input_digest.hpp).
    outcome skip(std::uint64_t object_digest);
    // After `last`: the stream's digest goes on from the skipped ones' (0 stays unknown).
    std::uint64_t goes_on_with() const { return stored_digest_ == 0 ? 0 : skip_digest_; }
    // The input ended (close()): true if it ended before the stored ones did - another input,
    // whose reason is short_input_text().
    bool input_ended();
    bool mismatch() const { return mismatch_; }

    std::uint64_t stored_objects() const { return stored_; }
    std::uint64_t skipped() const { return skipped_; }
    std::string mismatch_text(const std::string& sender_id) const;
    std::string short_input_text(const std::string& sender_id) const;

  private:
    bool skip_stored_ = false;
    bool mismatch_ = false;
    std::uint64_t stored_ = 0;         // stored objects, from the welcome at open()
    std::uint64_t stored_digest_ = 0;  // their input digest (welcome field 18): 0 unknown
    std::uint64_t to_skip_ = 0;
    std::uint64_t skipped_ = 0;
    std::uint64_t skip_digest_ = 0;  // the input digest of the messages skipped so far
};

}  // namespace objwire::client
