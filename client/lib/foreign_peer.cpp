#include "client/lib/foreign_peer.hpp"

#include <cstdio>

#include <objwire/proto/frame.hpp>

namespace objwire::client {
namespace {

// Enough of a text reply to recognise it (a status line, a banner).
constexpr std::size_t shown_bytes = 60;

std::string first_line(std::span<const std::uint8_t> bytes) {
    std::string out;
    for (std::size_t i = 0; i < bytes.size() && i < shown_bytes; ++i) {
        const auto c = bytes[i];
        if (c == '\r' || c == '\n') break;
        if (c >= 0x20 && c < 0x7f) {
            out += static_cast<char>(c);
        } else {
            char hex[5];
            std::snprintf(hex, sizeof hex, "\\x%02x", c);
            out += hex;
        }
    }
    return out;
}

}  // namespace

std::string foreign_reply(std::span<const std::uint8_t> first) {
    if (first.empty()) return {};
    const auto kind = static_cast<frame_kind>(first[0]);
    if (kind == frame_kind::welcome || kind == frame_kind::error) return {};
    // A TLS record's content type: an alert (21) or a handshake (22).
    if (first[0] == 21 || first[0] == 22)
        return "the peer is not objwired without TLS: it answered in TLS (tls.enabled)";
    return "the peer is not objwired: it answered \"" + first_line(first) + "\"";
}

}  // namespace objwire::client
