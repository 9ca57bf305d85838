// Linger as a timer: the connection's own thread writes a batch that has waited batch.linger
// while the caller makes no call, and then takes in that batch's acknowledgements, so a
// producer that sends its last object and goes quiet still has it leave - and acknowledged -
// without calling flush() or poll(). The thread takes the connection's mutex for each step, as
// a public call does, and sleeps while there is nothing to do: on a condition variable while no
// batch is open, in poll() on the socket and an eventfd while it waits for acks. It never wakes
// on a timer of its own: a thousand quiet connections cost nothing until their acks come (a
// 20 ms slice each was 50,000 wake-ups a second, enough to starve the daemon beside them).
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>

#include "client/lib/connection_core.hpp"

#include "client/lib/coarse_clock.hpp"

namespace objwire::client {
namespace {

// The longest single poll() while acks are awaited: the wait itself has no end of its own (the
// caller's calls keep their deadlines and the retry window); this only bounds one system call.
constexpr std::chrono::seconds ack_wait{30};

}  // namespace

void connection_core::start_linger() {
    if (!linger_.enabled() || linger_thread_.joinable()) return;
    // Without an eventfd the thread could not be woken out of its wait for acks: no linger
    // thread, and the caller's own calls (poll(), flush()) write lingering batches.
    linger_wake_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (linger_wake_fd_ < 0) return;
    linger_stop_ = false;
    linger_thread_ = std::thread([this] { linger_loop(); });
}

void connection_core::stop_linger() {
    if (!linger_thread_.joinable()) return;
    {
        std::lock_guard lock(mu_);
        linger_stop_ = true;
        wake_linger_poll();
    }
    linger_cv_.notify_one();
    linger_thread_.join();
    ::close(linger_wake_fd_);
    linger_wake_fd_ = -1;
}

void connection_core::wait_idle(std::unique_lock<std::mutex>& lock) {
    linger_wait_ = linger_wait::sleeping;
    linger_cv_.wait(lock);
    linger_wait_ = linger_wait::none;
}

linger_view connection_core::linger_sees() const {
    linger_view v;
    v.open = state_.is_open();
    v.background_error = static_cast<bool>(background_error_);
    v.batch_open = core_.open_batch_bytes() > 0;
    v.all_acked = core_.all_acked();
    if (v.batch_open) v.batch_left = linger_.left(coarse_now_ns());
    return v;
}

void connection_core::wake_linger() {
    wake_linger_poll();
    // Only from the idle wait, and only when there is work: a thread timing an open batch is
    // not woken by every send.
    if (linger_wait_ == linger_wait::sleeping &&
        next_linger_step(linger_sees()) != linger_step::sleep)
        linger_cv_.notify_one();
}

void connection_core::wake_linger_poll() {
    if (linger_wait_ != linger_wait::polling) return;
    // One wake-up per wait: a fast producer pays no syscall per send.
    linger_wait_ = linger_wait::none;
    const std::uint64_t one = 1;
    [[maybe_unused]] const auto n = ::write(linger_wake_fd_, &one, sizeof one);
}

void connection_core::linger_loop() {
    std::unique_lock lock(mu_);
    while (!linger_stop_) {
        const auto sees = linger_sees();
        switch (next_linger_step(sees)) {
            case linger_step::sleep:
                wait_idle(lock);
                break;
            case linger_step::time_batch:
                linger_cv_.wait_for(lock, sees.batch_left);
                break;
            case linger_step::flush:
                if (auto ec = flush_locked()) background_error_ = ec;
                break;
            case linger_step::read_acks:
                // Whoever wrote them (this thread or the caller's flush), frames wait for their
                // acks: taken in here, so a connection the daemon closed meanwhile (a restart)
                // is noticed and resumed now, not at the caller's next call - which, for `tail
                // -F | objwire send -`, may be hours away.
                linger_read_acks(lock);
                break;
        }
    }
}

bool connection_core::linger_poll(std::unique_lock<std::mutex>& lock,
                                  std::chrono::milliseconds wait) {
    if (stream_.readable_now()) return true;  // TLS may hold a record poll() cannot see
    pollfd fds[2] = {{socket_.native_handle(), POLLIN, 0}, {linger_wake_fd_, POLLIN, 0}};
    linger_wait_ = linger_wait::polling;
    lock.unlock();
    const int ready = ::poll(fds, 2, static_cast<int>(wait.count()));
    lock.lock();
    linger_wait_ = linger_wait::none;
    std::uint64_t wakes = 0;  // read even if poll() returned for the socket: no stale wake-up
    [[maybe_unused]] const auto n = ::read(linger_wake_fd_, &wakes, sizeof wakes);
    // A caller was in meanwhile: the socket may be another (a resume) or closed.
    return ready > 0 && wakes == 0 && (fds[0].revents & POLLIN) != 0;
}

void connection_core::linger_read_acks(std::unique_lock<std::mutex>& lock) {
    while (!linger_stop_ && next_linger_step(linger_sees()) == linger_step::read_acks) {
        if (!linger_poll(lock, ack_wait) || !state_.is_open()) continue;
        if (auto ec = read_replies(false)) background_error_ = ec;
    }
}

}  // namespace objwire::client
