// The daemon-wide cap on back-reference table memory (limits.table_budget_total). Each
// connection is granted min(limits.table_budget, what is left) when it opens and gives it back
// when it closes; a connection granted 0 still works, with back-references off. So the tables
// of all connections together never exceed the cap, however many senders connect.
#pragma once

#include <atomic>
#include <cstdint>

namespace objwire::daemon {

class table_budget_pool {
  public:
    explicit table_budget_pool(std::uint64_t total) : left_(total), total_(total) {}

    // Holds a grant for the lifetime of a connection.
    class grant {
      public:
        grant(table_budget_pool& pool, std::uint64_t wanted)
            : pool_(pool), bytes_(pool.acquire(wanted)) {}
        ~grant() { pool_.release(bytes_); }
        grant(const grant&) = delete;
        grant& operator=(const grant&) = delete;
        std::uint64_t bytes() const { return bytes_; }

      private:
        table_budget_pool& pool_;
        std::uint64_t bytes_;
    };

    std::uint64_t in_use() const { return total_ - left_.load(); }

  private:
    std::uint64_t acquire(std::uint64_t wanted) {
        std::uint64_t left = left_.load();
        std::uint64_t take;
        do {
            take = wanted < left ? wanted : left;
        } while (!left_.compare_exchange_weak(left, left - take));
        return take;
    }
    void release(std::uint64_t bytes) { left_ += bytes; }

    std::atomic<std::uint64_t> left_;
    std::uint64_t total_;
};

}  // namespace objwire::daemon
