// Linger as a timer: the connection's own thread writes a batch that has waited batch.linger
// while the caller makes no call, and then takes in that batch's acknowledgements, so a
// producer that sends its last object and goes quiet still has it leave - and acknowledged -
// without calling flush() or poll(). The thread takes the connection's mutex for each step, as
// a public call does, and sleeps on a condition variable while no batch is open.
#include <algorithm>
#include <chrono>

#include <objwire/connection.hpp>

#include "client/lib/coarse_clock.hpp"

namespace objwire::client {
namespace {

// While the linger thread waits for acks it wakes at least this often to see whether the
// caller opened another batch (whose linger it then times) or is closing.
constexpr std::chrono::milliseconds max_ack_slice{20};
// How long the thread waits for the acks of a batch it wrote; past that the caller's next
// call meets whatever is wrong, with the connection's own deadlines.
constexpr std::chrono::seconds ack_wait{30};

}  // namespace

void connection::start_linger() {
    if (settings_.batch_linger.count() <= 0 || linger_thread_.joinable()) return;
    linger_stop_ = false;
    linger_thread_ = std::thread([this] { linger_loop(); });
}

void connection::stop_linger() {
    if (!linger_thread_.joinable()) return;
    {
        std::lock_guard lock(mu_);
        linger_stop_ = true;
    }
    linger_cv_.notify_one();
    linger_thread_.join();
}

void connection::linger_loop() {
    const auto linger_ns = static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(settings_.batch_linger).count());
    std::unique_lock lock(mu_);
    while (!linger_stop_) {
        if (!open_ || background_error_ || core_.open_batch_bytes() == 0) {
            linger_cv_.wait(lock);
            continue;
        }
        const std::uint64_t waited = coarse_now_ns() - batch_opened_ns_;
        if (waited < linger_ns) {
            linger_cv_.wait_for(lock, std::chrono::nanoseconds(linger_ns - waited));
            continue;
        }
        if (auto ec = flush_locked()) {
            background_error_ = ec;
            continue;
        }
        linger_read_acks(lock);
    }
}

void connection::linger_read_acks(std::unique_lock<std::mutex>& lock) {
    const auto slice =
        std::clamp(std::chrono::duration_cast<std::chrono::milliseconds>(settings_.batch_linger),
                   std::chrono::milliseconds(1), max_ack_slice);
    const auto deadline = std::chrono::steady_clock::now() + ack_wait;
    while (!linger_stop_ && open_ && !background_error_ && core_.open_batch_bytes() == 0 &&
           !core_.all_acked() && std::chrono::steady_clock::now() < deadline) {
        // The caller may call in while the thread waits (take_acks unlocks the mutex).
        if (auto ec = take_acks(lock, slice)) background_error_ = ec;
    }
}

}  // namespace objwire::client
