#include "daemon/serve/pending_hellos.hpp"

#include <algorithm>

namespace objwire::daemon {

std::uint32_t pending_hellos::cap_in_all(std::uint32_t configured,
                                         std::optional<std::uint64_t> descriptors) {
    std::uint64_t cap = configured;
    if (descriptors) cap = std::min<std::uint64_t>(cap, *descriptors / 2);
    return static_cast<std::uint32_t>(std::max<std::uint64_t>(cap, 1));
}

std::uint64_t pending_hellos::accepted(const std::string& address, caps c, std::vector<shed>& out) {
    std::lock_guard lock(mutex_);
    auto& mine = by_address_[address];
    if (c.per_address != 0 && mine.size() >= c.per_address) {
        out.push_back({*mine.begin(), std::to_string(mine.size()) + " connections from " + address +
                                          " waiting for their hello, the limit per address "
                                          "(limits.max_pending_hellos_per_address = " +
                                          std::to_string(c.per_address) +
                                          "); the oldest is closed"});
        forget(out.back().id);
    } else if (c.in_all != 0 && by_age_.size() >= c.in_all) {
        out.push_back({by_age_.begin()->first,
                       std::to_string(by_age_.size()) +
                           " connections waiting for their hello, the daemon's limit "
                           "(limits.max_pending_hellos = " +
                           std::to_string(c.in_all) +
                           ", at most half the descriptor limit); the oldest is closed"});
        forget(out.back().id);
    }
    const auto id = next_id_++;
    by_age_.emplace(id, address);
    by_address_[address].insert(id);
    return id;
}

void pending_hellos::done(std::uint64_t id) {
    std::lock_guard lock(mutex_);
    forget(id);
}

std::optional<pending_hellos::shed> pending_hellos::shed_oldest(const std::string& why) {
    std::lock_guard lock(mutex_);
    if (by_age_.empty()) return std::nullopt;
    shed out{by_age_.begin()->first, why};
    forget(out.id);
    return out;
}

void pending_hellos::forget(std::uint64_t id) {
    const auto it = by_age_.find(id);
    if (it == by_age_.end()) return;
    const auto address = by_address_.find(it->second);
    if (address != by_address_.end()) {
        address->second.erase(id);
        if (address->second.empty()) by_address_.erase(address);
    }
    by_age_.erase(it);
}

std::size_t pending_hellos::waiting() const {
    std::lock_guard lock(mutex_);
    return by_age_.size();
}

std::size_t pending_hellos::waiting(const std::string& address) const {
    std::lock_guard lock(mutex_);
    const auto it = by_address_.find(address);
    return it == by_address_.end() ? 0 : it->second.size();
}

}  // namespace objwire::daemon
