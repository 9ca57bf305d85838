// The daemon's side of `objwire senders` (docs/PROTOCOL.md 1.2, "Sender list"): the sender ids
// whose objects the journal holds, from block headers up to the durable end.
#pragma once

#include <asio.hpp>
#include <chrono>
#include <string>

#include "daemon/serve/peer_stream.hpp"
#include "daemon/store/journal.hpp"

namespace objwire::daemon {

// Answers a list_senders hello: sender_list frames, then a goodbye; or an error frame.
// A peer that takes none of the answer for `idle` is given up.
asio::awaitable<void> serve_sender_list(journal& j, peer_stream& stream, const std::string& peer,
                                        std::chrono::milliseconds idle);

}  // namespace objwire::daemon
