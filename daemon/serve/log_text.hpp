// Text a peer chose (a client name, a sender id, a cursor name), made safe to put in a log
// line: control characters, DEL and backslash are written as \xNN (proto/control_text.hpp).
#pragma once

#include <string>
#include <string_view>

#include "proto/control_text.hpp"

namespace objwire::daemon {

inline std::string log_text(std::string_view s) {
    return escape_control_chars(s);
}

}  // namespace objwire::daemon
