// The byte stream under one connection: plain TCP, or TLS over it when [tls] cert_file is set
// (daemon/serve/tls_context.*), so sessions, readers and the stats answer never see which one they
// run over. Meets asio's AsyncReadStream / AsyncWriteStream requirements; operations are
// dispatched through asio::async_initiate, so asio::async_write and per-operation
// cancellation slots work on it as on a socket.
#pragma once

#include <asio.hpp>
#include <asio/ssl.hpp>
#include <chrono>
#include <memory>
#include <string>
#include <system_error>

#include "daemon/serve/session_identity.hpp"
#include "daemon/serve/tls_context.hpp"

namespace objwire::daemon {

class peer_stream {
  public:
    using executor_type = asio::any_io_executor;

    // `tls`: the daemon's context, or null for plain TCP. It must outlive the stream.
    explicit peer_stream(asio::ip::tcp::socket socket, asio::ssl::context* tls = nullptr);

    executor_type get_executor() { return socket_.get_executor(); }
    bool secure() const { return tls_ != nullptr; }

    // First thing on a connection, before any read or write: on TLS, the handshake (with the
    // client certificate check when the context asks for one), all within `timeout`. A peer
    // that starts with anything but a TLS record (a plain objwire client) gets an objwire
    // error frame "unauthorized" in clear, so it learns why. On failure `why` is for the log.
    // Plain TCP: nothing to do.
    asio::awaitable<std::error_code> handshake(std::chrono::milliseconds timeout, std::string& why);

    template <class MutableBuffers, class Token>
    auto async_read_some(const MutableBuffers& buffers, Token&& token) {
        return asio::async_initiate<Token, void(std::error_code, std::size_t)>(
            [this](auto handler, const MutableBuffers& b) {
                if (tls_)
                    tls_->async_read_some(b, std::move(handler));
                else
                    socket_.async_read_some(b, std::move(handler));
            },
            token, buffers);
    }
    template <class ConstBuffers, class Token>
    auto async_write_some(const ConstBuffers& buffers, Token&& token) {
        return asio::async_initiate<Token, void(std::error_code, std::size_t)>(
            [this](auto handler, const ConstBuffers& b) {
                if (tls_)
                    tls_->async_write_some(b, std::move(handler));
                else
                    socket_.async_write_some(b, std::move(handler));
            },
            token, buffers);
    }
    // What can be read now without waiting (used to drain on a graceful stop). On TLS only
    // bytes already decrypted count: reading the kernel's would mean waiting for whole records.
    std::size_t available(std::error_code& ec);
    template <class MutableBuffers>
    std::size_t read_some(const MutableBuffers& buffers, std::error_code& ec) {
        if (tls_) return tls_->read_some(buffers, ec);
        return socket_.read_some(buffers, ec);
    }
    void close();
    asio::ip::tcp::socket& socket() { return socket_; }
    // "ADDRESS:PORT" of the peer, for logs.
    std::string peer_name() const;
    // The peer's IP address, the key of its per-address slots: read once when the stream is
    // made, so it costs no system call per use and stays the same after the peer resets.
    const std::string& peer_address() const { return address_; }
    // The names of the client certificate the TLS handshake verified (none: empty).
    certificate_names client_certificate() const;
    // Who the peer is, once its hello was admitted (null before).
    const std::shared_ptr<session_identity>& identity() const { return identity_; }
    void set_identity(std::shared_ptr<session_identity> id) { identity_ = std::move(id); }

  private:
    asio::awaitable<std::error_code> refuse_plain_peer(std::string& why);

    asio::ip::tcp::socket socket_;
    asio::ip::tcp::endpoint remote_;
    bool remote_known_ = false;
    std::string address_;
    std::unique_ptr<asio::ssl::stream<asio::ip::tcp::socket&>> tls_;
    std::shared_ptr<session_identity> identity_;
};

}  // namespace objwire::daemon
