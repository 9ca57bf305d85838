#include "daemon/serve/idle_shedding.hpp"

namespace objwire::daemon {

std::optional<std::uint64_t> idlest_sender(std::span<const idle_candidate> candidates,
                                           std::chrono::steady_clock::time_point now,
                                           std::chrono::steady_clock::duration min_idle) {
    const idle_candidate* idlest = nullptr;
    for (const auto& c : candidates)
        if (!idlest || c.last_frame < idlest->last_frame) idlest = &c;
    if (!idlest || now - idlest->last_frame < min_idle) return std::nullopt;
    return idlest->id;
}

}  // namespace objwire::daemon
