// Connections open per source IP address (limits.max_connections_per_address), so that one
// host cannot take every slot of server.max_connections. The accept loop asks before it
// starts a session and gives the slot back when the session ends. Thread-safe.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>

namespace objwire::daemon {

class address_limiter {
  public:
    // Takes a slot for `address` unless it already holds `max`; false: refuse the peer.
    bool try_acquire(const std::string& address, std::uint32_t max) {
        std::lock_guard lock(mutex_);
        auto& n = open_[address];
        if (n >= max) return false;
        ++n;
        return true;
    }
    void release(const std::string& address) {
        std::lock_guard lock(mutex_);
        auto it = open_.find(address);
        if (it == open_.end()) return;
        if (--it->second == 0) open_.erase(it);
    }
    std::uint32_t open(const std::string& address) const {
        std::lock_guard lock(mutex_);
        auto it = open_.find(address);
        return it == open_.end() ? 0 : it->second;
    }

  private:
    mutable std::mutex mutex_;
    std::unordered_map<std::string, std::uint32_t> open_;
};

}  // namespace objwire::daemon
