// Readers' starts that cost the daemon a search of its journal (by time, by a sender's last N
// objects) running at once, capped per source address (limits.max_reader_starts_per_address)
// and in all (limits.max_reader_starts): a flood of such hellos is refused past the caps
// instead of searching the journal once per hello. A start takes its slot before its search
// and gives it back when the search is done. Thread-safe.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>

namespace objwire::daemon {

class start_slots {
  public:
    // Takes a slot for `address` unless it holds `per_address` or all hold `total` (0: no
    // cap); the empty string when taken, else why not - the count, the limit and its key.
    std::string try_take(const std::string& address, std::uint32_t per_address,
                         std::uint32_t total) {
        std::lock_guard lock(mutex_);
        auto& mine = by_address_[address];
        std::string why;
        if (per_address != 0 && mine >= per_address)
            why = std::to_string(mine) + " reader starts searching the journal for " + address +
                  ", the limit per address (limits.max_reader_starts_per_address = " +
                  std::to_string(per_address) + ")";
        else if (total != 0 && running_ >= total)
            why = std::to_string(running_) +
                  " reader starts searching the journal, the limit (limits.max_reader_starts = " +
                  std::to_string(total) + ")";
        if (!why.empty()) {
            if (mine == 0) by_address_.erase(address);
            return why + "; retry when one has finished";
        }
        ++mine;
        ++running_;
        return {};
    }
    void give_back(const std::string& address) {
        std::lock_guard lock(mutex_);
        auto it = by_address_.find(address);
        if (it == by_address_.end()) return;
        --running_;
        if (--it->second == 0) by_address_.erase(it);
    }
    std::uint32_t running() const {
        std::lock_guard lock(mutex_);
        return running_;
    }

  private:
    mutable std::mutex mutex_;
    std::unordered_map<std::string, std::uint32_t> by_address_;
    std::uint32_t running_ = 0;
};

}  // namespace objwire::daemon
