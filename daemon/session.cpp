#include "daemon/session.hpp"

#include <spdlog/spdlog.h>

#include <asio/experimental/as_tuple.hpp>

#include "daemon/server.hpp"

namespace objwire::daemon {
namespace {

constexpr auto use_tuple = asio::experimental::as_tuple(asio::use_awaitable);
constexpr auto handshake_timeout = std::chrono::seconds(10);
// A read's objects are stored as one batch, split at a frame boundary once a batch passes
// this size, so a read of many well-compressed frames never builds one huge block.
constexpr std::size_t batch_split_bytes = 4u << 20;

std::string describe(const asio::ip::tcp::socket& s) {
    std::error_code ec;
    auto ep = s.remote_endpoint(ec);
    if (ec) return "unknown peer";
    return ep.address().to_string() + ":" + std::to_string(ep.port());
}

receiver::options receiver_options(server& srv, std::uint64_t table_budget) {
    const auto& s = srv.settings();
    receiver::options o;
    o.limits.table_budget = table_budget;  // this connection's share of table_budget_total
    o.limits.max_depth = s.max_depth;
    o.limits.max_string_bytes = s.max_string_bytes;
    o.limits.max_elements = s.max_elements;
    o.limits.max_frame_bytes = s.max_frame_bytes;
    o.sink = srv.sink().describe();
    o.read_block = s.read_buffer;
    return o;
}

// Waits until `timer` is cancelled (the wake-up call) - a condition variable for coroutines
// of one strand.
asio::awaitable<void> wait_for_wake(asio::steady_timer& timer) {
    timer.expires_at(asio::steady_timer::time_point::max());
    co_await timer.async_wait(use_tuple);
}

}  // namespace

session::session(server& srv, asio::ip::tcp::socket socket)
    : server_(srv),
      socket_(std::move(socket)),
      handshake_timer_(socket_.get_executor()),
      writer_wake_(socket_.get_executor()),
      finish_wake_(socket_.get_executor()),
      peer_(describe(socket_)),
      table_grant_(srv.table_budgets(), srv.settings().table_budget),
      receiver_(receiver_options(srv, table_grant_.bytes())) {}

void session::stop() {
    asio::post(socket_.get_executor(), [self = shared_from_this()] {
        self->stopping_ = true;
        self->cancel_read();
    });
}

// Only the read is cancelled: a write in progress must finish, or the peer would get half a
// frame.
void session::cancel_read() {
    if (reading_) read_cancel_.emit(asio::cancellation_type::terminal);
}

void session::wake() {
    writer_wake_.cancel();
    finish_wake_.cancel();
}

bool session::all_durable() const {
    for (const auto& r : replies_)
        if (!r.durable) return false;
    return true;
}

asio::awaitable<void> session::run() {
    auto self = shared_from_this();
    spdlog::debug("{}: connected", peer_);
    handshake_timer_.expires_after(handshake_timeout);
    handshake_timer_.async_wait([self](std::error_code ec) {
        if (ec || self->receiver_.current() != receiver::state::awaiting_hello) return;
        spdlog::warn("{}: closing connection: no hello within {} s", self->peer_,
                     handshake_timeout.count());
        self->cancel_read();
    });
    asio::co_spawn(socket_.get_executor(), write_loop(), [self](std::exception_ptr e) {
        if (e) spdlog::error("{}: writer ended by exception", self->peer_);
        self->writer_done_ = true;
        self->wake();
    });
    while (!broken_) {
        if (stopping_) {
            co_await drain();
            break;
        }
        auto space = receiver_.prepare();
        reading_ = true;
        auto [ec, n] = co_await socket_.async_read_some(
            asio::buffer(space.data(), space.size()),
            asio::bind_cancellation_slot(read_cancel_.slot(), use_tuple));
        reading_ = false;
        read_cancel_.slot().clear();
        if (ec) {
            if (ec == asio::error::operation_aborted && stopping_ && !broken_)
                co_await drain();
            else
                on_read_error(ec);
            break;
        }
        if (!consume(n)) break;
    }
    handshake_timer_.cancel();
    co_await finish();
    server_.counters().frames_in += receiver_.frames();
    log_close();
    std::error_code ignored;
    socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
    socket_.close(ignored);
}

bool session::consume(std::size_t n) {
    auto& counters = server_.counters();
    receiver_.commit(n);
    counters.bytes_in += n;
    const auto messages_before = receiver_.messages();
    std::error_code store_error;
    const auto step = receiver_.process([&](message&& m) {
        if (store_error) return;
        if (!stream_) stream_ = server_.sink().open_stream(receiver_.peer().sender_id);
        // The receiver delivers a frame's messages before it counts the frame.
        const auto sequence = receiver_.frames() + 1;
        if (sequence != adding_sequence_ && !stream_->empty() &&
            stream_->bytes() >= batch_split_bytes)
            store_error = commit_batch(sequence - 1, 0);
        if (!store_error) store_error = stream_->add(m);
        adding_sequence_ = sequence;
    });
    if (store_error) {
        spdlog::error("{}: cannot store objects, closing without ack: {}", peer_,
                      store_error.message());
        broken_ = true;
        return false;
    }
    counters.objects_in += receiver_.messages() - messages_before;
    if (receiver_.current() != receiver::state::awaiting_hello) handshake_timer_.cancel();

    // The replies to this read (ack, then error or goodbye) wait for its batch to be durable.
    receiver_.acknowledge();
    auto& out = receiver_.output();
    reply r;
    r.id = ++next_reply_id_;
    r.bytes.append(out.span());
    out.clear();
    if (stream_ && !stream_->empty()) {
        // The sink completes batches in order: this one durable means the read's are.
        if (auto ec = commit_batch(receiver_.frames(), r.id)) {
            spdlog::error("{}: sink write failed, closing without ack: {}", peer_, ec.message());
            broken_ = true;
            return false;
        }
        replies_.push_back(std::move(r));
    } else if (!r.bytes.empty()) {
        r.durable = true;  // nothing to store: released as soon as the replies before it are
        replies_.push_back(std::move(r));
        wake();
    }
    return step == receiver::step::read;
}

// Stores the open batch: the objects of the frames after the last batch up to
// last_sequence. reply_id names the reply released when it is durable (0: none).
std::error_code session::commit_batch(std::uint64_t last_sequence, std::uint64_t reply_id) {
    auto exec = socket_.get_executor();
    // Weak: a session whose run() has ended (after a failure) no longer cares, and must not be
    // kept alive by the sink past the server it belongs to.
    auto on_durable = [weak = weak_from_this(), reply_id, exec](std::error_code ec) {
        asio::post(exec, [weak, reply_id, ec] {
            if (auto self = weak.lock()) self->on_durable(reply_id, ec);
        });
    };
    auto ec = stream_->commit(stored_sequence_ + 1, last_sequence, std::move(on_durable));
    if (!ec) stored_sequence_ = last_sequence;
    return ec;
}

void session::on_durable(std::uint64_t id, std::error_code ec) {
    if (ec) {
        if (!broken_)
            spdlog::error("{}: stored objects did not become durable, closing without ack: {}",
                          peer_, ec.message());
        broken_ = true;
        cancel_read();
    } else {
        for (auto& r : replies_)
            if (r.id == id) r.durable = true;
    }
    wake();
}

// The single writer of the socket after the handshake: sends released replies in order.
asio::awaitable<void> session::write_loop() {
    for (;;) {
        writing_.clear();
        while (!replies_.empty() && replies_.front().durable) {
            writing_.append(replies_.front().bytes.span());
            replies_.pop_front();
        }
        if (writing_.empty()) {
            if (closing_ || broken_) co_return;
            co_await wait_for_wake(writer_wake_);
            continue;
        }
        auto [ec, n] = co_await asio::async_write(
            socket_, asio::buffer(writing_.data(), writing_.size()), use_tuple);
        if (ec) {
            if (peer_closed_)
                spdlog::debug("{}: replies not sent, the peer is gone: {}", peer_, ec.message());
            else
                spdlog::warn("{}: write failed: {}", peer_, ec.message());
            broken_ = true;
            cancel_read();
            co_return;
        }
    }
}

asio::awaitable<void> session::finish() {
    while (!broken_ && !writer_done_ && !all_durable())
        co_await wait_for_wake(finish_wake_);
    closing_ = true;
    wake();
    while (!writer_done_)
        co_await wait_for_wake(finish_wake_);
}

// On stop: whatever the kernel already holds for us counts as received - take it in, store
// and acknowledge it, without waiting for more.
asio::awaitable<void> session::drain() {
    for (;;) {
        std::error_code ec;
        if (socket_.available(ec) == 0 || ec) co_return;
        auto space = receiver_.prepare();
        std::size_t n = socket_.read_some(asio::buffer(space.data(), space.size()), ec);
        if (ec || !consume(n)) co_return;
    }
}

void session::on_read_error(const std::error_code& ec) {
    if (ec == asio::error::operation_aborted) return;  // stop(), the handshake deadline, a failure
    peer_closed_ = true;
    if (ec == asio::error::eof) {
        if (receiver_.buffered() > 0)
            spdlog::warn(
                "{}: connection closed mid-frame ({} bytes of an incomplete frame dropped)", peer_,
                receiver_.buffered());
        else if (receiver_.current() == receiver::state::streaming)
            spdlog::info("{}: connection closed without goodbye", peer_);
        return;
    }
    spdlog::warn("{}: read failed: {}", peer_, ec.message());
}

void session::log_close() {
    switch (receiver_.current()) {
        case receiver::state::failed:
            ++server_.counters().protocol_errors;
            spdlog::warn("{}: closing connection: {}", peer_, receiver_.error_detail());
            break;
        case receiver::state::finished:
            spdlog::info("{}: done: {} objects in {} frames from '{}'", peer_, receiver_.messages(),
                         receiver_.frames(), receiver_.peer().client_name);
            break;
        default:
            spdlog::info("{}: closed after {} objects in {} frames", peer_, receiver_.messages(),
                         receiver_.frames());
    }
}

}  // namespace objwire::daemon
