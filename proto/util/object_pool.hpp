// Objects kept for reuse across connections, at most a number of them: for state that is
// large to build and only in use while a connection handles its bytes (a journal block's
// encoder and its table), so that 1,000 connections share a few instead of holding one
// each. Thread-safe. No I/O.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

namespace objwire {

template <class T>
class object_pool {
  public:
    explicit object_pool(std::size_t max_kept) : max_kept_(max_kept) {}
    object_pool(const object_pool&) = delete;
    object_pool& operator=(const object_pool&) = delete;

    // A kept object (the most recently given), or null: the caller builds one.
    std::unique_ptr<T> take() {
        std::lock_guard lock(mutex_);
        if (free_.empty()) return nullptr;
        auto p = std::move(free_.back());
        free_.pop_back();
        return p;
    }
    // Keeps `p` for the next take(), or frees it when max_kept are kept already.
    void give(std::unique_ptr<T> p) {
        if (!p) return;
        std::lock_guard lock(mutex_);
        if (free_.size() < max_kept_) free_.push_back(std::move(p));
        // Otherwise p is freed here, after the lock is let go (declared before it).
    }
    std::size_t kept() const {
        std::lock_guard lock(mutex_);
        return free_.size();
    }

  private:
    const std::size_t max_kept_;
    mutable std::mutex mutex_;
    std::vector<std::unique_ptr<T>> free_;
};

}  // namespace objwire
