// Failed credentials slowed per source address (docs/SECURITY.md, "Guessing tokens"): each
// address may fail `burst` times, then `per_second` more each second; beyond that its hellos
// are refused without their credential being looked at, until the next allowance comes. Other
// addresses are not touched. No I/O, no clock of its own: the server passes the time.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <unordered_map>

namespace objwire::daemon {

class credential_throttle {
  public:
    using clock = std::chrono::steady_clock;
    struct rule {
        double burst = 10;                 // failures an address may make at once
        double per_second = 1;             // then this many a second
        std::size_t max_addresses = 4096;  // addresses tracked; beyond, those that are whole go
    };

    credential_throttle() = default;
    explicit credential_throttle(rule r) : rule_(r) {}

    // Whether a credential from `address` may be checked now; when not, how long until it may.
    bool may_check(const std::string& address, clock::time_point now,
                   clock::duration* wait = nullptr);
    // A credential from `address` was wrong (or missing).
    void failed(const std::string& address, clock::time_point now);
    const rule& current_rule() const { return rule_; }
    std::size_t tracked() const { return buckets_.size(); }

  private:
    struct bucket {
        double allowance = 0;
        clock::time_point at;
    };
    // The address's allowance refilled to `now`.
    double refill(bucket& b, clock::time_point now) const;
    void forget_whole(clock::time_point now);

    rule rule_;
    std::unordered_map<std::string, bucket> buckets_;
};

}  // namespace objwire::daemon
