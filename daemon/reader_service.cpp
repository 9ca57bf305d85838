// The reader role (docs/PROTOCOL.md, "Reading back"): a welcome with the journal's offsets,
// then every stored block from hello.read_from on as one journal_block frame each - the bytes
// exactly as stored - in offset order, optionally only one sender's; at the end of what was
// durable when the reader connected a goodbye, or with hello.follow, new blocks as they become
// durable until the peer goes away or the daemon stops.
//
// Memory per reader is bounded: the cursor's read chunk plus one block, and one batch of
// frames written with async_write, whose completion waits for the peer (TCP back-pressure).
#include <spdlog/spdlog.h>

#include <asio/experimental/as_tuple.hpp>
#include <atomic>
#include <memory>
#include <utility>

#include "daemon/journal_cursor.hpp"
#include "daemon/journal_sink.hpp"
#include "daemon/roles.hpp"
#include "daemon/server.hpp"
#include "proto/errors.hpp"
#include "proto/frame.hpp"

namespace objwire::daemon {
namespace {

constexpr auto use_tuple = asio::experimental::as_tuple(asio::use_awaitable);
// Frames are gathered up to this size (or one larger block) before each write.
constexpr std::size_t write_batch_bytes = 256 * 1024;
// A follower's idle wait also ends this often, to notice a daemon stop.
constexpr auto follow_poll = std::chrono::milliseconds(200);

// What the reader's coroutines share with the journal's listener and the peer watcher. Only
// `pending` is touched off the connection's strand.
struct reader_state {
    explicit reader_state(asio::any_io_executor ex) : wake(ex) {}
    asio::steady_timer wake;
    std::atomic<bool> pending{false};
    bool peer_done = false;     // the peer sent something or closed: stop serving
    bool watcher_done = false;  // the watcher coroutine has ended
    std::uint8_t scratch[64];
};

// The peer has nothing to say after its hello: anything it sends (its goodbye) or its closing
// the connection ends the stream.
asio::awaitable<void> watch_peer(transport& stream, std::shared_ptr<reader_state> st) {
    co_await stream.async_read_some(asio::buffer(st->scratch), use_tuple);
    st->peer_done = true;
    st->watcher_done = true;
    st->wake.cancel();
}

asio::awaitable<std::error_code> write_bytes(transport& stream, const byte_buffer& bytes) {
    auto [ec, n] =
        co_await asio::async_write(stream, asio::buffer(bytes.data(), bytes.size()), use_tuple);
    co_return ec;
}

// One served block: a journal_block frame around the block's bytes, numbered from 1.
void append_block_frame(byte_buffer& out, std::span<const std::uint8_t> block,
                        std::uint64_t sequence) {
    const std::size_t start = out.size();
    out.prepare(frame_header_size + block.size());
    out.commit(frame_header_size);
    out.append(block);
    seal_frame(out.span().subspan(start), frame_kind::journal_block, sequence);
}

welcome reader_welcome(server& srv, journal& j, std::uint64_t end) {
    welcome w;
    w.server_name = "objwired";
    w.sink = j.describe();
    w.limits.max_frame_bytes = srv.settings().max_frame_bytes;
    const auto segments = j.segments();
    w.journal_first_offset = segments.empty() ? 0 : segments.front().first_offset;
    w.journal_end_offset = end;
    return w;
}

class reader_stream {
  public:
    reader_stream(server& srv, journal& j, transport& stream, const std::string& peer,
                  const hello& h)
        : srv_(srv),
          journal_(j),
          stream_(stream),
          peer_(peer),
          hello_(h),
          cursor_(j.options().dir, h.read_from),
          state_(std::make_shared<reader_state>(stream.get_executor())) {}

    asio::awaitable<void> run();

  private:
    enum class outcome { more, caught_up, failed };
    // Gathers the next frames into out_ (blocks below limit_, of the wanted sender).
    outcome gather();
    asio::awaitable<void> end_with_error(std::error_code code, std::string text);
    asio::awaitable<void> wait_for_more();
    std::uint64_t subscribe();

    server& srv_;
    std::uint64_t gathered_objects_ = 0;  // in out_, for the metrics (whole blocks)
    journal& journal_;
    transport& stream_;
    const std::string& peer_;
    const hello& hello_;
    journal_cursor cursor_;
    std::shared_ptr<reader_state> state_;
    byte_buffer out_;
    std::uint64_t limit_ = 0;  // serve blocks below this offset (durable)
    std::uint64_t sequence_ = 0;
    std::uint64_t blocks_ = 0;
    std::uint64_t bytes_ = 0;
    std::string failure_;  // why the stream ended early, for the error frame and the log
    std::error_code failure_code_;
};

std::uint64_t reader_stream::subscribe() {
    auto ex = stream_.get_executor();
    // Wakes only once per wait however many blocks became durable meanwhile.
    return journal_.subscribe([st = state_, ex](std::uint64_t) {
        if (st->pending.exchange(true)) return;
        asio::post(ex, [st] {
            st->pending = false;
            st->wake.cancel();
        });
    });
}

reader_stream::outcome reader_stream::gather() {
    journal_block_view view;
    std::span<const std::uint8_t> bytes;
    // Scanning past other senders' blocks counts too, so one call stays bounded.
    std::size_t scanned = 0;
    while (out_.size() < write_batch_bytes && scanned < 16 * write_batch_bytes) {
        switch (cursor_.next(limit_, view, bytes)) {
            case journal_cursor::status::caught_up:
                return outcome::caught_up;
            case journal_cursor::status::error:
                failure_code_ = proto_errc::not_available;
                failure_ = "the journal cannot be read: " + cursor_.error_detail();
                return outcome::failed;
            case journal_cursor::status::block:
                break;
        }
        scanned += bytes.size();
        if (!hello_.read_sender.empty() && view.sender_id != hello_.read_sender) continue;
        if (bytes.size() + frame_header_size > hello_.max_frame_bytes) {
            failure_code_ = proto_errc::frame_too_large;
            failure_ = "the stored block at offset " + std::to_string(view.header.first_offset) +
                       " takes a frame of " + std::to_string(bytes.size() + frame_header_size) +
                       " bytes, over the reader's max_frame_bytes " +
                       std::to_string(hello_.max_frame_bytes);
            return outcome::failed;
        }
        append_block_frame(out_, bytes, ++sequence_);
        gathered_objects_ += view.header.message_count;
        ++blocks_;
        bytes_ += bytes.size();
    }
    return outcome::more;
}

asio::awaitable<void> reader_stream::end_with_error(std::error_code code, std::string text) {
    spdlog::warn("{}: reader stopped: {}", peer_, text);
    co_await refuse_role(stream_, code, std::move(text));
}

asio::awaitable<void> reader_stream::wait_for_more() {
    state_->wake.expires_after(follow_poll);
    co_await state_->wake.async_wait(use_tuple);
}

asio::awaitable<void> reader_stream::run() {
    limit_ = journal_.durable_offset();
    byte_buffer hello_reply;
    {
        byte_buffer payload;
        encode_welcome(reader_welcome(srv_, journal_, limit_), payload);
        append_frame(hello_reply, frame_kind::welcome, 0, payload.span());
    }
    if (co_await write_bytes(stream_, hello_reply)) co_return;
    spdlog::info("{}: reader from offset {}{}{} (stored up to {})", peer_, hello_.read_from,
                 hello_.follow ? ", following" : "",
                 hello_.read_sender.empty() ? "" : ", sender '" + hello_.read_sender + "'", limit_);
    const std::uint64_t listener = hello_.follow ? subscribe() : 0;
    asio::co_spawn(stream_.get_executor(), watch_peer(stream_, state_), asio::detached);
    bool write_failed = false;
    for (;;) {
        out_.clear();
        const auto got = gather();
        if (!out_.empty() && co_await write_bytes(stream_, out_)) {
            write_failed = true;  // the peer is gone
            break;
        }
        srv_.metrics().bytes_out += out_.size();
        srv_.metrics().objects_out += std::exchange(gathered_objects_, 0);
        if (got == outcome::failed) {
            co_await end_with_error(failure_code_, failure_);
            break;
        }
        if (got == outcome::more) {
            if (srv_.stopping()) {
                co_await end_with_error(proto_errc::not_available, "objwired is shutting down");
                break;
            }
            // Only other senders' blocks this round: let the strand's other work run.
            if (out_.empty()) co_await asio::post(stream_.get_executor(), asio::use_awaitable);
            continue;
        }
        if (!hello_.follow) {
            byte_buffer bye;
            append_frame(bye, frame_kind::goodbye, 0, {});
            co_await write_bytes(stream_, bye);
            break;
        }
        if (state_->peer_done) break;
        if (srv_.stopping()) {
            co_await end_with_error(proto_errc::not_available, "objwired is shutting down");
            break;
        }
        const auto durable = journal_.durable_offset();
        if (durable > limit_) {
            limit_ = durable;
            continue;
        }
        co_await wait_for_more();
        if (state_->peer_done) break;
        limit_ = journal_.durable_offset();
    }
    if (listener) journal_.unsubscribe(listener);
    // The watcher must end before the connection does: its read is cancelled and awaited.
    if (!state_->watcher_done) {
        std::error_code ignored;
        stream_.socket().cancel(ignored);
        while (!state_->watcher_done) {
            state_->wake.expires_after(follow_poll);
            co_await state_->wake.async_wait(use_tuple);
        }
    }
    if (cursor_.skipped_by_retention())
        spdlog::warn("{}: reader skipped {} objects deleted by retention while it read", peer_,
                     cursor_.skipped_by_retention());
    spdlog::info("{}: reader done: {} blocks ({} bytes) served up to offset {}{}", peer_, blocks_,
                 bytes_, cursor_.next_offset(), write_failed ? " (the peer went away)" : "");
}

}  // namespace

asio::awaitable<void> serve_reader(server& srv, transport& stream, const std::string& peer,
                                   const hello& h) {
    auto* stored = dynamic_cast<journal_sink*>(&srv.sink());
    if (!stored) {
        spdlog::warn("{}: reader refused: the sink is {}", peer, srv.sink().describe());
        co_await refuse_role(stream, proto_errc::not_available,
                             "this daemon stores objects in " + srv.sink().describe() +
                                 ", which cannot be read back; reading needs sink.kind = "
                                 "\"journal\"");
        co_return;
    }
    reader_stream r(srv, stored->stored_journal(), stream, peer, h);
    co_await r.run();
}

}  // namespace objwire::daemon
