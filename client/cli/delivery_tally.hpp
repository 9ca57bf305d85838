// What one follower of `objwire bench --readers N` received, counted from the stored blocks'
// headers (proto/journal_block.hpp) without decoding an object: for each of the bench's
// senders, how many of its objects had arrived by when, and whether the journal's offsets ran
// on without a hole from the follower's start - so that the bench still proves every object
// was delivered, once and in order, while its followers cost it next to no CPU. No I/O: the
// caller says what arrived and when.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace objwire::client {

class delivery_tally {
  public:
    // `senders`: each bench sender's id and its index; the map must outlive the tally.
    explicit delivery_tally(const std::unordered_map<std::string, std::size_t>& senders)
        : senders_(senders), arrivals_(senders.size()), delivered_(senders.size()) {}

    // The offset the stream starts at (the daemon's welcome): objects below it do not count.
    void start_at(std::uint64_t offset) { expected_ = offset; }

    // A block of `objects` objects from `first_offset` on arrived at `t_ns`: those at or past
    // the next offset expected count for their sender, if it is one of the bench's. A block
    // that starts past that offset means objects never arrived: the tally fails.
    void block(std::string_view sender, std::uint64_t first_offset, std::uint32_t objects,
               std::int64_t t_ns) {
        if (!error_.empty()) return;
        if (first_offset > expected_) return missed(expected_, first_offset);
        const std::uint64_t end = first_offset + objects;
        if (end <= expected_) return;  // all of it below the start
        const std::uint64_t fresh = end - expected_;
        expected_ = end;
        const auto it = senders_.find(std::string(sender));
        if (it == senders_.end()) return;  // another client's objects
        const std::size_t k = it->second;
        delivered_[k] += fresh;
        total_ += fresh;
        arrivals_[k].emplace_back(delivered_[k], t_ns);
    }
    // The daemon reported [first, end) lost: objects of the bench may be among them.
    void gap(std::uint64_t first, std::uint64_t end) {
        if (error_.empty() && end > expected_) missed(std::max(first, expected_), end);
    }

    // Objects of the bench's senders delivered so far.
    std::uint64_t delivered() const { return total_; }
    std::uint64_t delivered(std::size_t sender) const { return delivered_[sender]; }
    // Empty, or which offsets never arrived.
    const std::string& error() const { return error_; }

    // Calls f(i, t_ns) for each object i of sender `k` delivered, in the sender's order, with
    // the time its block arrived.
    template <class F>
    void for_each_arrival(std::size_t k, F&& f) const {
        std::uint64_t i = 0;
        for (const auto& [through, t_ns] : arrivals_[k])
            for (; i < through; ++i)
                f(i, t_ns);
    }

  private:
    void missed(std::uint64_t first, std::uint64_t end) {
        error_ = "the objects at offsets [" + std::to_string(first) + ", " + std::to_string(end) +
                 ") never arrived";
    }

    const std::unordered_map<std::string, std::size_t>& senders_;
    // Per sender: (objects delivered through this block, when it arrived), one per block.
    std::vector<std::vector<std::pair<std::uint64_t, std::int64_t>>> arrivals_;
    std::vector<std::uint64_t> delivered_;
    std::uint64_t total_ = 0;
    std::uint64_t expected_ = 0;  // the offset the next block should bring
    std::string error_;
};

}  // namespace objwire::client
