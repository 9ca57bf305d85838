// The reader role served from a NATS JetStream stream (daemon/roles/nats_reader.hpp): the same
// exchange as from the journal (docs/PROTOCOL.md "Reading back") - a welcome whose offsets are
// stream sequences, journal_block frames numbered 1, 2, 3 carrying each block exactly as it
// was published, a goodbye at the end of what the stream held when the reader connected, or
// with follow, new blocks as they are stored, by whichever objwired published them.
//
// Memory per reader is bounded: the source's queue (1 MiB or one block) and one batch of
// frames, written while the peer takes bytes (a peer that takes none for limits.idle_timeout
// while the batch waits is closed: daemon/roles/slow_consumer.hpp); no batch while it waits
// for new blocks.
#include <spdlog/spdlog.h>

#include "daemon/roles/nats_reader.hpp"
#include "daemon/roles/reader_support.hpp"
#include "daemon/serve/blocking_call.hpp"
#include "daemon/serve/log_text.hpp"
#include "daemon/serve/roles.hpp"
#include "daemon/serve/server.hpp"
#include "proto/errors.hpp"
#include "proto/frame.hpp"

namespace objwire::daemon {
namespace {

using namespace reader_support;

class stream_reader : reader_base {
  public:
    stream_reader(server& srv, nats_sink& sink, peer_stream& stream, const std::string& peer,
                  const hello& h)
        : reader_base(srv, stream, peer, h), sink_(sink) {}

    asio::awaitable<void> run();

  private:
    // Frames for the blocks `source_` has queued; false when the stream ends or fails.
    bool gather(nats_block_source::status& got);
    welcome make_welcome() const {
        welcome w;
        w.server_name = "objwired";
        w.sink = sink_.describe();
        w.limits.max_frame_bytes = srv_.settings().max_frame_bytes;
        w.journal_first_offset = source_->first_sequence();
        w.journal_end_offset = source_->end_sequence();
        w.read_offsets = offset_unit::block;
        return w;
    }

    nats_sink& sink_;
    std::unique_ptr<nats_block_source> source_;
    std::vector<ordered_block> taken_;
    std::uint64_t last_stream_sequence_ = 0;
};

bool stream_reader::gather(nats_block_source::status& got) {
    taken_.clear();
    got = source_->take(taken_, write_batch_bytes);
    for (const auto& b : taken_) {
        const auto where = "stream sequence " + std::to_string(b.stream_sequence);
        make_room(b.bytes.size() + frame_header_size);
        if (core_.add_block(b.bytes, b.objects, where) == read_server::block_verdict::too_large) {
            failure_code_ = proto_errc::frame_too_large;
            failure_ = core_.failure();
            return false;
        }
        last_stream_sequence_ = b.stream_sequence;
    }
    if (got == nats_block_source::status::failed) {
        failure_code_ = proto_errc::not_available;
        failure_ = source_->error();
        return false;
    }
    return got != nats_block_source::status::finished;
}

asio::awaitable<void> stream_reader::run() {
    // Connecting and the first requests block (for seconds while a leader is elected): on
    // their own thread, so other connections go on meanwhile.
    std::string error;
    // Named, not a temporary in the co_await: GCC 12 destroys such a temporary twice.
    auto open = [&] {
        return nats_block_source::open(sink_.options(),
                                       {hello_.read_from, hello_.follow, hello_.read_sender},
                                       waker(state_, stream_.get_executor()), error);
    };
    source_ = co_await blocking_call(stream_.get_executor(), std::move(open));
    if (!source_) {
        co_await end_with(proto_errc::not_available, "the stream cannot be read now: " + error);
        co_return;
    }
    core_.welcome(make_welcome());
    if (co_await flush() != write_result::written) co_return;
    spdlog::info(
        "{}: reader of {} from stream sequence {}{}{} (stored up to {})", peer_, sink_.describe(),
        hello_.read_from, hello_.follow ? ", following" : "",
        hello_.read_sender.empty() ? "" : ", sender '" + log_text(hello_.read_sender) + "'",
        source_->end_sequence() - 1);
    asio::co_spawn(stream_.get_executor(), watch_peer(stream_, state_, core_, peer_),
                   asio::detached);
    bool write_failed = false;
    for (;;) {
        nats_block_source::status got{};
        const bool more = gather(got);
        srv_.metrics().objects_out += objects_since_last();
        if (co_await flush() != write_result::written) {
            write_failed = true;  // the peer is gone, or it was too slow
            break;
        }
        if (!more && !failure_.empty()) {
            co_await end_with(failure_code_, failure_);
            break;
        }
        if (!more) {
            co_await end_stream();
            break;
        }
        if (co_await should_end()) break;
        if (got == nats_block_source::status::empty) {
            release_batch();
            state_->wake.expires_after(follow_poll);
            co_await state_->wake.async_wait(use_tuple);
        }
    }
    co_await stop_watching(stream_, *state_);
    source_.reset();  // stops the consumer's thread and deletes the consumer
    spdlog::info("{}: reader done: {} blocks ({} bytes) served up to stream sequence {}{}", peer_,
                 core_.blocks(), core_.block_bytes(), last_stream_sequence_,
                 slow_closed_   ? " (closed: a slow consumer)"
                 : write_failed ? " (the peer went away)"
                                : "");
}

}  // namespace

asio::awaitable<void> serve_stream_reader(server& srv, nats_sink& sink, peer_stream& stream,
                                          const std::string& peer, const hello& h) {
    stream_reader r(srv, sink, stream, peer, h);
    co_await r.run();
}

}  // namespace objwire::daemon
