// The daemon's side of named reader cursors (docs/PROTOCOL.md 1.2): `objwire cursor list` and
// `delete` (a reader hello with cursor_command), and, while a cursor reader is served, the
// watcher that reads its acknowledgements and stores them in the cursor store.
#pragma once

#include <asio.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "daemon/roles/reader_support.hpp"
#include "daemon/serve/transport.hpp"
#include "daemon/store/cursor_store.hpp"
#include "proto/control.hpp"

namespace objwire::daemon {

// Answers a cursor_command hello: a cursor_list frame, a goodbye (deleted) or an error frame.
asio::awaitable<void> serve_cursor_command(cursor_store& store, transport& stream,
                                           const std::string& peer, const hello& h);

// Reads a cursor reader's frames until it says goodbye, closes or breaks the protocol: each
// ack moves the cursor `name` to its offset once `acceptable(offset)` says it names only
// objects already served. Like reader_support::watch_peer it then marks the peer done; a
// goodbye also sets st->peer_goodbye, which the reader answers with a goodbye of its own.
asio::awaitable<void> watch_cursor_peer(transport& stream,
                                        std::shared_ptr<reader_support::reader_state> st,
                                        cursor_store& store, std::string name,
                                        std::function<bool(std::uint64_t)> acceptable,
                                        std::string peer);

}  // namespace objwire::daemon
