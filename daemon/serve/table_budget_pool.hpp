// The daemon-wide cap on back-reference table memory (limits.table_budget_total). Each sender
// connection is granted a table when it is admitted and gives it back when it closes: the
// budget it asks for (limits.table_budget) while more than a quarter of the total would be
// left after it (and always for the first), then reduced grants of a 4,096th of the total (at
// least 1 KiB; 64 KiB of the default 256 MiB) out of that last quarter, then what is left,
// then 0 - a connection granted 0 still works, with back-references off. A thousand senders
// thus each get a table (48 full ones and 1,024 reduced ones by default) instead of 64 full
// ones and none for the rest: half the bytes per `events` object for those. Readers and stats
// connections decode no stream and take nothing. So the tables of all connections together
// never exceed the cap, however many senders connect. The tables charge what they hold in
// memory (docs/PROTOCOL.md section 5), so the cap is memory.
//
// When a connection's grant comes back its table has been freed, but glibc keeps freed memory
// in its arenas (a closed connection that held 4 MiB of small entries left ~70% of it
// resident): the pool gives it back to the system once a table budget's worth of grants has
// come back since it last did, and whenever no grant is left out.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

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
            take = grant_for(wanted, left);
        } while (!left_.compare_exchange_weak(left, left - take));
        return take;
    }
    std::uint64_t grant_for(std::uint64_t wanted, std::uint64_t left) const {
        const std::uint64_t reserve = total_ / 4;
        if (left == total_ || left >= wanted + reserve) return std::min(wanted, left);
        const std::uint64_t reduced = std::max<std::uint64_t>(total_ / 4096, 1024);
        return std::min({wanted, reduced, left});
    }
    void release(std::uint64_t bytes) {
        const std::uint64_t left = left_ += bytes;
        const std::uint64_t since = released_ += bytes;
        if (bytes == 0 || (left != total_ && since < trim_after)) return;
        released_ = 0;
#if defined(__GLIBC__)
        malloc_trim(0);
#endif
    }

    // Grants returned between two trims, at most: 4 default table budgets.
    static constexpr std::uint64_t trim_after = std::uint64_t{16} << 20;

    std::atomic<std::uint64_t> left_;
    std::atomic<std::uint64_t> released_{0};
    std::uint64_t total_;
};

}  // namespace objwire::daemon
