// The one reader of the journal's live end that every follower shares (docs/PROTOCOL.md 1.2,
// "Followers"): the first follower that needs a durable block reads it - with one
// journal_cursor, which verifies it - into the shared cache (daemon/roles/live_block_cache.hpp),
// and every follower takes it from there. One per data directory, shared by the connections'
// threads under one lock; reading happens under it, a batch at a time, so the followers that
// wait meanwhile find the block read when they get the lock. A gap or an error at the live end
// stops the shared run: the followers that reach it leave and read on their own, which serves
// the gap or the error as before. What the feed holds - blocks in the cache or in a follower's
// write, and its cursor's read buffer - is counted in objwire_readers_shared_bytes.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "daemon/roles/live_block_cache.hpp"
#include "daemon/store/journal_cursor.hpp"

namespace objwire::daemon {

class live_feed {
  public:
    // The feed of the journal in `data_dir`.
    static live_feed& for_data_dir(const std::filesystem::path& data_dir);
    explicit live_feed(std::filesystem::path dir);
    live_feed(const live_feed&) = delete;
    live_feed& operator=(const live_feed&) = delete;

    using take_result = live_block_cache::take_result;

    // A follower's place on the shared run; it leaves when destroyed.
    class seat {
      public:
        seat(live_feed& feed, live_block_cache::follower_id id) : feed_(&feed), id_(id) {}
        ~seat();
        seat(const seat&) = delete;
        seat& operator=(const seat&) = delete;
        // Blocks below `limit` (the durable offset) from the follower's position, up to
        // `max_bytes`, read from the journal first if no follower has yet.
        take_result take(std::uint64_t limit, std::size_t max_bytes,
                         std::vector<live_block_cache::block_ptr>& out);
        // The offset of the next block the follower takes.
        std::uint64_t position() const;

      private:
        live_feed* feed_;
        live_block_cache::follower_id id_;
    };

    // A seat for a follower whose next offset is `at` (a block's first offset), or null when
    // the run cannot serve it from there (it reads on its own). `gauge` counts what the feed
    // holds: a metric of the server whose follower joins (while any follower is seated, all
    // are that server's: the data directory is locked to it). `max_bytes`: what the shared run
    // holds at most (limits.readers_shared_bytes, live_block_cache's bound) from now on - a
    // follower more than this behind the live end reads on its own.
    std::unique_ptr<seat> join(std::uint64_t at, std::atomic<std::int64_t>& gauge,
                               std::size_t max_bytes);
    // The bound the last join set.
    std::size_t max_bytes() const;

  private:
    // With mutex_ held: reads the blocks below `limit` at the run's end, about `budget`
    // bytes, into the cache.
    void fill(std::uint64_t limit, std::size_t budget);
    void leave(live_block_cache::follower_id id);
    // The cursor's read buffer into the gauge.
    void note_cursor_held();
    // A block in memory shared by the cache and the followers' writes, counted in the gauge
    // until the last of them lets it go.
    live_block_cache::block_ptr share(live_block&& b);

    std::filesystem::path dir_;
    std::atomic<std::int64_t>* gauge_ = nullptr;
    mutable std::mutex mutex_;
    live_block_cache cache_;
    std::optional<journal_cursor> cursor_;
    std::uint64_t cursor_at_ = 0;  // the offset cursor_ reads next
    bool stopped_ = false;         // a gap or an error at the run's end
    std::size_t cursor_held_ = 0;  // its read buffer, counted in gauge_
};

}  // namespace objwire::daemon
