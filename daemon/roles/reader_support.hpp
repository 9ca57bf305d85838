// What the reader role's two sources share (daemon/roles/reader_service.cpp serves the journal,
// daemon/roles/nats_reader_service.cpp a JetStream stream): the state a reader's coroutines share
// with the source's listener and the peer watcher, the watcher itself, and block frames.
#pragma once

#include <asio.hpp>
#include <asio/experimental/as_tuple.hpp>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <system_error>

#include "daemon/serve/transport.hpp"
#include "proto/byte_buffer.hpp"
#include "proto/control.hpp"

namespace objwire::daemon {
class server;
}

namespace objwire::daemon::reader_support {

inline constexpr auto use_tuple = asio::experimental::as_tuple(asio::use_awaitable);
// Frames are gathered up to this size (or one larger block) before each write.
inline constexpr std::size_t write_batch_bytes = 256 * 1024;
// A follower's idle wait also ends this often, to notice a daemon stop.
inline constexpr auto follow_poll = std::chrono::milliseconds(200);

// Only `pending` is touched off the connection's strand.
struct reader_state {
    explicit reader_state(asio::any_io_executor ex) : wake(ex) {}
    asio::steady_timer wake;
    std::atomic<bool> pending{false};
    bool peer_done = false;     // the peer sent something or closed: stop serving
    bool peer_goodbye = false;  // a cursor reader said goodbye after its last ack
    bool watcher_done = false;  // the watcher coroutine has ended
    std::uint8_t scratch[64];
};

// A callback for another thread that wakes the reader's wait, once per wait however often it
// is called meanwhile.
inline auto waker(std::shared_ptr<reader_state> st, asio::any_io_executor ex) {
    return [st = std::move(st), ex] {
        if (st->pending.exchange(true)) return;
        asio::post(ex, [st] {
            st->pending = false;
            st->wake.cancel();
        });
    };
}

// What both readers hold: the connection, its hello, the state its coroutines share, the
// frames being gathered and what was served, for the log.
class reader_base {
  protected:
    reader_base(server& srv, transport& stream, const std::string& peer, const hello& h)
        : srv_(srv),
          stream_(stream),
          peer_(peer),
          hello_(h),
          state_(std::make_shared<reader_state>(stream.get_executor())) {}

    server& srv_;
    transport& stream_;
    const std::string& peer_;
    const hello& hello_;
    std::shared_ptr<reader_state> state_;
    byte_buffer out_;
    // Between rounds: the peer went away, or the daemon is stopping (the reader is then sent
    // its error frame).
    asio::awaitable<bool> should_end();
    std::uint64_t sequence_ = 0;  // of the last block frame
    std::uint64_t blocks_ = 0;
    std::uint64_t bytes_ = 0;
    std::string failure_;  // why the stream ended early, for the error frame and the log
    std::error_code failure_code_;
};

// The peer has nothing to say after its hello: anything it sends (its goodbye) or its closing
// the connection ends the stream.
asio::awaitable<void> watch_peer(transport& stream, std::shared_ptr<reader_state> st);
// The watcher must end before the connection does: its read is cancelled and awaited.
asio::awaitable<void> stop_watching(transport& stream, reader_state& st);
asio::awaitable<std::error_code> write_bytes(transport& stream, const byte_buffer& bytes);
// The end of everything asked for: a goodbye.
asio::awaitable<void> send_goodbye(transport& stream);
// The end before it: logged, and an error frame with `code` and `text`.
asio::awaitable<void> end_reader(transport& stream, const std::string& peer, std::error_code code,
                                 std::string text);
// A stopping daemon ends its readers with an error, not a goodbye (docs/DECISIONS.md).
asio::awaitable<void> end_reader_stopping(transport& stream, const std::string& peer);
// One served block: a journal_block frame around the block's bytes, numbered from 1.
void append_block_frame(byte_buffer& out, std::span<const std::uint8_t> block,
                        std::uint64_t sequence);

}  // namespace objwire::daemon::reader_support
