#include "client/connection.hpp"

#include <optional>

#include "proto/errors.hpp"

namespace objwire::client {
namespace {

constexpr std::chrono::milliseconds ack_timeout{30'000};

class client_category_impl final : public std::error_category {
public:
    const char* name() const noexcept override { return "objwire.client"; }
    std::string message(int ev) const override {
        switch (static_cast<client_errc>(ev)) {
            case client_errc::connect_failed: return "cannot connect";
            case client_errc::timed_out: return "timed out";
            case client_errc::connection_lost: return "connection lost";
            case client_errc::not_open: return "connection is not open";
        }
        return "objwire.client error " + std::to_string(ev);
    }
};

sender::options sender_options(const config::client_settings& s, std::string name) {
    sender::options o;
    o.greeting.client_name = std::move(name);
    o.greeting.max_frame_bytes = s.max_frame_bytes;
    o.batch_max_bytes = s.batch_max_bytes;
    return o;
}

}  // namespace

const std::error_category& client_category() noexcept {
    static const client_category_impl instance;
    return instance;
}

connection::connection(config::client_settings settings, std::string client_name)
    : settings_(std::move(settings)),
      socket_(io_),
      core_(sender_options(settings_, std::move(client_name))) {}

connection::~connection() {
    std::error_code ignored;
    socket_.close(ignored);
}

const connection_stats& connection::stats() const {
    stats_.objects_sent = core_.messages_added();
    stats_.objects_acked = core_.last_ack().objects;
    stats_.frames = core_.frames_sent();
    stats_.receiver_table_peak_bytes = core_.last_ack().table_peak_bytes;
    return stats_;
}

std::error_code connection::fail(std::error_code ec, std::string text) {
    if (last_error_.empty()) last_error_ = std::move(text);
    open_ = false;
    return ec;
}

// Runs one asynchronous operation to completion or until the deadline, then cancels it.
template <class Start>
std::error_code connection::run_with_deadline(Start&& start, std::chrono::milliseconds timeout,
                                              std::size_t* bytes) {
    std::optional<std::error_code> result;
    start([&](std::error_code ec, auto n) {
        result = ec;
        if constexpr (std::is_integral_v<decltype(n)>) {
            if (bytes) *bytes = n;
        }
    });
    io_.restart();
    io_.run_for(timeout);
    if (!result) {
        std::error_code ignored;
        socket_.cancel(ignored);
        io_.restart();
        io_.run();
        return client_errc::timed_out;
    }
    return *result;
}

std::error_code connection::open() {
    std::error_code ec;
    asio::ip::tcp::resolver resolver(io_);
    auto endpoints = resolver.resolve(settings_.to_host, std::to_string(settings_.to_port), ec);
    const std::string where = settings_.to_host + ":" + std::to_string(settings_.to_port);
    if (ec) return fail(client_errc::connect_failed, "cannot resolve " + where + ": " + ec.message());
    ec = run_with_deadline(
        [&](auto handler) {
            asio::async_connect(socket_, endpoints,
                                [handler](std::error_code e, const asio::ip::tcp::endpoint&) mutable {
                                    handler(e, 0);
                                });
        },
        settings_.connect_timeout);
    if (ec) return fail(client_errc::connect_failed, "cannot connect to " + where + ": " + ec.message());
    socket_.set_option(asio::ip::tcp::no_delay(true), ec);
    open_ = true;
    if (auto e = write_output()) return e;
    while (core_.current() == sender::state::greeting)
        if (auto e = read_replies(true)) return e;
    if (core_.current() != sender::state::streaming)
        return fail(proto_errc::bad_handshake, "handshake refused: " + core_.error_detail());
    return {};
}

std::error_code connection::send(const message& m) {
    if (!open_) return client_errc::not_open;
    const bool was_empty = core_.open_batch_bytes() == 0;
    if (auto ec = core_.add(m)) {
        if (core_.current() == sender::state::failed) return fail(ec, core_.error_detail());
        last_error_ = "message refused: " + ec.message();
        return ec;
    }
    if (was_empty) batch_opened_ = std::chrono::steady_clock::now();
    if (!core_.output().empty()) return write_output();
    // Linger: a batch that has waited long enough goes out even if it is small. Checking the
    // clock every 64 messages keeps its cost off the per-message path.
    if ((core_.messages_added() & 63) == 0 &&
        std::chrono::steady_clock::now() - batch_opened_ >= settings_.batch_linger)
        return flush();
    return {};
}

std::error_code connection::flush() {
    if (!open_) return client_errc::not_open;
    core_.seal();
    return write_output();
}

std::error_code connection::write_output() {
    // Take in whatever acks arrived, then wait while too much is unacknowledged.
    if (auto ec = read_replies(false)) return ec;
    while (core_.in_flight_bytes() > settings_.max_in_flight)
        if (auto ec = read_replies(true)) return ec;
    auto out = core_.output();
    if (out.empty()) return {};
    std::size_t written = 0;
    auto ec = run_with_deadline(
        [&](auto handler) { asio::async_write(socket_, asio::buffer(out.data(), out.size()), handler); },
        ack_timeout, &written);
    ++stats_.write_calls;
    stats_.wire_bytes_out += written;
    if (ec) {
        // The daemon may have said why before closing.
        read_replies(false);
        if (core_.current() == sender::state::failed)
            return fail(core_.error(), core_.error_detail());
        return fail(client_errc::connection_lost, "write failed: " + ec.message());
    }
    core_.consume_output();
    return {};
}

std::error_code connection::read_replies(bool block) {
    if (!block) {
        std::error_code ec;
        if (socket_.available(ec) == 0 || ec) return {};
    }
    auto space = core_.prepare();
    std::size_t n = 0;
    auto ec = run_with_deadline(
        [&](auto handler) { socket_.async_read_some(asio::buffer(space.data(), space.size()), handler); },
        ack_timeout, &n);
    if (ec) {
        if (ec == client_errc::timed_out)
            return fail(ec, "no reply from the daemon within " + std::to_string(ack_timeout.count() / 1000) + " s");
        return fail(client_errc::connection_lost, "connection lost: " + ec.message());
    }
    stats_.wire_bytes_in += n;
    core_.commit(n);
    if (auto pe = core_.process()) return fail(pe, core_.error_detail());
    return {};
}

std::error_code connection::close() {
    if (!open_) return last_error_.empty() ? client_errc::not_open : std::error_code(client_errc::connection_lost);
    core_.finish();
    if (auto ec = write_output()) return ec;
    while (core_.current() == sender::state::closing)
        if (auto ec = read_replies(true)) return ec;
    std::error_code ignored;
    socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
    socket_.close(ignored);
    open_ = false;
    if (!core_.all_acked())
        return fail(client_errc::connection_lost, "daemon closed before acknowledging everything");
    return {};
}

}  // namespace objwire::client
