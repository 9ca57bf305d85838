// One connection of objwired: a thin driver around the sans-I/O receiver. It reads the socket
// in blocks straight into the receiver's buffer, hands each read's decoded objects to its sink
// stream as one batch (one write), and keeps the receiver's replies for that read - the ack,
// and an error or goodbye after it - until the sink says the batch is durable; a writer
// coroutine sends released replies in order. Reading goes on meanwhile, so a sync in progress
// (journal fsync interval or always) delays acknowledgements, never the intake. Both
// coroutines run on the socket's strand.
#pragma once

#include <asio.hpp>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>

#include "daemon/sink.hpp"
#include "daemon/table_budget_pool.hpp"
#include "proto/byte_buffer.hpp"
#include "proto/receiver.hpp"

namespace objwire::daemon {

class server;

class session : public std::enable_shared_from_this<session> {
  public:
    session(server& srv, asio::ip::tcp::socket socket);

    asio::awaitable<void> run();
    // Graceful stop: finish what is buffered, acknowledge it once durable, close. Any thread.
    void stop();
    const std::string& peer() const { return peer_; }
    asio::any_io_executor run_executor() { return socket_.get_executor(); }

  private:
    // The receiver's replies to one read, sent once that read's batch is durable.
    struct reply {
        std::uint64_t id = 0;
        bool durable = false;
        byte_buffer bytes;
    };

    // Takes in n bytes just read: decode, store, queue the replies. False when the
    // connection ends.
    bool consume(std::size_t n);
    std::error_code commit_batch(std::uint64_t last_sequence, std::uint64_t reply_id);
    asio::awaitable<void> drain();
    asio::awaitable<void> write_loop();
    // After the last read: waits until every reply is durable and sent (unless the sink or
    // the socket failed).
    asio::awaitable<void> finish();
    void on_durable(std::uint64_t id, std::error_code ec);
    void cancel_read();
    void wake();
    bool all_durable() const;
    void on_read_error(const std::error_code& ec);
    void log_close();

    server& server_;
    asio::ip::tcp::socket socket_;
    asio::steady_timer handshake_timer_;
    asio::steady_timer writer_wake_;  // the writer waits on it for released replies
    asio::steady_timer finish_wake_;  // finish() waits on it
    asio::cancellation_signal read_cancel_;
    std::string peer_;
    table_budget_pool::grant table_grant_;  // before receiver_: it sizes the receiver's table
    receiver receiver_;
    std::unique_ptr<sink_stream> stream_;
    std::deque<reply> replies_;
    std::uint64_t next_reply_id_ = 0;
    std::uint64_t stored_sequence_ = 0;  // the last frame a committed batch covers
    std::uint64_t adding_sequence_ = 0;  // the frame of the last object added
    byte_buffer writing_;
    bool reading_ = false;
    bool stopping_ = false;
    bool closing_ = false;  // no more replies will be queued
    bool writer_done_ = false;
    bool broken_ = false;       // the sink or the socket failed: nothing more is sent
    bool peer_closed_ = false;  // the peer ended the connection
};

}  // namespace objwire::daemon
