#include "daemon/roles/live_feed.hpp"

#include <map>

namespace objwire::daemon {

live_feed& live_feed::for_data_dir(const std::filesystem::path& data_dir) {
    static std::mutex m;
    static std::map<std::filesystem::path, std::unique_ptr<live_feed>> feeds;
    std::lock_guard lock(m);
    auto& f = feeds[data_dir];
    if (!f) f = std::make_unique<live_feed>(data_dir);
    return *f;
}

// The bound is set by each join (limits.readers_shared_bytes): nothing is held before one.
live_feed::live_feed(std::filesystem::path dir) : dir_(std::move(dir)), cache_(0) {}

std::unique_ptr<live_feed::seat> live_feed::join(std::uint64_t at, std::atomic<std::int64_t>& gauge,
                                                 std::size_t max_bytes) {
    std::lock_guard lock(mutex_);
    cache_.set_max_bytes(max_bytes);
    if (cache_.followers() == 0) {
        gauge_ = &gauge;
        stopped_ = false;
    }
    // A stopped run serves what it holds, but no one new.
    if (stopped_ && at == cache_.end_offset()) return nullptr;
    const auto id = cache_.join(at);
    if (!id) return nullptr;
    return std::make_unique<seat>(*this, *id);
}

std::size_t live_feed::max_bytes() const {
    std::lock_guard lock(mutex_);
    return cache_.max_bytes();
}

void live_feed::leave(live_block_cache::follower_id id) {
    std::lock_guard lock(mutex_);
    cache_.leave(id);
    if (cache_.followers() > 0) return;
    // No follower: nothing is held, not even the read buffer.
    cursor_.reset();
    note_cursor_held();
}

live_feed::seat::~seat() {
    feed_->leave(id_);
}

std::uint64_t live_feed::seat::position() const {
    std::lock_guard lock(feed_->mutex_);
    return feed_->cache_.position(id_);
}

live_feed::take_result live_feed::seat::take(std::uint64_t limit, std::size_t max_bytes,
                                             std::vector<live_block_cache::block_ptr>& out) {
    std::lock_guard lock(feed_->mutex_);
    auto& cache = feed_->cache_;
    if (!feed_->stopped_ && cache.position(id_) == cache.end_offset() && cache.end_offset() < limit)
        feed_->fill(limit, max_bytes);
    const auto r = cache.take(id_, max_bytes, out);
    // At the end of a stopped run the follower reads on its own: what stopped it is served.
    if (r == take_result::caught_up && feed_->stopped_) return take_result::behind;
    return r;
}

void live_feed::fill(std::uint64_t limit, std::size_t budget) {
    const std::uint64_t end = cache_.end_offset();
    if (!cursor_ || cursor_at_ != end) {
        cursor_.emplace(dir_, end);
        cursor_at_ = end;
    }
    journal_block_view view;
    std::span<const std::uint8_t> bytes;
    std::size_t filled = 0;
    while (filled < budget && cursor_at_ < limit) {
        const auto st = cursor_->next(limit, view, bytes);
        if (st == journal_cursor::status::caught_up) break;
        // A gap or an error: the followers meet it on their own cursors, as they always did.
        if (st != journal_cursor::status::block || !cache_.put(share(copy_live_block(bytes, view))))
            break;
        cursor_at_ = view.end_offset();
        filled += bytes.size();
    }
    // What the run could not read on to is for the followers' own cursors to tell.
    if (cursor_at_ < limit && filled < budget) stopped_ = true;
    cursor_->release_buffer(journal_cursor::keep::read_ahead);
    note_cursor_held();
}

void live_feed::note_cursor_held() {
    const std::size_t now = cursor_ ? cursor_->buffer_capacity() : 0;
    if (gauge_) *gauge_ += static_cast<std::int64_t>(now) - static_cast<std::int64_t>(cursor_held_);
    cursor_held_ = now;
}

live_block_cache::block_ptr live_feed::share(live_block&& b) {
    const auto bytes = static_cast<std::int64_t>(b.bytes.capacity());
    auto* gauge = gauge_;
    *gauge += bytes;
    return {new live_block(std::move(b)), [gauge, bytes](const live_block* p) {
                *gauge -= bytes;
                delete p;
            }};
}

}  // namespace objwire::daemon
