// "1 object", "2 objects": counts in messages (the CLI's reports, the daemon's log) read as
// English.
#pragma once

#include <cstdint>
#include <string>

namespace objwire {

inline std::string counted(std::uint64_t n, const char* word) {
    return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

}  // namespace objwire
