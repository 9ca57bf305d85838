// The parts of a session that the limits against hostile peers add (docs/SECURITY.md): the guard
// tick that cuts idle and too slow peers, the pause of reading while too much read is not yet
// durable, the stall while the sink is out of space - no acknowledgements, the batch retried
// until the disk has room again - and the bound on bytes stored per byte received.
#include <spdlog/spdlog.h>

#include <asio/experimental/as_tuple.hpp>

#include "daemon/serve/server.hpp"
#include "daemon/serve/session.hpp"
#include "daemon/sinks/held_memory.hpp"

namespace objwire::daemon {
namespace {

constexpr auto use_tuple = asio::experimental::as_tuple(asio::use_awaitable);
// How often a stalled session tries its batch again.
constexpr auto stall_retry = std::chrono::milliseconds(250);

bool out_of_space(std::error_code ec) {
    return ec == std::errc::no_space_on_device || ec == std::errc::file_too_large ||
           ec == std::error_code(EDQUOT, std::generic_category());
}

double seconds_since(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

asio::awaitable<void> session::guard_loop() {
    auto self = shared_from_this();
    const auto tick = guard_.tick();
    if (tick.count() == 0) co_return;  // no idle timeout, no read rate
    while (!ended_ && !broken_ && !stopping_) {
        guard_timer_.expires_after(tick);
        co_await guard_timer_.async_wait(use_tuple);
        if (ended_ || broken_ || stopping_) co_return;
        const auto now = std::chrono::steady_clock::now();
        // Waiting for our sink is not the peer's idleness (its window may be full).
        guard_.hold(now, paused_ || stalled_ || held_bytes_ > 0);
        if (auto why = guard_.check(now); !why.empty()) {
            spdlog::warn("{}: closing connection: {}", peer_, why);
            server_.metrics().count_error(std::make_error_code(std::errc::timed_out), "guard");
            cancel_read();
            co_return;
        }
    }
}

asio::awaitable<bool> session::hold_reading() {
    const std::uint64_t cap = server_.settings().max_buffered_bytes;
    if (!stalled_ && held_bytes_ <= cap) co_return !broken_;
    paused_ = true;
    link_.on_pause();  // the wait is ours, not the link's
    if (!stalled_)
        spdlog::debug(
            "{}: reading paused: {} bytes held not yet durable (limits.max_buffered_bytes)", peer_,
            held_bytes_);
    while (!broken_ && !stopping_ && (stalled_ || held_bytes_ > cap)) {
        // wake() (a batch durable, stop()) ends the wait early.
        finish_wake_.expires_after(stalled_ ? std::chrono::steady_clock::duration(stall_retry)
                                            : std::chrono::hours(24));
        co_await finish_wake_.async_wait(use_tuple);
        if (!stalled_ || broken_ || stopping_) continue;
        auto ec = commit_batch(stall_sequence_, stall_reply_id_);
        if (!ec) {
            stalled_ = false;
            spdlog::warn("{}: storing again after {:.1f} s; acknowledging", peer_,
                         seconds_since(stalled_since_));
        } else if (!out_of_space(ec) || !stream_ || stream_->empty()) {
            spdlog::error("{}: sink write failed, closing without ack: {}", peer_, ec.message());
            broken_ = true;
        }
    }
    paused_ = false;
    co_return !broken_;
}

bool session::stall_on(std::error_code ec, std::uint64_t last_sequence, std::uint64_t reply_id) {
    // Only a sink that kept the batch (the journal) can be retried without losing objects.
    if (!out_of_space(ec) || !stream_ || stream_->empty()) return false;
    stalled_ = true;
    stall_sequence_ = last_sequence;
    stall_reply_id_ = reply_id;
    stalled_since_ = std::chrono::steady_clock::now();
    server_.metrics().count_error(ec, "store_stalled");
    spdlog::error(
        "{}: cannot store objects: {}; not acknowledging, reading paused, retrying "
        "every {} ms",
        peer_, ec.message(), stall_retry.count());
    return true;
}

std::error_code session::store(const std::function<std::error_code()>& add) {
    const std::size_t before = stream_->bytes();
    auto ec = add();
    const std::size_t after = stream_->bytes();
    if (ec || after <= before) return ec;
    if (server_.sink().holds_messages()) check_frame_memory();
    if (over_allowance_) return {};
    auto why = allowance_.stored(after - before);
    if (why.empty()) why = server_.store_quota().stored(receiver_.peer().sender_id, after - before);
    if (!why.empty()) {
        over_allowance_ = true;
        server_.metrics().count_error(make_error_code(proto_errc::store_limit_exceeded),
                                      "store_limit");
        receiver_.refuse_frame(proto_errc::store_limit_exceeded, std::move(why));
    }
    return {};
}

void session::check_frame_memory() {
    const std::uint64_t frame = stream_->memory() - frame_memory_start_;
    auto why = memory_charge::frame_refusal(frame, server_.settings().max_buffered_bytes);
    if (why.empty()) return;
    over_allowance_ = true;
    server_.metrics().count_error(make_error_code(proto_errc::store_limit_exceeded), "store_limit");
    receiver_.refuse_frame(proto_errc::store_limit_exceeded, std::move(why));
}

std::size_t session::read_size(std::size_t offered) const {
    if (!server_.sink().holds_messages()) return offered;
    return memory_charge::read_limit(offered, held_bytes_, server_.settings().max_buffered_bytes);
}

// A read's reply holds its bytes until its batch is durable - or, for a sink that keeps
// decoded messages, what they take in memory when that is more.
void session::queue_held_reply(reply r) {
    r.read_bytes = memory_charge::charge(unreplied_bytes_, unreplied_memory_);
    unreplied_bytes_ = 0;
    unreplied_memory_ = 0;
    held_bytes_ += r.read_bytes;
    auto& m = server_.metrics();
    m.held_bytes += static_cast<std::int64_t>(r.read_bytes);
    for (auto peak = m.held_bytes_peak.load();
         held_bytes_ > peak && !m.held_bytes_peak.compare_exchange_weak(peak, held_bytes_);) {
    }
    replies_.push_back(std::move(r));
}

void session::release_held(std::uint64_t id) {
    for (auto& r : replies_) {
        if (r.id != id || r.durable) continue;
        r.durable = true;
        held_bytes_ -= r.read_bytes;
        server_.metrics().held_bytes -= static_cast<std::int64_t>(r.read_bytes);
    }
}

}  // namespace objwire::daemon
