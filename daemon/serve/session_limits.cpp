// The parts of a session that the limits against hostile peers add (docs/SECURITY.md): the guard
// tick that cuts idle and too slow peers, the pause of reading while too much read is not yet
// durable, the stall while the sink is out of space - no acknowledgements, the batch retried
// until the disk has room again - and the bound on bytes stored per byte received.
#include <poll.h>
#include <spdlog/spdlog.h>

#include "daemon/serve/credit_share.hpp"
#include "daemon/serve/log_text.hpp"
#include "daemon/serve/refusal.hpp"
#include "daemon/serve/server.hpp"
#include "daemon/serve/session.hpp"
#include "daemon/sinks/held_memory.hpp"
#include "daemon/telemetry/warning_log.hpp"

namespace objwire::daemon {
namespace {

// How often a stalled session tries its batch again.
constexpr auto stall_retry = std::chrono::milliseconds(250);

double seconds_since(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

void session::shed(std::string why) {
    asio::post(stream_io_.get_executor(), [self = shared_from_this(), why = std::move(why)] {
        if (self->state_.phase() != session_phase::handshake) return;  // its hello came
        warn_peer(warning_kind::refused_at_cap,
                  fmt::format("{}: closing connection before its hello: {}", self->peer_, why));
        if (!self->watching_) {
            // Still in its TLS handshake: nothing of objwire can reach it yet.
            self->stream_io_.close();
            return;
        }
        // The writer sends it as the reads end, as a refusal's.
        const auto frame = error_frame(proto_errc::too_many_connections, why);
        self->replies_.push_released(frame.span());
        self->handshake_deadline_ = never;
        self->cancel_read();
        self->wake();
    });
}

std::optional<std::chrono::steady_clock::time_point> session::idle_since() const {
    const auto ticks = active_at_.load(std::memory_order_relaxed);
    if (ticks == 0) return std::nullopt;
    return std::chrono::steady_clock::time_point(std::chrono::steady_clock::duration(ticks));
}

void session::touch_active() {
    auto seen = active_at_.load(std::memory_order_relaxed);
    // 0 stays 0: a connection shed, or no longer streaming, is never a candidate again.
    if (seen == 0) return;
    active_at_.compare_exchange_strong(seen,
                                       std::chrono::steady_clock::now().time_since_epoch().count(),
                                       std::memory_order_relaxed);
}

void session::shed_idle(std::string why) {
    active_at_.store(0, std::memory_order_relaxed);  // not picked again
    asio::post(stream_io_.get_executor(), [self = shared_from_this(), why = std::move(why)] {
        if (self->role_ != connection_role::sender ||
            self->state_.phase() != session_phase::streaming)
            return;  // it sent its goodbye, failed or was paused meanwhile
        warn_peer(warning_kind::refused_at_cap,
                  fmt::format("{}: closing idle sender: {}", self->peer_, why));
        // After the acks it is owed, as a refusal: nothing more is read.
        const auto frame = error_frame(proto_errc::too_many_connections, why);
        self->replies_.push_released(frame.span());
        self->state_.finish();
        self->cancel_read();
        self->wake();
    });
}

void session::reconsider(std::shared_ptr<const user_directory> next,
                         std::shared_ptr<const user> anonymous) {
    // On the session's strand, where its identity was set and its reader or writer runs.
    asio::post(stream_io_.get_executor(), [self = shared_from_this(), next = std::move(next),
                                           anonymous = std::move(anonymous)] {
        const auto& id = self->stream_io_.identity();
        if (!id) return;  // before its hello: checked against the new users when it comes
        const auto was = id->current();
        auto why = next->empty() ? std::string() : revocation(*was, self->receiver_.peer(), *next);
        if (why.empty()) {
            id->replace(next->empty() ? anonymous : next->find(was->name));
            return;
        }
        self->end_revoked(std::move(why), was->name);
    });
}

void session::end_revoked(std::string why, const std::string& user_name) {
    spdlog::warn("{}: closing connection: {}", peer_, log_text(why));
    server_.metrics().count_refusal(user_name, "revoked");
    stream_io_.identity()->revoke(why);
    const auto p = state_.phase();
    // A reader (handed over) sees the revocation itself, at its next round.
    if (p != session_phase::streaming && p != session_phase::paused) return;
    const auto frame = error_frame(proto_errc::unauthorized, why);
    replies_.push_released(frame.span());
    fail();
}

void session::check_guard(time_point now) {
    guard_due_ = never;
    const auto p = state_.phase();
    // The guard watches a stream being read; once it is not, the guard is done.
    if (p != session_phase::streaming && p != session_phase::paused && p != session_phase::stalled)
        return;
    // Waiting for our sink is not the peer's idleness (its window may be full).
    guard_.hold(now, p != session_phase::streaming || replies_.held_bytes() > 0);
    if (auto why = guard_.check(now); !why.empty()) {
        spdlog::warn("{}: closing connection: {}", peer_, why);
        server_.metrics().count_error(std::make_error_code(std::errc::timed_out), "guard");
        cancel_read();
        return;
    }
    guard_due_ = now + guard_.tick();
}

std::uint64_t session::credit() const {
    const auto senders = server_.metrics()
                             .connections_by_role[static_cast<std::size_t>(connection_role::sender)]
                             .load(std::memory_order_relaxed);
    return credit_share(server_.settings().max_buffered_bytes, senders);
}

asio::awaitable<bool> session::hold_reading() {
    const std::uint64_t cap = credit();
    if (state_.phase() == session_phase::streaming && replies_.held_bytes() > cap) {
        state_.pause();
        spdlog::debug(
            "{}: reading paused: {} bytes held not yet durable (its credit: {} bytes, its share of "
            "limits.max_buffered_bytes)",
            peer_, replies_.held_bytes(), cap);
    }
    const auto waiting = [this] {
        const auto p = state_.phase();
        return p == session_phase::paused || p == session_phase::stalled;
    };
    if (waiting()) link_.on_pause();  // the wait is ours, not the link's
    while (waiting()) {
        if (state_.phase() == session_phase::paused && replies_.held_bytes() <= credit()) {
            state_.unpause();
            break;
        }
        // wake() (a batch durable, stop()) ends the wait early; a stall retries at the latest
        // after stall_retry, and a pause looks as often whether the sender is still there.
        co_await wait_for_wake(std::chrono::steady_clock::now() + stall_retry);
        touch_active();  // held by us, not idle
        if (state_.phase() == session_phase::paused) notice_hangup_while_paused();
        if (state_.phase() != session_phase::stalled) continue;
        auto ec = commit_batch(stall_sequence_, stall_reply_id_);
        if (!ec) {
            state_.unstall();
            spdlog::warn("{}: storing again after {:.1f} s; acknowledging", peer_,
                         seconds_since(stalled_since_));
            if (replies_.held_bytes() > credit()) state_.pause();
        } else if (!out_of_space(ec) || !stream_ || stream_->empty()) {
            spdlog::error("{}: sink write failed, closing without ack: {}", peer_, ec.message());
            fail();
        }
    }
    co_return !state_.over();
}

// While reading is paused the sender's close is not read (the bytes before it wait unread);
// the socket says it all the same (POLLRDHUP). Nobody will take the acks then: a sink that
// waits on a peer (a relay's hop) need not wait long for them.
void session::notice_hangup_while_paused() {
    if (hangup_seen_ || !stream_) return;
    pollfd p{stream_io_.socket().native_handle(), POLLRDHUP, 0};
    if (::poll(&p, 1, 0) != 1 || (p.revents & (POLLRDHUP | POLLHUP | POLLERR)) == 0) return;
    hangup_seen_ = true;
    spdlog::info("{}: the sender left while reading was paused", peer_);
    stream_->abandon(sink_stream::left_window);
}

bool session::stall_on(std::error_code ec, std::uint64_t last_sequence, std::uint64_t reply_id) {
    // Only a sink that kept the batch (the journal) can be retried without losing objects.
    if (!out_of_space(ec) || !stream_ || stream_->empty() || !state_.stall()) return false;
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

void session::drop_stalled() {
    const auto dropped = replies_.drop_from(stall_reply_id_);
    server_.metrics().held_bytes -= static_cast<std::int64_t>(dropped);
}

std::error_code session::store(const std::function<std::error_code()>& add) {
    const std::size_t before = stream_->bytes();
    auto ec = add();
    const std::size_t after = stream_->bytes();
    if (ec || after <= before) return ec;
    if (server_.sink().holds_messages()) check_frame_memory();
    if (receiver_.frame_refused()) return {};
    auto why = allowance_.stored(after - before);
    if (why.empty()) why = server_.store_quota().stored(receiver_.peer().sender_id, after - before);
    if (!why.empty()) {
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
    server_.metrics().count_error(make_error_code(proto_errc::store_limit_exceeded), "store_limit");
    receiver_.refuse_frame(proto_errc::store_limit_exceeded, std::move(why));
}

// No more than the connection's credit at once: with many senders, a turn of one is a share.
std::size_t session::read_size(std::size_t offered) const {
    offered = static_cast<std::size_t>(std::min<std::uint64_t>(offered, credit()));
    if (!server_.sink().holds_messages()) return offered;
    return memory_charge::read_limit(offered, replies_.held_bytes(),
                                     server_.settings().max_buffered_bytes);
}

// A read's reply holds its bytes until its batch is durable - or, for a sink that keeps
// decoded messages, what they take in memory when that is more.
void session::queue_held_reply(std::span<const std::uint8_t> bytes, std::uint64_t received_ns) {
    const auto held = memory_charge::charge(unreplied_bytes_, unreplied_memory_);
    unreplied_bytes_ = 0;
    unreplied_memory_ = 0;
    replies_.push_held(bytes, received_ns, held);
    auto& m = server_.metrics();
    m.held_bytes += static_cast<std::int64_t>(held);
    const auto now_held = replies_.held_bytes();
    for (auto peak = m.held_bytes_peak.load();
         now_held > peak && !m.held_bytes_peak.compare_exchange_weak(peak, now_held);) {
    }
}

void session::release_held(std::uint64_t id) {
    server_.metrics().held_bytes -= static_cast<std::int64_t>(replies_.release(id));
}

}  // namespace objwire::daemon
