// The asynchronous calls: async_send, async_flush and async_close queue a job for the
// connection's worker thread and return, so the caller's executor never waits on the daemon.
// The worker runs the jobs in order with the connection's mutex held - the same steps as the
// blocking calls - and keeps the sends waiting for their acknowledgement, taking in acks as
// they arrive; each completion is posted to its handler's executor.
#include <poll.h>

#include <algorithm>
#include <future>
#include <vector>

#include "client/lib/connection_core.hpp"

namespace objwire::client {
namespace {

// The worker watches the socket at most this long before it looks for new jobs again.
constexpr std::chrono::milliseconds worker_slice{5};

}  // namespace

void connection_core::start_send(message m, completion done) {
    async_job job;
    job.send = true;
    job.done = std::move(done);
    job.step = [this, m = std::move(m)](std::uint64_t& target) {
        auto ec = send_locked(m);
        if (!ec) target = core_.messages_added();
        return ec;
    };
    enqueue_send(1, std::move(job));
}

void connection_core::start_send(std::shared_ptr<const typed_source> source,
                                 std::function<std::string()> refused_at, completion done) {
    async_job job;
    job.send = true;
    job.done = std::move(done);
    job.step = [this, source = std::move(source),
                refused_at = std::move(refused_at)](std::uint64_t& target) {
        auto ec = send_locked(*source);
        if (!ec) {
            target = core_.messages_added();
        } else if (const auto path = refused_at(); !path.empty()) {
            name_refused_field_locked(path);
        }
        return ec;
    };
    enqueue_send(1, std::move(job));
}

struct connection_core::locked_sink final : detail::batch_sink {
    explicit locked_sink(connection_core& c) : core(c) {}
    std::error_code put(const message& m) override { return core.send_locked(m); }
    std::error_code put(const typed_source& m) override { return core.send_locked(m); }
    connection_core& core;
};

void connection_core::start_send_many(std::size_t count, batch_step step, completion done) {
    async_job job;
    job.send = true;
    job.done = std::move(done);
    job.step = [this, count, step = std::move(step)](std::uint64_t& target) {
        locked_sink sink(*this);
        std::string refused_at;
        for (std::size_t i = 0; i < count; ++i) {
            if (auto ec = step(i, sink, refused_at)) {
                const auto at = "batch[" + std::to_string(i) + "]";
                name_refused_field_locked(refused_at.empty() ? at : at + " " + refused_at);
                return ec;
            }
        }
        if (count > 0) target = core_.messages_added();
        return std::error_code{};
    };
    enqueue_send(count, std::move(job));
}

void connection_core::start_flush(completion done) {
    async_job job;
    job.done = std::move(done);
    job.step = [this](std::uint64_t& target) {
        auto ec = flush_locked();
        if (!ec && !core_.all_acked()) target = core_.messages_added();
        return ec;
    };
    enqueue(std::move(job));
}

void connection_core::start_close(completion done) {
    async_job job;
    job.done = std::move(done);
    job.step = [this](std::uint64_t&) { return close_locked(); };
    enqueue(std::move(job));
}

void connection_core::enqueue(async_job job) {
    std::lock_guard lock(async_mu_);
    async_jobs_.push_back(std::move(job));
    if (!async_thread_.joinable()) async_thread_ = std::thread([this] { async_loop(); });
    async_cv_.notify_one();
}

// As librdkafka's QUEUE_FULL: a send past the limit is refused at once rather than waited for,
// so starting one never blocks the caller's executor - nor the worker, whose completions free
// the slots (a plain callback that sends again runs there). A batch larger than the limit
// goes when nothing else is in flight, or it never could.
void connection_core::enqueue_send(std::uint64_t objects, async_job job) {
    const auto limit = settings_.max_async_sends;
    {
        std::lock_guard lock(async_mu_);
        const auto in_flight = async_in_flight_.load();
        if (limit != 0 && in_flight > 0 && in_flight + objects > limit) {
            job.send = false;
            job.step = [this, limit, in_flight](std::uint64_t&) {
                last_error_ =
                    std::to_string(in_flight) +
                    " objects of asynchronous sends in flight, options.max_async_sends = " +
                    std::to_string(limit) +
                    ": this send is not queued; start it again once some have completed";
                return std::error_code(client_errc::too_many_in_flight);
            };
            objects = 0;
        }
        async_in_flight_ += objects;
    }
    if (objects > 0) {
        job.done = [this, objects, done = std::move(job.done)](std::error_code ec) {
            async_in_flight_ -= objects;  // before the handler: it may send again
            done(ec);
        };
    }
    enqueue(std::move(job));
}

std::uint64_t connection_core::unacknowledged() const {
    std::lock_guard lock(mu_);
    return core_.messages_added() - core_.messages_acked();
}

std::error_code connection_core::take_acks(std::unique_lock<call_mutex>& lock,
                                           std::chrono::milliseconds wait) {
    pollfd p{socket_.native_handle(), POLLIN, 0};
    lock.unlock();
    const int ready = ::poll(&p, 1, static_cast<int>(wait.count()));
    lock.lock();
    if (ready <= 0 || !state_.is_open()) return {};
    return read_replies(false);
}

std::error_code connection_core::wait_acked(std::unique_lock<call_mutex>& lock,
                                            std::uint64_t target,
                                            std::chrono::steady_clock::time_point deadline) {
    while (core_.messages_acked() < target) {
        if (!state_.is_open()) return client_errc::connection_lost;
        const auto now = std::chrono::steady_clock::now();
        if (now >= deadline) return client_errc::timed_out;
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now);
        if (auto ec = take_acks(lock, std::clamp(left, std::chrono::milliseconds(1),
                                                 std::chrono::milliseconds(20))))
            return ec;
    }
    return {};
}

std::error_code connection_core::flush(std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    std::unique_lock lock(mu_);
    if (auto ec = take_background_error()) return ec;
    if (auto ec = flush_locked()) return ec;
    auto ec = wait_acked(lock, core_.messages_added(), deadline);
    if (ec == client_errc::timed_out)
        last_error_ = "flush: " + std::to_string(core_.messages_added() - core_.messages_acked()) +
                      " objects not acknowledged within " + std::to_string(timeout.count()) + " ms";
    return settle(ec);
}

// Waiting operations complete in the order they were started: their ack targets never go
// down, so the acknowledged ones are at the front and one look at the front finds them all -
// a million sends in flight cost no scan per ack. Only when some carry a send timeout is the
// rest looked through for expired ones.
void connection_core::complete_waiting(std::deque<waiting_send>& waiting, std::size_t& timed,
                                       std::error_code ec, std::vector<finished_op>& finished) {
    const auto acked = core_.messages_acked();
    while (!waiting.empty() && (ec || acked >= waiting.front().target)) {
        timed -= waiting.front().timed ? 1 : 0;
        // Acknowledged before the connection ended (a close() that took the last acks): done.
        const auto result = acked >= waiting.front().target ? std::error_code{} : ec;
        finished.push_back({std::move(waiting.front().done), result});
        waiting.pop_front();
    }
    if (timed == 0) return;
    const auto now = std::chrono::steady_clock::now();
    std::erase_if(waiting, [&](waiting_send& w) {
        if (!w.timed || now < w.deadline) return false;
        --timed;
        last_error_ = "an asynchronous send not acknowledged within " +
                      std::to_string(send_timeout_ms_) +
                      " ms (set_send_timeout): it stays in the stream and may still be stored";
        finished.push_back({std::move(w.done), client_errc::timed_out});
        return true;
    });
}

// Runs the jobs with mu_ held; those done at once (a refusal, a close) join `finished`, the
// sends and flushes that wait for acks join `waiting`.
void connection_core::run_jobs(std::deque<async_job>& jobs, std::deque<waiting_send>& waiting,
                               std::size_t& timed, std::vector<finished_op>& finished) {
    const auto none = std::chrono::steady_clock::time_point::max();
    const auto send_timeout =
        std::chrono::milliseconds(send_timeout_ms_.load(std::memory_order_relaxed));
    for (auto& job : jobs) {
        if (job.marker) {  // leaves the linger thread's error to close() itself
            finished.push_back({std::move(job.done), {}});
            continue;
        }
        std::uint64_t target = 0;
        auto ec = take_background_error();
        if (!ec) ec = settle(job.step(target));
        if (ec || target == 0) {
            // Done at once, it completes after what its step decided of the operations started
            // before it: a close takes in every ack (or ends the stream), so the sends waiting
            // for them complete first, as they were started.
            if (!waiting.empty())
                complete_waiting(waiting, timed,
                                 state_.is_open() ? std::error_code{}
                                                  : std::error_code(client_errc::connection_lost),
                                 finished);
            finished.push_back({std::move(job.done), ec});
            continue;
        }
        const auto deadline = job.send && send_timeout.count() > 0
                                  ? std::chrono::steady_clock::now() + send_timeout
                                  : none;
        waiting.push_back({target, deadline, deadline != none, std::move(job.done)});
        timed += deadline != none ? 1 : 0;
    }
}

// Completions run with no lock held: a handler may call the connection again, blocking calls
// included.
void connection_core::async_loop() {
    std::deque<waiting_send> waiting;
    std::size_t timed = 0;  // of them, sends with a timeout
    std::vector<finished_op> finished;
    for (;;) {
        std::deque<async_job> jobs;
        {
            std::unique_lock lock(async_mu_);
            if (async_jobs_.empty() && waiting.empty())
                async_cv_.wait(lock, [&] { return async_stop_ || !async_jobs_.empty(); });
            if (async_stop_ && async_jobs_.empty()) break;
            jobs.swap(async_jobs_);
        }
        {
            std::unique_lock lock(mu_);
            run_jobs(jobs, waiting, timed, finished);
            if (!waiting.empty()) {
                std::error_code ec;
                if (state_.is_open()) ec = take_acks(lock, worker_slice);
                if (!ec && !state_.is_open()) ec = client_errc::connection_lost;
                complete_waiting(waiting, timed, ec, finished);
            }
        }
        for (auto& f : finished)
            f.done(f.ec);
        finished.clear();
    }
    for (auto& w : waiting)
        w.done(asio::error::operation_aborted);
}

// A marker job: when it completes, every job queued before it has run, so their objects are
// in the stream. Not from the worker itself (a completion handler calling close()): it would
// wait for itself.
void connection_core::wait_started_jobs() {
    {
        std::lock_guard lock(async_mu_);
        if (!async_thread_.joinable() || async_thread_.get_id() == std::this_thread::get_id())
            return;
    }
    std::promise<void> ran;
    async_job marker;
    marker.marker = true;
    marker.done = [&ran](std::error_code) { ran.set_value(); };
    enqueue(std::move(marker));
    ran.get_future().wait();
}

void connection_core::stop_async() {
    {
        std::lock_guard lock(async_mu_);
        if (!async_thread_.joinable()) return;
        async_stop_ = true;
    }
    async_cv_.notify_one();
    async_thread_.join();
}

}  // namespace objwire::client
