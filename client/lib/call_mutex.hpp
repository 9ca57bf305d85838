// A connection's mutex, with one addition for the linger service (client/lib/linger_service.hpp),
// which must never wait for it: try_lock_or_call_back() takes it, or has its holder's unlock()
// call `on_missed` once. So a turn that finds a call in need not look again on a timer: the
// call's end asks for the turn it missed.
//
// Why no turn is lost: the turn stores "missed" and then tries the lock; the holder releases the
// lock and then reads "missed", each with a sequentially consistent fence between its two steps.
// Of two such sequences at least one sees the other's first step: the turn gets the lock, or the
// holder sees the flag (both may, which costs one turn more).
#pragma once

#include <atomic>
#include <functional>
#include <mutex>
#include <utility>

namespace objwire::client {

class call_mutex {
  public:
    // Set before the mutex is shared; runs on the unlocking thread, the mutex free.
    void on_missed(std::function<void()> f) { on_missed_ = std::move(f); }

    void lock() { m_.lock(); }
    bool try_lock() { return m_.try_lock(); }
    void unlock() {
        m_.unlock();
        std::atomic_thread_fence(std::memory_order_seq_cst);
        if (missed_.load(std::memory_order_relaxed) && missed_.exchange(false) && on_missed_)
            on_missed_();
    }
    // The lock, or false and the holder's unlock() calls on_missed.
    bool try_lock_or_call_back() {
        if (m_.try_lock()) return true;
        missed_.store(true, std::memory_order_relaxed);
        std::atomic_thread_fence(std::memory_order_seq_cst);
        if (!m_.try_lock()) return false;
        missed_.store(false, std::memory_order_relaxed);
        return true;
    }

  private:
    std::mutex m_;
    std::atomic<bool> missed_{false};
    std::function<void()> on_missed_;
};

}  // namespace objwire::client
