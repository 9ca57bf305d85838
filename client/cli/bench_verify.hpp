// `objwire bench --verify`: after the run, reads back what this run's sender id stored
// (include/objwire/reader.hpp, filtered by sender) and compares each object, by canonical form,
// with the workload generated again from the same seed.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "config/settings.hpp"

namespace objwire::client {

struct verify_result {
    std::uint64_t read = 0;        // objects read back
    std::uint64_t verified = 0;    // of them, equal to the one generated at their place
    std::uint64_t mismatches = 0;  // different, missing or extra objects
    std::string error;             // the read failed: why (mismatches count what is missing)
    bool ok() const { return mismatches == 0 && error.empty(); }
};

// `count` objects of `workload` (seed 42, as bench sends them) against what `sender_id`
// stored in the daemon `settings` point to.
verify_result verify_stored(const config::client_settings& settings, const std::string& sender_id,
                            std::string_view workload, std::uint64_t count);

}  // namespace objwire::client
