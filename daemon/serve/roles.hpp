// What a connection does after its hello, by the role the hello names (proto/control.hpp,
// peer_role). Senders stream into the session's sink (daemon/serve/session.*); the other roles take
// the connection over once the session has checked access and handed them the peer stream,
// through the server's role table.
#pragma once

#include <asio.hpp>
#include <functional>
#include <string>

#include "daemon/serve/address_limiter.hpp"
#include "daemon/serve/peer_stream.hpp"
#include "proto/control.hpp"

namespace objwire::daemon {

class server;

// A role's service: takes the connection over once the session has checked the hello and
// handed it the peer stream, and writes its own welcome.
using role_service = std::function<asio::awaitable<void>(server& srv, peer_stream& stream,
                                                         const std::string& peer, const hello& h)>;

// The services a server hands connections to, by the role their hello names. The roles part
// (daemon/roles/standard_roles.hpp) fills it; an empty entry refuses that role.
struct role_table {
    role_service reader;  // reader hellos: reads, follows, cursors, the sender list
    role_service stats;   // stats hellos: one stats frame, then goodbye
};

// Marks the connection's slot of its source address as held by `role` while the guard lives,
// so a refusal at limits.max_connections_per_address says which roles hold the address.
slot_role_mark mark_slot(server& srv, peer_stream& stream, slot_role role);

// Writes a welcome-less refusal: an error frame with `code` and `text`. For roles that cannot
// be served.
asio::awaitable<void> refuse_role(peer_stream& stream, std::error_code code, std::string text);

}  // namespace objwire::daemon
