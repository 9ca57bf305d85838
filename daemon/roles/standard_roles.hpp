// The roles objwired serves besides senders, as the server's role table
// (daemon/serve/roles.hpp): readers (reads, follows, cursors, the sender list) and stats.
#pragma once

#include <asio.hpp>
#include <string>

#include "daemon/serve/peer_stream.hpp"
#include "daemon/serve/roles.hpp"
#include "proto/control.hpp"

namespace objwire::daemon {

// Reader: streams stored objects back (docs/JOURNAL.md) from hello.read_from, then follows
// new ones if hello.follow. Writes its own welcome. (daemon/roles/reader_service.cpp)
asio::awaitable<void> serve_reader(server& srv, peer_stream& stream, const std::string& peer,
                                   const hello& h);
// Stats: answers with one stats frame of the daemon's metrics, then goodbye.
// (daemon/roles/stats_service.cpp)
asio::awaitable<void> serve_stats(server& srv, peer_stream& stream, const std::string& peer,
                                  const hello& h);

// Every role above, for server's constructor.
role_table standard_roles();

}  // namespace objwire::daemon
