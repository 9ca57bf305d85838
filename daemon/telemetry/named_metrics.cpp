#include "daemon/telemetry/named_metrics.hpp"

#include <algorithm>

namespace objwire::daemon {

void sender_meter::add(entry& to, const entry& from) {
    to.objects += from.objects;
    to.bytes += from.bytes;
    to.last_seen = std::max(to.last_seen, from.last_seen);
    to.tick = std::max(to.tick, from.tick);
}

// The least recently active id goes to "" with its counts: a linear pass over at most `cap_`
// entries, and only when an id the meter has not seen stores.
void sender_meter::evict_oldest() {
    auto oldest = ids_.begin();
    for (auto it = ids_.begin(); it != ids_.end(); ++it)
        if (it->second.tick < oldest->second.tick) oldest = it;
    add(other_, oldest->second);
    other_used_ = true;
    ids_.erase(oldest);
}

void sender_meter::stored(const std::string& id, std::uint64_t objects, std::uint64_t bytes,
                          double now_seconds) {
    const entry batch{objects, bytes, now_seconds, 0};
    std::lock_guard lock(mutex_);
    const std::uint64_t tick = ++tick_;
    if (cap_ == 0 || id.empty()) {
        add(other_, batch);
        other_.tick = tick;
        other_used_ = true;
        return;
    }
    auto it = ids_.find(id);
    if (it == ids_.end()) {
        if (ids_.size() >= cap_) evict_oldest();
        it = ids_.emplace(id, entry{}).first;
    }
    add(it->second, batch);
    it->second.tick = tick;
}

std::vector<sender_meter::row> sender_meter::rows() const {
    std::lock_guard lock(mutex_);
    std::vector<row> out;
    out.reserve(ids_.size() + 1);
    for (const auto& [id, e] : ids_)
        out.push_back({id, e.objects, e.bytes, e.last_seen});
    if (other_used_) out.push_back({"", other_.objects, other_.bytes, other_.last_seen});
    return out;
}

std::vector<cursor_lag> cursor_lags(std::vector<cursor_position> cursors, std::uint64_t next_offset,
                                    std::size_t cap) {
    // Most recently moved first; among equals (cursors read at start, never moved since) by
    // name, so the labelled set does not change from one scrape to the next.
    std::sort(cursors.begin(), cursors.end(), [](const auto& a, const auto& b) {
        return a.moved != b.moved ? a.moved > b.moved : a.name < b.name;
    });
    const std::size_t labelled = std::min(cap, cursors.size());
    std::vector<cursor_lag> out;
    out.reserve(labelled + 1);
    for (std::size_t i = 0; i < labelled; ++i)
        out.push_back({cursors[i].name, lag_behind(next_offset, cursors[i].next_offset)});
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    if (labelled < cursors.size()) {
        std::uint64_t worst = 0;
        for (std::size_t i = labelled; i < cursors.size(); ++i)
            worst = std::max(worst, lag_behind(next_offset, cursors[i].next_offset));
        out.push_back({"", worst});
    }
    return out;
}

std::uint64_t reader_positions::add(std::uint64_t next_offset, std::string name) {
    std::lock_guard lock(mutex_);
    const auto key = ++next_key_;
    at_[key] = {std::move(name), next_offset};
    return key;
}

void reader_positions::move(std::uint64_t key, std::uint64_t next_offset) {
    std::lock_guard lock(mutex_);
    if (auto it = at_.find(key); it != at_.end()) it->second.at = next_offset;
}

void reader_positions::remove(std::uint64_t key) {
    std::lock_guard lock(mutex_);
    at_.erase(key);
}

std::optional<std::uint64_t> reader_positions::slowest() const {
    std::lock_guard lock(mutex_);
    std::optional<std::uint64_t> out;
    for (const auto& [key, r] : at_)
        if (!out || r.at < *out) out = r.at;
    return out;
}

std::vector<cursor_position> reader_positions::positions() const {
    std::lock_guard lock(mutex_);
    std::vector<cursor_position> out;
    out.reserve(at_.size());
    for (const auto& [key, r] : at_)
        out.push_back({r.name, r.at, key});
    return out;
}

}  // namespace objwire::daemon
