// async_next: a reader's next() on a worker thread of its own, so a caller's event loop never
// waits on the daemon. The reader is used by one thread at a time: while an async_next is
// pending, the worker is that thread.
#include "client/lib/reader_core.hpp"

namespace objwire::client {

void reader_core::start_next(next_completion done) {
    std::lock_guard lock(async_mu_);
    async_jobs_.push_back(std::move(done));
    if (!async_started_) {
        async_started_ = true;  // before the thread: it reads it (next_event's wait slices)
        async_thread_ = std::thread([this] { async_loop(); });
    }
    async_cv_.notify_one();
}

void reader_core::async_loop() {
    for (;;) {
        next_completion done;
        {
            std::unique_lock lock(async_mu_);
            async_cv_.wait(lock, [&] { return async_stop_ || !async_jobs_.empty(); });
            if (async_stop_) break;
            done = std::move(async_jobs_.front());
            async_jobs_.pop_front();
        }
        stored_message m;
        if (next(m)) {
            done({}, std::move(m));
        } else {
            // The end of the stream or a stop is no error: an empty message says it.
            done(error_, std::nullopt);
        }
    }
}

void reader_core::stop_async() {
    std::deque<next_completion> left;
    {
        std::lock_guard lock(async_mu_);
        if (!async_thread_.joinable()) return;
        async_stop_ = true;
        closing_ = true;  // a next() waiting for the daemon returns within stop_poll
        left.swap(async_jobs_);
    }
    async_cv_.notify_one();
    async_thread_.join();
    for (auto& done : left)
        done(asio::error::operation_aborted, std::nullopt);
}

}  // namespace objwire::client
