#include "daemon/sender_registry.hpp"

#include <algorithm>
#include <utility>

namespace objwire::daemon {

void sender_registry::remember(const std::string& id, std::uint64_t last_sequence) {
    std::lock_guard lock(mutex_);
    auto& e = entries_[id];
    e.last_durable = std::max(e.last_durable, last_sequence);
}

std::uint64_t sender_registry::last_durable(const std::string& id) const {
    std::lock_guard lock(mutex_);
    auto it = entries_.find(id);
    return it == entries_.end() ? 0 : it->second.last_durable;
}

std::size_t sender_registry::size() const {
    std::lock_guard lock(mutex_);
    return entries_.size();
}

std::vector<std::function<void()>> sender_registry::take_waiters_if_free(entry& e) {
    if (e.owner != 0 || e.in_flight != 0) return {};
    return std::exchange(e.waiting, {});
}

void sender_registry::batch_committed(const std::string& id) {
    std::lock_guard lock(mutex_);
    ++entries_[id].in_flight;
}

void sender_registry::batch_done(const std::string& id, std::uint64_t last_sequence, bool durable) {
    std::vector<std::function<void()>> wake;
    {
        std::lock_guard lock(mutex_);
        auto& e = entries_[id];
        if (e.in_flight > 0) --e.in_flight;
        if (durable) e.last_durable = std::max(e.last_durable, last_sequence);
        wake = take_waiters_if_free(e);
    }
    for (auto& w : wake)
        w();
}

bool sender_registry::try_claim(const std::string& id, std::uint64_t owner,
                                std::function<void()> stop, std::function<void()> on_free) {
    std::function<void()> stop_holder;
    {
        std::lock_guard lock(mutex_);
        auto& e = entries_[id];
        if (e.owner == 0 && e.in_flight == 0) {
            e.owner = owner;
            e.stop_owner = std::move(stop);
            e.stop_asked = false;
            return true;
        }
        e.waiting.push_back(std::move(on_free));
        if (e.owner != 0 && !e.stop_asked) {
            e.stop_asked = true;
            stop_holder = e.stop_owner;
        }
    }
    if (stop_holder) stop_holder();
    return false;
}

void sender_registry::release(const std::string& id, std::uint64_t owner) {
    std::vector<std::function<void()>> wake;
    {
        std::lock_guard lock(mutex_);
        auto it = entries_.find(id);
        if (it == entries_.end() || it->second.owner != owner) return;
        it->second.owner = 0;
        it->second.stop_owner = nullptr;
        wake = take_waiters_if_free(it->second);
    }
    for (auto& w : wake)
        w();
}

}  // namespace objwire::daemon
