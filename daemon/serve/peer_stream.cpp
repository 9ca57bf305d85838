#include "daemon/serve/peer_stream.hpp"

#include <openssl/ssl.h>

#include <asio/experimental/as_tuple.hpp>
#include <memory>

#include "proto/control.hpp"
#include "proto/errors.hpp"
#include "proto/frame.hpp"

namespace objwire::daemon {
namespace {

constexpr auto use_tuple = asio::experimental::as_tuple(asio::use_awaitable);
constexpr std::uint8_t tls_handshake_record = 0x16;  // the first byte of every ClientHello

}  // namespace

peer_stream::peer_stream(asio::ip::tcp::socket socket, asio::ssl::context* tls)
    : socket_(std::move(socket)) {
    std::error_code ec;
    remote_ = socket_.remote_endpoint(ec);
    remote_known_ = !ec;
    address_ = remote_.address().to_string();
    if (tls) tls_ = std::make_unique<asio::ssl::stream<asio::ip::tcp::socket&>>(socket_, *tls);
}

asio::awaitable<std::error_code> peer_stream::handshake(std::chrono::milliseconds timeout,
                                                        std::string& why) {
    if (!tls_) co_return std::error_code{};
    // The deadline cancels whatever waits on the socket. It reaches the socket through a
    // shared pointer this coroutine clears on the way out: a firing already queued when the
    // handshake ends then finds nothing to cancel.
    auto target = std::make_shared<asio::ip::tcp::socket*>(&socket_);
    auto expired = std::make_shared<bool>(false);
    asio::steady_timer deadline(socket_.get_executor());
    deadline.expires_after(timeout);
    deadline.async_wait([target, expired](std::error_code ec) {
        if (ec || !*target) return;
        *expired = true;
        std::error_code ignored;
        (*target)->cancel(ignored);
    });
    struct disarm {
        std::shared_ptr<asio::ip::tcp::socket*> target;
        asio::steady_timer& deadline;
        ~disarm() {
            *target = nullptr;
            deadline.cancel();
        }
    } guard{target, deadline};

    // Peek at the first byte: a TLS ClientHello, or someone speaking plain objwire.
    auto [wait_error] = co_await socket_.async_wait(asio::ip::tcp::socket::wait_read, use_tuple);
    std::uint8_t first = 0;
    std::error_code ec = wait_error;
    std::size_t peeked = 0;
    if (!ec) peeked = socket_.receive(asio::buffer(&first, 1), asio::socket_base::message_peek, ec);
    if (!ec && peeked == 0) ec = asio::error::eof;
    if (!ec && first != tls_handshake_record) co_return co_await refuse_plain_peer(why);
    if (!ec) {
        auto [hs_error] = co_await tls_->async_handshake(asio::ssl::stream_base::server, use_tuple);
        ec = hs_error;
    }
    if (*expired) {
        why = "no TLS handshake within " + std::to_string(timeout.count()) + " ms";
        co_return make_error_code(std::errc::timed_out);
    }
    if (ec) {
        why = ec == asio::error::eof ? std::string("closed before the TLS handshake")
                                     : "TLS handshake failed: " + ec.message();
    }
    co_return ec;
}

// The peer is not speaking TLS. Its first bytes (the hello) are taken in first, so closing
// does not reset the connection before it reads our answer.
asio::awaitable<std::error_code> peer_stream::refuse_plain_peer(std::string& why) {
    std::error_code ec;
    std::uint8_t scratch[4096];
    socket_.non_blocking(true, ec);
    (void)socket_.read_some(asio::buffer(scratch), ec);
    socket_.non_blocking(false, ec);
    const std::error_code code = proto_errc::unauthorized;
    byte_buffer payload;
    encode_error({static_cast<std::uint32_t>(code.value()),
                  code.message() + ": this daemon speaks TLS only (objwire: tls.enabled = true)"},
                 payload);
    byte_buffer frame;
    append_frame(frame, frame_kind::error, 0, payload.span());
    co_await asio::async_write(socket_, asio::buffer(frame.data(), frame.size()), use_tuple);
    socket_.shutdown(asio::ip::tcp::socket::shutdown_send, ec);
    why = "plain TCP peer, but TLS is required";
    co_return code;
}

std::size_t peer_stream::available(std::error_code& ec) {
    ec.clear();
    if (tls_) return static_cast<std::size_t>(SSL_pending(tls_->native_handle()));
    return socket_.available(ec);
}

void peer_stream::close() {
    std::error_code ignored;
    socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
    socket_.close(ignored);
}

certificate_names peer_stream::client_certificate() const {
    if (!tls_) return {};
    return peer_certificate_names(tls_->native_handle());
}

std::string peer_stream::peer_name() const {
    if (!remote_known_) return "unknown peer";
    return address_ + ":" + std::to_string(remote_.port());
}

}  // namespace objwire::daemon
