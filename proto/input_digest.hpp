// The input digest of a sender stream (docs/PROTOCOL.md 1.1, "Reruns"): a running 64-bit hash
// over the stream's objects in order, which the sender reports with each data frame (a mark
// frame) and the receiver stores with the frame's objects. A rerun of the same input under the
// same sender id compares the digest of its input's first N objects with the stored one before
// it skips them. It tells a different input from the same one (equal objects, in the same
// order, give the same digest - whitespace and key quoting in JSON lines do not matter); it is
// not cryptographic and does not stand against a forged input.
#pragma once

#include <cstdint>

#include "proto/value.hpp"

namespace objwire {

// The digest of an input of no object. Never 0: 0 on the wire means "no digest".
inline constexpr std::uint64_t empty_input_digest = 0x6f626a7769726531ULL;  // "objwire1"

// A hash of one object: its root value and shared objects, kinds, record types and field
// names included (shared_keys, the sender's own cache hints, are not).
std::uint64_t object_digest(const message& m);

// The digest of an input after one more object; 0 (unknown) stays 0.
std::uint64_t chain_input_digest(std::uint64_t digest, std::uint64_t object);

}  // namespace objwire
