// Connections open per source IP address (limits.max_connections_per_address), so that one
// host cannot take every slot of server.max_connections. The accept loop asks before it
// starts a session and gives the slot back when the session ends. A role that takes a
// connection over after its hello (reader, stats) marks its slot for the time it holds it, so
// a refusal at the cap can say who holds the address's slots ("60 readers, 4 senders or before
// their hello"). Thread-safe.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>

namespace objwire::daemon {

// Who holds a slot: every slot is `other` (a sender, or a connection before its hello) until
// a role marks it.
enum class slot_role : std::uint8_t { other, reader, stats };

// The slots one address holds, by role.
struct address_slots {
    std::uint32_t open = 0;  // every slot of the address
    std::uint32_t readers = 0;
    std::uint32_t stats = 0;
    std::uint32_t others() const { return open - readers - stats; }
};

// "60 readers, 4 senders or before their hello" (roles holding none are left out).
inline std::string describe(const address_slots& s) {
    std::string text;
    const auto add = [&](std::uint32_t n, const char* one, const char* many) {
        if (n == 0) return;
        if (!text.empty()) text += ", ";
        text += std::to_string(n) + " " + (n == 1 ? one : many);
    };
    add(s.readers, "reader", "readers");
    add(s.stats, "stats query", "stats queries");
    add(s.others(), "sender or before its hello", "senders or before their hello");
    return text.empty() ? "none" : text;
}

class address_limiter {
  public:
    // Takes a slot for `address` unless it already holds `max` (0: no cap, the slots are
    // still counted); false: refuse the peer.
    bool try_acquire(const std::string& address, std::uint32_t max) {
        std::lock_guard lock(mutex_);
        auto& n = open_[address];
        if (max != 0 && n.open >= max) return false;
        ++n.open;
        return true;
    }
    void release(const std::string& address) {
        std::lock_guard lock(mutex_);
        auto it = open_.find(address);
        if (it == open_.end()) return;
        if (--it->second.open == 0) open_.erase(it);
    }
    std::uint32_t open(const std::string& address) const { return slots(address).open; }
    address_slots slots(const std::string& address) const {
        std::lock_guard lock(mutex_);
        auto it = open_.find(address);
        return it == open_.end() ? address_slots{} : it->second;
    }
    // One of the address's slots is held by `role` from now on (from `other`), or back to
    // `other` with mark(address, role, false). A slot must be held: a role marks only the
    // connection it serves, between acquire and release.
    void mark(const std::string& address, slot_role role, bool held) {
        std::lock_guard lock(mutex_);
        auto it = open_.find(address);
        if (it == open_.end() || role == slot_role::other) return;
        auto& n = role == slot_role::reader ? it->second.readers : it->second.stats;
        if (held && it->second.others() > 0) ++n;
        if (!held && n > 0) --n;
    }

  private:
    mutable std::mutex mutex_;
    std::unordered_map<std::string, address_slots> open_;
};

// Marks one slot of `address` as held by `role` for the guard's lifetime.
class slot_role_mark {
  public:
    slot_role_mark(address_limiter& limiter, std::string address, slot_role role)
        : limiter_(limiter), address_(std::move(address)), role_(role) {
        limiter_.mark(address_, role_, true);
    }
    ~slot_role_mark() { limiter_.mark(address_, role_, false); }
    slot_role_mark(const slot_role_mark&) = delete;
    slot_role_mark& operator=(const slot_role_mark&) = delete;

  private:
    address_limiter& limiter_;
    std::string address_;
    slot_role role_;
};

}  // namespace objwire::daemon
