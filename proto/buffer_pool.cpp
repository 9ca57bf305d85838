#include "proto/buffer_pool.hpp"

namespace objwire {

byte_buffer buffer_pool::take(std::size_t capacity) {
    {
        std::lock_guard lock(mutex_);
        for (auto it = free_.rbegin(); it != free_.rend(); ++it) {
            if (it->capacity() < capacity) continue;
            byte_buffer b = std::move(*it);
            free_.erase(std::next(it).base());
            kept_bytes_ -= b.capacity();
            return b;
        }
    }
    byte_buffer fresh;
    fresh.reserve_exact(capacity);
    return fresh;
}

void buffer_pool::give(byte_buffer&& b) {
    byte_buffer kept = std::move(b);
    const std::size_t capacity = kept.capacity();
    if (capacity == 0 || capacity > max_buffer_bytes_) return;
    kept.clear();
    std::lock_guard lock(mutex_);
    // Declared after `kept`, the lock is let go before a refused buffer is freed.
    if (kept_bytes_ + capacity > max_bytes_) return;
    kept_bytes_ += capacity;
    free_.push_back(std::move(kept));
}

std::size_t buffer_pool::kept_bytes() const {
    std::lock_guard lock(mutex_);
    return kept_bytes_;
}

std::size_t buffer_pool::kept() const {
    std::lock_guard lock(mutex_);
    return free_.size();
}

}  // namespace objwire
