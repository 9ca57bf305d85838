#include "daemon/session.hpp"

#include <spdlog/spdlog.h>

#include <asio/experimental/as_tuple.hpp>

#include "daemon/server.hpp"
#include "proto/json_writer.hpp"

namespace objwire::daemon {
namespace {

constexpr auto use_tuple = asio::experimental::as_tuple(asio::use_awaitable);
constexpr auto handshake_timeout = std::chrono::seconds(10);

std::string describe(const asio::ip::tcp::socket& s) {
    std::error_code ec;
    auto ep = s.remote_endpoint(ec);
    if (ec) return "unknown peer";
    return ep.address().to_string() + ":" + std::to_string(ep.port());
}

receiver::options receiver_options(const server& srv, const jsonl_sink& sink) {
    const auto& s = srv.settings();
    receiver::options o;
    o.limits.table_budget = s.table_budget;
    o.limits.max_depth = s.max_depth;
    o.limits.max_string_bytes = s.max_string_bytes;
    o.limits.max_elements = s.max_elements;
    o.limits.max_frame_bytes = s.max_frame_bytes;
    o.sink = sink.describe();
    o.read_block = s.read_buffer;
    return o;
}

}  // namespace

session::session(server& srv, asio::ip::tcp::socket socket)
    : server_(srv),
      socket_(std::move(socket)),
      handshake_timer_(socket_.get_executor()),
      peer_(describe(socket_)),
      receiver_(receiver_options(srv, srv.sink())) {}

void session::stop() {
    asio::post(socket_.get_executor(), [self = shared_from_this()] {
        self->stopping_ = true;
        std::error_code ignored;
        self->socket_.cancel(ignored);
    });
}

asio::awaitable<bool> session::flush_replies() {
    receiver_.acknowledge();
    auto& out = receiver_.output();
    if (out.empty()) co_return true;
    auto [ec, n] = co_await asio::async_write(socket_, asio::buffer(out.data(), out.size()), use_tuple);
    out.clear();
    if (ec) {
        spdlog::warn("{}: write failed: {}", peer_, ec.message());
        co_return false;
    }
    co_return true;
}

asio::awaitable<void> session::run() {
    auto self = shared_from_this();
    spdlog::debug("{}: connected", peer_);
    handshake_timer_.expires_after(handshake_timeout);
    handshake_timer_.async_wait([self](std::error_code ec) {
        if (ec || self->receiver_.current() != receiver::state::awaiting_hello) return;
        spdlog::warn("{}: closing connection: no hello within {} s", self->peer_,
                     handshake_timeout.count());
        std::error_code ignored;
        self->socket_.cancel(ignored);
    });
    for (;;) {
        auto space = receiver_.prepare();
        auto [ec, n] =
            co_await socket_.async_read_some(asio::buffer(space.data(), space.size()), use_tuple);
        if (ec) {
            if (ec == asio::error::operation_aborted && stopping_)
                co_await drain();
            else
                on_read_error(ec);
            break;
        }
        if (!co_await consume(n)) break;
        if (stopping_) {
            co_await drain();
            break;
        }
    }
    server_.counters().frames_in += receiver_.frames();
    log_close();
    std::error_code ignored;
    socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
    socket_.close(ignored);
}

asio::awaitable<bool> session::consume(std::size_t n) {
    auto& counters = server_.counters();
    receiver_.commit(n);
    counters.bytes_in += n;
    lines_.clear();
    const auto before = receiver_.messages();
    const auto step = receiver_.process([this](message&& m) {
        append_json(m, lines_);
        lines_.push_back('\n');
    });
    if (!lines_.empty()) {
        if (auto werr = server_.sink().write(lines_)) {
            spdlog::error("{}: sink write failed, closing without ack: {}", peer_, werr.message());
            co_return false;
        }
    }
    counters.objects_in += receiver_.messages() - before;
    if (receiver_.current() != receiver::state::awaiting_hello) handshake_timer_.cancel();
    if (!co_await flush_replies()) co_return false;
    co_return step == receiver::step::read;
}

// On stop: whatever the kernel already holds for us counts as received - take it in, store
// and acknowledge it, without waiting for more.
asio::awaitable<void> session::drain() {
    for (;;) {
        std::error_code ec;
        if (socket_.available(ec) == 0 || ec) co_return;
        auto space = receiver_.prepare();
        std::size_t n = socket_.read_some(asio::buffer(space.data(), space.size()), ec);
        if (ec || !co_await consume(n)) co_return;
    }
}

void session::on_read_error(const std::error_code& ec) {
    if (ec == asio::error::operation_aborted) return;  // stop() or the handshake deadline
    if (ec == asio::error::eof) {
        if (receiver_.buffered() > 0)
            spdlog::warn("{}: connection closed mid-frame ({} bytes of an incomplete frame dropped)",
                         peer_, receiver_.buffered());
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
