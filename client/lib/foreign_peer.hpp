// Whether the first bytes a server sent can be objwired's answer to a hello: it answers with a
// welcome or an error frame (docs/PROTOCOL.md, "Frames"), whose first byte is its kind. A
// server of another protocol (an HTTP port, an SMTP banner, a TLS alert to a plain client)
// answers otherwise, and the connection says so at once instead of waiting for a frame.
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace objwire::client {

// "" when `first` (the reply's first bytes, at least one) may begin a welcome or an error
// frame; otherwise why not, for people: `the peer is not objwired: it answered "HTTP/1.1 400
// Bad Request"` (its first line, control bytes as \xNN).
std::string foreign_reply(std::span<const std::uint8_t> first);

}  // namespace objwire::client
