// One connection of objwired: a thin driver around the sans-I/O receiver. It reads the socket
// in blocks straight into the receiver's buffer, stores each batch of decoded objects with one
// sink write, then writes the acknowledgement. Runs as one coroutine on the socket's strand.
#pragma once

#include <asio.hpp>
#include <memory>
#include <string>

#include "proto/receiver.hpp"

namespace objwire::daemon {

class server;

class session : public std::enable_shared_from_this<session> {
public:
    session(server& srv, asio::ip::tcp::socket socket);

    asio::awaitable<void> run();
    // Graceful stop: finish what is buffered, acknowledge it, close. Any thread.
    void stop();
    const std::string& peer() const { return peer_; }
    asio::any_io_executor run_executor() { return socket_.get_executor(); }

private:
    asio::awaitable<bool> flush_replies();
    // Takes in n bytes just read: decode, store, acknowledge. False when the connection ends.
    asio::awaitable<bool> consume(std::size_t n);
    asio::awaitable<void> drain();
    void on_read_error(const std::error_code& ec);
    void log_close();

    server& server_;
    asio::ip::tcp::socket socket_;
    asio::steady_timer handshake_timer_;
    std::string peer_;
    receiver receiver_;
    std::string lines_;
    bool stopping_ = false;
};

}  // namespace objwire::daemon
