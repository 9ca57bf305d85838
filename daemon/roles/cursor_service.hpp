// The daemon's side of named reader cursors (docs/PROTOCOL.md 1.2): `objwire cursor list`,
// `delete` and `set` (a reader hello with a request).
#pragma once

#include <asio.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "daemon/roles/reader_support.hpp"
#include "daemon/serve/peer_stream.hpp"
#include "daemon/store/cursor_store.hpp"
#include "proto/control.hpp"

namespace objwire::daemon {

// Answers a cursor request hello: a cursor_list frame, a goodbye (deleted, or set) or an error
// frame. `durable_end`: the journal's, the furthest a cursor may be set.
asio::awaitable<void> serve_cursor_command(cursor_store& store, std::uint64_t durable_end,
                                           peer_stream& stream, const std::string& peer,
                                           const hello& h);

}  // namespace objwire::daemon
