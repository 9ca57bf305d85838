// The byte stream between a client and objwired: the TCP socket, with TLS over it when
// tls.enabled (docs/SECURITY.md, "Access"). For blocking clients: reads wait up to a deadline,
// writes are single non-blocking attempts the caller counts (one SSL_write on TLS). The
// socket stays its owner's; the link only adds TLS to it.
//
//   asio::io_context io;
//   asio::ip::tcp::socket socket(io);
//   objwire::client::daemon_link link(socket);
//   std::string why;
//   if (auto ec = link.connect(settings, why)) ...;     // resolve, connect, TLS handshake
//   link.write_some(bytes, ec); link.read_some(space, timeout, ec);
//   hello.auth_token = ...read_token_file(settings, token, why)...
#pragma once

#include <asio.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <system_error>

#include "config/settings.hpp"

struct ssl_st;
struct ssl_ctx_st;

namespace objwire::client {

class daemon_link {
  public:
    explicit daemon_link(asio::ip::tcp::socket& socket) : socket_(socket) {}
    ~daemon_link();
    daemon_link(const daemon_link&) = delete;
    daemon_link& operator=(const daemon_link&) = delete;

    // The whole setup: resolves client.to, connects within client.connect_timeout, makes the
    // socket non-blocking and sets its options (socket.*), then start(). `why` says what
    // failed, for people. Every client connects through it: connection, reader, stats.
    std::error_code connect(const config::client_settings& s, std::string& why);
    // Lets a caller's stop end connect() and the TLS handshake early: `stop` is asked every
    // 200 ms, and `stop_fd` (when not -1) ends the wait at once when it becomes readable.
    // connect() then fails with asio::error::operation_aborted.
    void stop_with(std::function<bool()> stop, int stop_fd) {
        stop_ = std::move(stop);
        stop_fd_ = stop_fd;
    }
    // On a connected, non-blocking socket: the TLS handshake when tls.enabled, within
    // client.connect_timeout, verifying the daemon's certificate against tls.ca_file and
    // tls.server_name (or the host of client.to). Plain TCP: nothing to do.
    std::error_code start(const config::client_settings& s, std::string& why);
    bool secure() const { return ssl_ != nullptr; }

    // One write attempt (send, or SSL_write): the bytes taken, or 0 with would_block when
    // the kernel's buffer is full. After would_block, retry with the same bytes (on TLS part
    // of them may already be out, as records, and the retry sends the rest).
    std::size_t write_some(std::span<const std::uint8_t> bytes, std::error_code& ec);
    // Whether read_some would find something at once: bytes, or the end of the stream.
    bool readable_now();
    // Reads what has arrived, waiting up to `timeout` for something; eof when the daemon
    // closed, timed_out when nothing came. `stoppable`: the stop of stop_with() ends the wait
    // too (operation_aborted).
    std::size_t read_some(std::span<std::uint8_t> into, std::chrono::milliseconds timeout,
                          std::error_code& ec, bool stoppable = false);
    // Waits until the socket takes more bytes (after write_some said would_block).
    std::error_code wait_writable(std::chrono::milliseconds timeout);
    // TLS close_notify, best effort, never waits. Then the owner closes the socket.
    void shutdown();

  private:
    void reset();
    // socket.nodelay, socket.send_buffer and socket.recv_buffer, once connected.
    void set_socket_options(const config::client_settings& s);
    // start()'s steps: the TLS context (CA, client certificate), then the session over the
    // socket checking the daemon's name or address. Empty, or what failed (OpenSSL's queue
    // says why).
    std::string set_up_context(const config::client_settings& s);
    std::string set_up_session(const std::string& name);
    std::error_code handshake(const std::string& name,
                              std::chrono::steady_clock::time_point deadline, std::string& why);
    std::error_code wait(short events, std::chrono::milliseconds timeout);
    // wait(), ended early by the stop of stop_with() (connect, handshake, a stoppable read).
    std::error_code wait_or_stop(short events, std::chrono::milliseconds timeout);
    // An objwire error frame in clear instead of the TLS server hello: its code, `why` its
    // text. No error when the daemon's answer is TLS.
    std::error_code read_refusal(std::chrono::steady_clock::time_point deadline, std::string& why);

    asio::ip::tcp::socket& socket_;
    ssl_ctx_st* ctx_ = nullptr;
    ssl_st* ssl_ = nullptr;
    std::function<bool()> stop_;
    int stop_fd_ = -1;

  public:
    // What the TLS socket BIO knows (client/lib/daemon_link.cpp): the socket, and whether the
    // daemon's first byte was looked at before OpenSSL may take it.
    struct bio_state {
        int fd = -1;
        bool first_byte_seen = false;
    };

  private:
    bio_state bio_state_;
};

// Whether `ec` is a failure of TLS itself - an alert from the daemon (a missing or rejected
// client certificate), a damaged record - rather than of the connection: trying again would
// not help.
bool is_tls_error(std::error_code ec);

// The token of auth.token_file, surrounding white space dropped ("" when the key is unset).
// False with `why` when the file cannot be read.
bool read_token_file(const config::client_settings& s, std::string& token, std::string& why);

}  // namespace objwire::client
