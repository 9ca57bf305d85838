// Connections accepted that have not yet said their hello (limits.max_pending_hellos in all,
// limits.max_pending_hellos_per_address per source address). A flood of connections that never
// speak must not take the slots and descriptors honest peers need, and refusing newcomers
// would refuse the honest ones with the flood: so at a cap the oldest connection still
// waiting for its hello is shed, and the newcomer is served. An honest client says its hello
// within a round trip of connecting; only a flood arriving faster than the cap per round trip
// can push it out. The cap in all is also at most half the descriptor limit, so silent
// connections alone never exhaust the descriptors: the other half stays for connections that
// said their hello, the journal and the refusals. No I/O: the accept loop asks, the session
// says when its hello came or it ended. Thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace objwire::daemon {

class pending_hellos {
  public:
    struct caps {
        std::uint32_t in_all = 0;       // 0: none
        std::uint32_t per_address = 0;  // 0: none
    };
    // A connection to close because it waited for its hello when the caps were reached.
    struct shed {
        std::uint64_t id = 0;
        std::string why;  // for its peer and the log: the figure, the limit, the key
    };

    // The cap in all for a process whose descriptor limit (RLIMIT_NOFILE, soft) is
    // `descriptors` (none: unlimited): the configured one, at most half the descriptors, and
    // at least 1.
    static std::uint32_t cap_in_all(std::uint32_t configured,
                                    std::optional<std::uint64_t> descriptors);

    // A connection from `address` is accepted: its id, for hello() and closed(). Appends to
    // `out` those to shed so that, with it, the caps hold: the address's oldest when the
    // address is at its cap, else the oldest of all when all are at theirs.
    std::uint64_t accepted(const std::string& address, caps c, std::vector<shed>& out);
    // The connection said its hello, or it ended (either may come first; both are fine).
    void done(std::uint64_t id);
    // Out of descriptors: the oldest connection waiting, to close now (none: none waits), and
    // no longer counted.
    std::optional<shed> shed_oldest(const std::string& why);

    std::size_t waiting() const;
    std::size_t waiting(const std::string& address) const;

  private:
    // Takes `id` out of both indexes (under the lock).
    void forget(std::uint64_t id);

    mutable std::mutex mutex_;
    std::uint64_t next_id_ = 1;
    std::map<std::uint64_t, std::string> by_age_;  // id (oldest first) -> address
    std::unordered_map<std::string, std::set<std::uint64_t>> by_address_;  // oldest first
};

}  // namespace objwire::daemon
