// Out of descriptors with no connection left waiting for its hello, which connection that did
// say its hello may be closed for a newcomer: the sender that completed no frame for the
// longest, if that is at least limits.shed_idle_after (10 s) - a sender between bursts of a
// fleet, not one in the middle of its stream, and never a reader or a stats connection (a
// follower waits at the live end by design). It is told why (an error frame
// too_many_connections) and reconnects when it has more to send; without such a sender the
// newcomer is refused through the spare descriptor as before. No I/O: the server gathers the
// candidates, this picks.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

namespace objwire::daemon {

struct idle_candidate {
    std::uint64_t id = 0;
    std::chrono::steady_clock::time_point last_frame;  // or its welcome, before any frame
};

// The candidate idle longest at `now`, if idle at least `min_idle` (none: none is).
std::optional<std::uint64_t> idlest_sender(std::span<const idle_candidate> candidates,
                                           std::chrono::steady_clock::time_point now,
                                           std::chrono::steady_clock::duration min_idle);

}  // namespace objwire::daemon
