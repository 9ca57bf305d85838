// Which relays a sender stream passed (hello field 17, docs/PROTOCOL.md 1.5), and whether this
// daemon takes it: a relay that finds its own id in the path is part of a loop (A forwards to
// B, B to A), and a path as long as limits.max_hops is refused too, so a chain of relays can
// never grow without end. No I/O: the session asks at the hello, the forward sink adds itself.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace objwire::daemon {

// A relay's id for the path: where it listens and a random part drawn at its start, so two
// relays on one address (one after the other, or behind NAT) are told apart.
std::string make_relay_id(std::string_view listen);

// Why a stream that passed `path` is refused here ("" taken). `self`: this daemon's relay id
// ("" when it is not a relay).
std::string relay_path_refusal(const std::vector<std::string>& path, std::string_view self,
                               std::uint64_t max_hops);

// "A -> B -> C", for people.
std::string path_text(const std::vector<std::string>& path);

}  // namespace objwire::daemon
