// Text a peer chose, made safe to print or log: control characters, DEL and backslash are
// written as \xNN, so a peer cannot end a line and forge the next one, move the cursor, or hide
// text with terminal escapes. Other bytes (UTF-8 included) stay as they are. Used for what a
// daemon logs of its clients (client names, sender ids, cursors) and for every error frame's
// text (proto/control.hpp, read_error_frame), which clients print.
#pragma once

#include <string>
#include <string_view>

namespace objwire {

inline std::string escape_control_chars(std::string_view s) {
    static constexpr char hex[] = "0123456789abcdef";
    std::string out;
    out.reserve(s.size());
    for (const char c : s) {
        const auto b = static_cast<unsigned char>(c);
        if (b >= 0x20 && b != 0x7f && b != '\\') {
            out.push_back(c);
            continue;
        }
        out += "\\x";
        out.push_back(hex[b >> 4]);
        out.push_back(hex[b & 15]);
    }
    return out;
}

}  // namespace objwire
