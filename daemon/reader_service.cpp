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
#include "daemon/nats_reader.hpp"
#include "daemon/nats_sink.hpp"
#include "daemon/reader_support.hpp"
#include "daemon/roles.hpp"
#include "daemon/server.hpp"
#include "proto/errors.hpp"
#include "proto/frame.hpp"

namespace objwire::daemon {
namespace {

using namespace reader_support;

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

class reader_stream : reader_base {
  public:
    reader_stream(server& srv, journal& j, transport& stream, const std::string& peer,
                  const hello& h)
        : reader_base(srv, stream, peer, h), journal_(j), cursor_(j.options().dir, h.read_from) {}

    asio::awaitable<void> run();

  private:
    enum class outcome { more, caught_up, failed };
    // Gathers the next frames into out_ (blocks below limit_, of the wanted sender).
    outcome gather();
    asio::awaitable<void> wait_for_more();
    std::uint64_t subscribe();

    std::uint64_t gathered_objects_ = 0;  // in out_, for the metrics (whole blocks)
    journal& journal_;
    journal_cursor cursor_;
    std::uint64_t limit_ = 0;  // serve blocks below this offset (durable)
};

std::uint64_t reader_stream::subscribe() {
    auto ex = stream_.get_executor();
    // Wakes only once per wait however many blocks became durable meanwhile.
    return journal_.subscribe([wake = waker(state_, ex)](std::uint64_t) { wake(); });
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
            case journal_cursor::status::gap: {
                // The reader learns what is lost and reads on after it.
                const auto g = cursor_.gap();
                journal_.note_gap(g, cursor_.gap_detail());
                std::uint8_t payload[16];
                store_le<std::uint64_t>(payload, g.first);
                store_le<std::uint64_t>(payload + 8, g.end);
                append_frame(out_, frame_kind::gap, 0, payload);
                ++srv_.metrics().journal_gaps_served;
                continue;
            }
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
            co_await end_reader(stream_, peer_, failure_code_, failure_);
            break;
        }
        if (got == outcome::more) {
            if (srv_.stopping()) {
                co_await end_reader_stopping(stream_, peer_);
                break;
            }
            // Only other senders' blocks this round: let the strand's other work run.
            if (out_.empty()) co_await asio::post(stream_.get_executor(), asio::use_awaitable);
            continue;
        }
        if (!hello_.follow) {
            co_await send_goodbye(stream_);
            break;
        }
        if (co_await should_end()) break;
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
    co_await stop_watching(stream_, *state_);
    if (cursor_.skipped_by_retention())
        spdlog::warn("{}: reader skipped {} objects deleted by retention while it read", peer_,
                     cursor_.skipped_by_retention());
    spdlog::info("{}: reader done: {} blocks ({} bytes) served up to offset {}{}", peer_, blocks_,
                 bytes_, cursor_.next_offset(), write_failed ? " (the peer went away)" : "");
}

}  // namespace

asio::awaitable<void> serve_reader(server& srv, transport& stream, const std::string& peer,
                                   const hello& h) {
    if (auto* stream_sink = dynamic_cast<nats_sink*>(&srv.sink())) {
        co_await serve_stream_reader(srv, *stream_sink, stream, peer, h);
        co_return;
    }
    auto* stored = dynamic_cast<journal_sink*>(&srv.sink());
    if (!stored) {
        spdlog::warn("{}: reader refused: the sink is {}", peer, srv.sink().describe());
        co_await refuse_role(stream, proto_errc::not_available,
                             "this daemon stores objects in " + srv.sink().describe() +
                                 ", which cannot be read back; reading needs sink.kind = "
                                 "\"journal\" or \"nats\"");
        co_return;
    }
    reader_stream r(srv, stored->stored_journal(), stream, peer, h);
    co_await r.run();
}

}  // namespace objwire::daemon
