// The blocks at the journal's live end that followers share (docs/PROTOCOL.md 1.2,
// "Followers"): each durable block read and verified once (daemon/roles/live_feed.hpp), held
// here once with the checksum of its bytes, and written to every follower's socket from the
// same bytes behind a frame header of the follower's own. No I/O, no lock: the feed holds the
// lock.
//
// What it holds: a run of consecutive blocks, [first_offset(), end_offset()), and where each
// follower on it stands (the offset of the next block it takes). Its bound: after put() the
// blocks held take at most max_bytes (or the one block put, if larger). Eviction: a block
// goes as soon as every follower has taken it - with no follower, nothing is held - and, when
// a new block would pass the bound, the oldest go whether taken or not. A follower whose
// position they held has fallen behind: take() says so, and the follower leaves and reads on
// its own. A block taken stays alive while the taker holds it (its write), evicted or not.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "proto/byte_buffer.hpp"
#include "proto/frame.hpp"
#include "proto/journal_block.hpp"

namespace objwire::daemon {

// One stored block, exactly as stored, with its view and the sum its frames are sealed with.
struct live_block {
    byte_buffer bytes;
    journal_block_view view;  // into `bytes`
    payload_sum sum;
    std::uint64_t first_offset() const { return view.header.first_offset; }
    std::uint64_t end_offset() const { return view.end_offset(); }
};
// A copy of `bytes`, the block `view` describes (its spans point into `bytes`), summed.
live_block copy_live_block(std::span<const std::uint8_t> bytes, const journal_block_view& view);

class live_block_cache {
  public:
    using block_ptr = std::shared_ptr<const live_block>;
    using follower_id = std::uint64_t;
    enum class take_result {
        blocks,     // blocks were taken
        caught_up,  // the follower stands at end_offset(): nothing to take
        behind,     // what the follower needs next is no longer held
    };

    explicit live_block_cache(std::size_t max_bytes) : max_bytes_(max_bytes) {}

    // A follower whose next offset is `at` joins if the run can serve it from there: `at` is
    // where a held block starts, or end_offset(); with no follower and nothing held the run
    // starts afresh at `at`. Nullopt: it cannot (it reads on its own).
    std::optional<follower_id> join(std::uint64_t at);
    void leave(follower_id id);
    // Blocks from the follower's position on, in order, appended to `out` until they take
    // `max_bytes` (at least one when any is held there); its position moves past them.
    take_result take(follower_id id, std::size_t max_bytes, std::vector<block_ptr>& out);
    // The block at end_offset() joins the run; the oldest go while the bound is passed.
    // False (nothing changes) when it does not start at end_offset().
    bool put(block_ptr block);
    // A new bound (limits.readers_shared_bytes changed): the oldest blocks go, taken or not,
    // while the ones held pass it (all but one, if that one alone is larger).
    void set_max_bytes(std::size_t max_bytes);

    std::uint64_t first_offset() const {
        return blocks_.empty() ? end_ : blocks_.front()->first_offset();
    }
    std::uint64_t end_offset() const { return end_; }
    std::size_t held_bytes() const { return held_; }
    std::size_t max_bytes() const { return max_bytes_; }
    std::size_t blocks() const { return blocks_.size(); }
    std::size_t followers() const { return positions_.size(); }
    // The offset of the next block the follower takes.
    std::uint64_t position(follower_id id) const { return positions_.at(id)->first; }

  private:
    // Drops the blocks every follower has taken.
    void evict_taken();
    void drop_front();
    // Drops the oldest while the bound is passed, keeping the newest block at least.
    void keep_within_bound();
    // Index of the held block starting at `offset`, or blocks_.size().
    std::size_t index_of(std::uint64_t offset) const;

    std::size_t max_bytes_;
    std::deque<block_ptr> blocks_;
    std::uint64_t end_ = 0;
    std::size_t held_ = 0;
    // Each follower's position, ordered: the first is the oldest block still needed.
    std::multimap<std::uint64_t, follower_id> by_position_;
    std::map<follower_id, std::multimap<std::uint64_t, follower_id>::iterator> positions_;
    follower_id next_id_ = 0;
};

}  // namespace objwire::daemon
