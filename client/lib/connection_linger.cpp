// Linger as a timer: a batch that has waited batch.linger while the caller makes no call is
// written, and then that batch's acknowledgements are taken in, so a producer that sends its
// last object and goes quiet still has it leave - and acknowledged - without calling flush()
// or poll(). The process's linger service (client/lib/linger_service.hpp) does the watching
// for every connection on one thread: the open batch's due time, the caller's quiet, and the
// socket while acks are awaited. Writing and reading may block (a full window, a resume), so
// they run on a thread of the connection's own, started when there is such work and ended
// when it is done. A caller that keeps calling writes its own batches and takes its own acks:
// linger stays out of its way, and a thousand busy connections cost no thread each.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <system_error>

#include "client/lib/connection_core.hpp"

#include "client/lib/coarse_clock.hpp"

namespace objwire::client {

void connection_core::start_linger() {
    if (!linger_.enabled()) return;
    const std::uint64_t id = linger_service::instance().enrol(*this);
    std::lock_guard lock(mu_);
    linger_id_ = id;
    linger_stop_ = false;
    linger_owner_ = linger_owner::none;
    arm_linger();
}

void connection_core::stop_linger() {
    std::uint64_t id = 0;
    {
        std::lock_guard lock(mu_);
        id = linger_id_.exchange(0);
        linger_stop_ = true;
        linger_owner_ = linger_owner::none;
    }
    if (id != 0) linger_service::instance().withdraw(id);  // no turn runs after this
    std::thread ending;
    {
        std::lock_guard lock(mu_);
        ending = std::move(linger_thread_);
    }
    // A thread writing or waiting for acks sees linger_stop_ once that is done.
    if (ending.joinable()) ending.join();
}

linger_view connection_core::linger_sees() const {
    linger_view v;
    v.open = state_.is_open();
    v.background_error = static_cast<bool>(background_error_);
    v.batch_open = core_.open_batch_bytes() > 0;
    v.all_acked = core_.all_acked();
    const std::uint64_t now = coarse_now_ns();
    if (v.batch_open) v.batch_left = linger_.left(now);
    const auto quiet_for = std::chrono::nanoseconds(now - std::min(now, last_call_ns_));
    v.quiet_left = std::max(settings_.batch_linger - quiet_for, std::chrono::nanoseconds(0));
    return v;
}

void connection_core::arm_linger() {
    const std::uint64_t now = coarse_now_ns();
    last_call_ns_ = now;
    const auto left = core_.open_batch_bytes() > 0 ? linger_.left(now) : settings_.batch_linger;
    linger_next_ns_.store(now + static_cast<std::uint64_t>(left.count()),
                          std::memory_order_relaxed);
    if (linger_id_ == 0 || linger_stop_) return;
    // Watching the socket for a quiet caller's acks: this caller is back, and may have left a
    // batch the socket would not time.
    const bool back = linger_owner_ == linger_owner::service && linger_on_socket_;
    if (linger_owner_ != linger_owner::none && !back) return;
    const auto v = linger_sees();
    const auto step = next_linger_step(v);
    if (step == linger_step::rest && !back) return;
    hand_to_service(step == linger_step::wait ? step : linger_step::wait, v);
}

void connection_core::ask_missed_turn() {
    if (const std::uint64_t id = linger_id_.load())
        linger_service::instance().look_again(id, linger_next_ns_.load(std::memory_order_relaxed));
}

void connection_core::turn() {
    // A call (or the linger thread) is in: its unlock asks for this turn again, at the time it
    // leaves (call_mutex.hpp) - a caller that waits for the window costs no turns meanwhile.
    if (!mu_.try_lock_or_call_back()) return;
    std::unique_lock lock(mu_, std::adopt_lock);
    if (linger_owner_ != linger_owner::service || linger_stop_) return;
    const auto v = linger_sees();
    const auto step = next_linger_step(v);
    if (step == linger_step::flush || (step == linger_step::read_acks && stream_.readable_now()))
        start_linger_thread();
    else
        hand_to_service(step, v);
}

void connection_core::hand_to_service(linger_step step, const linger_view& v) {
    auto& service = linger_service::instance();
    linger_on_socket_ = step == linger_step::read_acks;
    switch (step) {
        case linger_step::wait:
            linger_owner_ = linger_owner::service;
            service.at(linger_id_,
                       coarse_now_ns() + static_cast<std::uint64_t>(linger_wait(v).count()));
            return;
        case linger_step::read_acks:
            linger_owner_ = linger_owner::service;
            service.when_readable(linger_id_, socket_.native_handle());
            return;
        default:
            linger_owner_ = linger_owner::none;
            return;
    }
}

void connection_core::start_linger_thread() {
    // The thread before has handed back with mu_ held (which we hold now): it only returns.
    if (linger_thread_.joinable()) linger_thread_.join();
    try {
        linger_thread_ = std::thread([this] { linger_loop(); });
        linger_owner_ = linger_owner::thread;
    } catch (const std::system_error&) {  // no thread to be had now: the service tries again
        linger_owner_ = linger_owner::service;
        linger_service::instance().at(
            linger_id_,
            coarse_now_ns() + static_cast<std::uint64_t>(settings_.batch_linger.count()));
    }
}

void connection_core::linger_loop() {
    std::unique_lock lock(mu_);
    while (!linger_stop_ && linger_owner_ == linger_owner::thread) {
        const auto v = linger_sees();
        const auto step = next_linger_step(v);
        if (step == linger_step::flush) {
            if (auto ec = flush_locked()) background_error_ = ec;
        } else if (step == linger_step::read_acks && stream_.readable_now()) {
            // A connection the daemon closed meanwhile (a restart) is noticed and resumed here,
            // not at the caller's next call - which, for `tail -F | objwire send -`, may be
            // hours away.
            if (auto ec = read_replies(false)) background_error_ = ec;
        } else {
            hand_to_service(step, v);
        }
    }
}

}  // namespace objwire::client
