// What the reader role's two sources share (daemon/roles/reader_service.cpp serves the journal,
// daemon/roles/nats_reader_service.cpp a JetStream stream): the state a reader's coroutines share
// with the source's listener and the peer watcher, the watcher itself, and block frames.
#pragma once

#include <asio.hpp>
#include <asio/experimental/as_tuple.hpp>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <system_error>
#include <utility>

#include "daemon/roles/slow_consumer.hpp"
#include "daemon/roles/write_list.hpp"
#include "daemon/serve/peer_stream.hpp"
#include "proto/byte_buffer.hpp"
#include "proto/control.hpp"
#include "proto/read_server.hpp"

namespace objwire::daemon {
class server;
}

namespace objwire::daemon::reader_support {

inline constexpr auto use_tuple = asio::experimental::as_tuple(asio::use_awaitable);
// Frames are gathered up to this size (or one larger block) before each write.
inline constexpr std::size_t write_batch_bytes = 256 * 1024;
// A batch that has waited this long for its peer is stalled: the reader gives back what it
// can (its read-ahead) and counts in objwire_readers_stalled. Shorter waits are the normal
// pace of a reader slower than the disk, where giving back would cost a read again per batch.
inline constexpr auto peer_behind_after = std::chrono::milliseconds(50);
// A follower's idle wait also ends this often, to notice a daemon stop.
inline constexpr auto follow_poll = std::chrono::milliseconds(200);

// A batch's capacity once a frame of `frame_bytes` joins its `size` bytes: unchanged when the
// frame fits; exactly enough when the frame closes the batch (takes it to write_batch_bytes);
// else write_batch_bytes and the frame, room for the frames to come - never doubled. Frames
// join while the batch is under write_batch_bytes, so it never takes more than that and the
// largest frame, however the peer's pace and the scheduling go.
constexpr std::size_t batch_capacity(std::size_t size, std::size_t capacity,
                                     std::size_t frame_bytes) {
    const std::size_t need = size + frame_bytes;
    if (need <= capacity) return capacity;
    return need >= write_batch_bytes ? need : write_batch_bytes + frame_bytes;
}

// Only `pending` is touched off the connection's strand.
struct reader_state {
    explicit reader_state(asio::any_io_executor ex) : wake(ex) {}
    asio::steady_timer wake;
    std::atomic<bool> pending{false};
    bool peer_done = false;     // the peer sent something or closed: stop serving
    bool peer_goodbye = false;  // a cursor reader said goodbye after its last ack
    bool watcher_done = false;  // the watcher coroutine has ended
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

// Readers' big buffers given back to malloc (`bytes` of capacity). Freed memory stays
// resident in malloc's arenas until trimmed: every 16 MiB given back by readers, it is
// (malloc_trim), so stalled readers cost what they hold, not what they once held.
void gave_back(std::size_t bytes);

// What both readers hold: the connection, its hello, the protocol's rules for it
// (proto/read_server.hpp: what goes out, what the peer may send), and the state its
// coroutines share.
class reader_base {
  protected:
    reader_base(server& srv, peer_stream& stream, const std::string& peer, const hello& h);
    ~reader_base();
    reader_base(const reader_base&) = delete;
    reader_base& operator=(const reader_base&) = delete;

    enum class write_result { written, peer_gone, slow };
    // Writes what the core queued, closing the reader (slow_closed_) when the peer takes no
    // bytes of it for limits.idle_timeout (daemon/roles/slow_consumer.hpp). `on_wait` runs
    // once if the batch waits for the peer longer than peer_behind_after: what the reader can
    // give back.
    asio::awaitable<write_result> write_out(write_list& list, std::function<void()> on_wait = {});
    // While a follower waits at the live end it holds no batch: the next one is allocated
    // when there is something to send.
    void release_batch() {
        gave_back(std::exchange(core_.output(), byte_buffer{}).capacity());
        note_held(other_held_);
    }
    // Before a frame of `frame_bytes` joins the batch: it grows to batch_capacity().
    void make_room(std::size_t frame_bytes);
    // What the reader holds now - its batch and `other` bytes (its read-ahead) - into
    // objwire_readers_held_bytes.
    void note_held(std::size_t other);

    // Writes what the core queued (write_out) and clears it.
    asio::awaitable<write_result> flush(std::function<void()> on_wait = {});
    // Writes `list` (write_out) - frames the core counted, their bytes held elsewhere - and
    // counts it as served.
    asio::awaitable<write_result> flush(write_list& list, std::function<void()> on_wait = {});
    // The end of everything asked for: a goodbye.
    asio::awaitable<void> end_stream();
    // The end before it: logged, and an error frame with `code` and `text`.
    asio::awaitable<void> end_with(std::error_code code, std::string text);
    // A stopping daemon ends its readers with an error, not a goodbye (docs/DECISIONS.md).
    asio::awaitable<void> end_stopping();
    // Between rounds: the peer went away, or the daemon is stopping (the reader is then sent
    // its error frame).
    asio::awaitable<bool> should_end();
    // A reload took the user's permission away (session_identity): the error frame with the
    // reason, and true.
    asio::awaitable<bool> end_if_revoked();
    std::string revoked_reason() const;
    // Objects of the blocks queued since the last call, for the metrics.
    std::uint64_t objects_since_last() {
        return core_.block_objects() - std::exchange(objects_counted_, core_.block_objects());
    }

    server& srv_;
    peer_stream& stream_;
    const std::string& peer_;
    const hello& hello_;
    read_server core_;
    std::string user_;                // whose reads objwire_user_*_out_total count
    std::uint64_t user_counted_ = 0;  // objects of core_ counted there
    std::shared_ptr<reader_state> state_;
    std::uint64_t objects_counted_ = 0;
    std::string failure_;  // why the stream ended early, for the error frame and the log
    std::error_code failure_code_;
    bool slow_closed_ = false;  // ended by the slow-consumer rule

  private:
    // What behind_timer_'s handler runs while the batch is still waiting.
    struct behind_hook {
        bool writing = true;
        std::function<void()> on_wait;
    };
    // Arms behind_timer_ for a batch the peer did not take at once.
    void watch_behind(const std::shared_ptr<behind_hook>& hook);

    slow_consumer_rule slow_;
    asio::steady_timer write_timer_;
    asio::steady_timer behind_timer_;
    bool stalled_ = false;        // counted in readers_stalled
    std::size_t held_ = 0;        // counted in readers_held_bytes
    std::size_t other_held_ = 0;  // of it, what is not the batch
};

// Reads what the peer sends after its hello through the core until it says goodbye, closes or
// breaks the protocol (logged), then marks the peer done. A cursor reader's acks move its
// cursor: `on_ack(offset)` takes it, false ends the connection; `durable_end()` is how far
// an ack may go; `on_end()` runs as soon as the peer's side has ended (goodbye, closed,
// broken), before the peer is marked done, so the cursor is let go with the connection.
// Without a cursor the peer has nothing to say but its goodbye.
struct peer_acks {
    std::function<std::uint64_t()> durable_end;
    std::function<bool(std::uint64_t)> on_ack;
    std::function<void()> on_end;
};
asio::awaitable<void> watch_peer(peer_stream& stream, std::shared_ptr<reader_state> st,
                                 read_server& core, std::string peer, peer_acks acks = {});
// The watcher must end before the connection does: its read is cancelled and awaited.
asio::awaitable<void> stop_watching(peer_stream& stream, reader_state& st);
asio::awaitable<std::error_code> write_bytes(peer_stream& stream, const byte_buffer& bytes);
// As write_bytes, for an answer of any size: a peer that takes none of it for `idle` (0:
// never) is given up (timed_out), as the slow-consumer rule gives up a reader.
asio::awaitable<std::error_code> write_bytes_within(peer_stream& stream, const byte_buffer& bytes,
                                                    std::chrono::milliseconds idle);
// Whether the peer has closed its side or reset the connection, without reading what it sent
// (a peek at the socket): work done for a peer stops when it goes, even before its watcher runs.
bool peer_closed(peer_stream& stream);
// Ends the connection of a peer that has closed its side before anything was sent to it with
// a reset instead of a FIN and its ACK: a flood of hellos closed at once costs the kernels of
// both ends one segment per connection, and leaves no socket in TIME_WAIT.
void reset_gone_peer(peer_stream& stream);
// A goodbye, outside a reader's stream (a cursor command's answer).
asio::awaitable<void> send_goodbye(peer_stream& stream);

}  // namespace objwire::daemon::reader_support
