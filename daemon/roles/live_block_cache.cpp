#include "daemon/roles/live_block_cache.hpp"

#include <algorithm>

namespace objwire::daemon {

live_block copy_live_block(std::span<const std::uint8_t> bytes, const journal_block_view& view) {
    live_block b;
    b.bytes.reserve_exact(bytes.size());
    b.bytes.append(bytes);
    b.view = view;
    const auto* from = bytes.data();
    const auto* to = b.bytes.data();
    const auto* sender = reinterpret_cast<const std::uint8_t*>(view.sender_id.data());
    b.view.sender_id = {reinterpret_cast<const char*>(to + (sender - from)), view.sender_id.size()};
    b.view.payload = {to + (view.payload.data() - from), view.payload.size()};
    b.sum = sum_payload(b.bytes.span());
    return b;
}

std::optional<live_block_cache::follower_id> live_block_cache::join(std::uint64_t at) {
    if (positions_.empty() && blocks_.empty()) end_ = at;
    if (at != end_ && index_of(at) == blocks_.size()) return std::nullopt;
    const follower_id id = ++next_id_;
    positions_.emplace(id, by_position_.emplace(at, id));
    return id;
}

void live_block_cache::leave(follower_id id) {
    const auto it = positions_.find(id);
    if (it == positions_.end()) return;
    by_position_.erase(it->second);
    positions_.erase(it);
    evict_taken();
}

live_block_cache::take_result live_block_cache::take(follower_id id, std::size_t max_bytes,
                                                     std::vector<block_ptr>& out) {
    auto& at = positions_.at(id);
    const std::uint64_t from = at->first;
    if (from == end_) return take_result::caught_up;
    std::size_t i = index_of(from);
    if (i == blocks_.size()) return take_result::behind;
    std::size_t taken = 0;
    for (; i < blocks_.size() && (taken == 0 || taken < max_bytes); ++i) {
        out.push_back(blocks_[i]);
        taken += blocks_[i]->bytes.size();
    }
    by_position_.erase(at);
    at = by_position_.emplace(out.back()->end_offset(), id);
    evict_taken();
    return take_result::blocks;
}

bool live_block_cache::put(block_ptr block) {
    if (block->first_offset() != end_ || block->end_offset() <= end_) return false;
    end_ = block->end_offset();
    held_ += block->bytes.size();
    blocks_.push_back(std::move(block));
    keep_within_bound();
    evict_taken();
    return true;
}

void live_block_cache::set_max_bytes(std::size_t max_bytes) {
    max_bytes_ = max_bytes;
    keep_within_bound();
}

void live_block_cache::keep_within_bound() {
    while (held_ > max_bytes_ && blocks_.size() > 1)
        drop_front();
}

void live_block_cache::evict_taken() {
    // With no follower every block is taken by all of them.
    const std::uint64_t oldest_needed = by_position_.empty() ? end_ : by_position_.begin()->first;
    while (!blocks_.empty() && blocks_.front()->end_offset() <= oldest_needed)
        drop_front();
}

void live_block_cache::drop_front() {
    held_ -= blocks_.front()->bytes.size();
    blocks_.pop_front();
}

std::size_t live_block_cache::index_of(std::uint64_t offset) const {
    // Consecutive blocks: a binary search by first offset.
    const auto it =
        std::lower_bound(blocks_.begin(), blocks_.end(), offset,
                         [](const block_ptr& b, std::uint64_t o) { return b->first_offset() < o; });
    if (it == blocks_.end() || (*it)->first_offset() != offset) return blocks_.size();
    return static_cast<std::size_t>(it - blocks_.begin());
}

}  // namespace objwire::daemon
