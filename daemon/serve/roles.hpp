// What a connection does after its hello, by the role the hello names (proto/control.hpp,
// peer_role). Senders stream into the session's sink (daemon/serve/session.*); the other roles take
// the connection over once the session has checked access and handed them the peer stream.
#pragma once

#include <asio.hpp>
#include <string>

#include "daemon/serve/address_limiter.hpp"
#include "daemon/serve/peer_stream.hpp"
#include "proto/control.hpp"

namespace objwire::daemon {

class server;

// Reader: streams stored objects back (docs/JOURNAL.md) from hello.read_from, then follows
// new ones if hello.follow. Writes its own welcome. (daemon/roles/reader_service.cpp)
asio::awaitable<void> serve_reader(server& srv, peer_stream& stream, const std::string& peer,
                                   const hello& h);
// Stats: answers with one stats frame of the daemon's metrics, then goodbye.
// (daemon/roles/stats_service.cpp)
asio::awaitable<void> serve_stats(server& srv, peer_stream& stream, const std::string& peer,
                                  const hello& h);

// Marks the connection's slot of its source address as held by `role` while the guard lives,
// so a refusal at limits.max_connections_per_address says which roles hold the address.
slot_role_mark mark_slot(server& srv, peer_stream& stream, slot_role role);

// Writes a welcome-less refusal: an error frame with `code` and `text`. For roles that cannot
// be served.
asio::awaitable<void> refuse_role(peer_stream& stream, std::error_code code, std::string text);

}  // namespace objwire::daemon
