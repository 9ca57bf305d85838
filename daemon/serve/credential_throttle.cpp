#include "daemon/serve/credential_throttle.hpp"

#include <algorithm>

namespace objwire::daemon {

double credential_throttle::refill(bucket& b, clock::time_point now) const {
    const double seconds = std::chrono::duration<double>(now - b.at).count();
    if (seconds > 0) {
        b.allowance = std::min(rule_.burst, b.allowance + seconds * rule_.per_second);
        b.at = now;
    }
    return b.allowance;
}

bool credential_throttle::may_check(const std::string& address, clock::time_point now,
                                    clock::duration* wait) {
    const auto it = buckets_.find(address);
    if (it == buckets_.end()) return true;
    const double left = refill(it->second, now);
    if (left >= 1) return true;
    if (wait)
        *wait = std::chrono::duration_cast<clock::duration>(
            std::chrono::duration<double>((1 - left) / rule_.per_second));
    return false;
}

void credential_throttle::failed(const std::string& address, clock::time_point now) {
    auto it = buckets_.find(address);
    if (it == buckets_.end()) {
        if (buckets_.size() >= rule_.max_addresses) forget_whole(now);
        it = buckets_.emplace(address, bucket{rule_.burst, now}).first;
    }
    refill(it->second, now);
    it->second.allowance = std::max(0.0, it->second.allowance - 1);
}

void credential_throttle::forget_whole(clock::time_point now) {
    // An address whose allowance is whole again is as good as one never seen.
    for (auto it = buckets_.begin(); it != buckets_.end();)
        it = refill(it->second, now) >= rule_.burst ? buckets_.erase(it) : std::next(it);
    // All still short: the oldest goes, so the table stays bounded (that address is forgiven).
    if (buckets_.size() >= rule_.max_addresses) {
        const auto oldest = std::ranges::min_element(
            buckets_, [](const auto& a, const auto& b) { return a.second.at < b.second.at; });
        buckets_.erase(oldest);
    }
}

}  // namespace objwire::daemon
