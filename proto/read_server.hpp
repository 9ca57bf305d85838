// The daemon's end of a reader connection (docs/PROTOCOL.md 1.2) after its hello, as a state
// machine with no I/O, the counterpart of read_client. The driver asks for the frames -
// welcome(), add_block(), add_gap(), end_stream(), fail() - and writes output(); the rules of
// what goes out are here: blocks numbered from 1, only the wanted sender's, none larger than
// the reader accepts (hello field 3: frame_too_large ends the stream after the blocks before
// it), one goodbye or error frame at the end and nothing after it. What the reader sends back
// comes in through prepare()/commit() and next_from_peer(): a cursor reader's acks (none past
// the durable end) and goodbye; anything else, or a frame over max_peer_frame, is a violation
// that ends the connection.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>

#include "proto/byte_buffer.hpp"
#include "proto/control.hpp"
#include "proto/frame.hpp"
#include "proto/frame_reader.hpp"
#include "proto/journal_block.hpp"
#include "proto/read_client.hpp"

namespace objwire {

class read_server {
  public:
    // A reader sends only acks and a goodbye: a few dozen bytes each.
    static constexpr std::uint32_t max_peer_frame = 4096;

    // stream_ended: the goodbye after the last block went out; a cursor reader's last ack
    // and goodbye are still due (confirm_goodbye() answers them).
    enum class state { welcoming, streaming, stream_ended, closed, failed };
    enum class block_verdict { queued, other_sender, too_large };
    enum class peer_event { need_more, ack, goodbye, violation };

    explicit read_server(hello h);

    void welcome(const objwire::welcome& w);
    // Narrows what the reader sees beyond its hello (the daemon: its user's read permission):
    // blocks of senders `may_see` refuses are passed over, and gaps - which may be any
    // sender's - are left out unless `sees_gaps` says yes. Both are asked at each block or gap.
    void restrict(std::function<bool(std::string_view)> may_see, std::function<bool()> sees_gaps) {
        may_see_ = std::move(may_see);
        sees_gaps_ = std::move(sees_gaps);
    }
    // Whether the reader wants a block of this sender (the hello may name one).
    bool wanted(std::string_view sender) const {
        return (hello_.read_sender.empty() || sender == hello_.read_sender) &&
               (!may_see_ || may_see_(sender));
    }
    // Whether it sees every sender's blocks (but for the hello's choice).
    bool unrestricted() const { return !may_see_ || (sees_gaps_ && sees_gaps_()); }
    // Queues a stored block of `objects` objects as the next journal_block frame, unless it
    // is too large for the reader: then the error frame is queued, naming the block by
    // `where` ("offset 5", "stream sequence 5").
    block_verdict add_block(std::span<const std::uint8_t> bytes, std::uint64_t objects,
                            const std::string& where);
    // A journal's block: another sender's is passed over.
    block_verdict add_block(const journal_block_view& view, std::span<const std::uint8_t> bytes) {
        if (!wanted(view.sender_id)) return block_verdict::other_sender;
        if (too_large(bytes.size()))
            return refuse_too_large(bytes.size(),
                                    "offset " + std::to_string(view.header.first_offset));
        return add_block(bytes, view.header.message_count, {});
    }
    // As add_block for a journal's block whose bytes go out from the caller's buffer (a
    // gathered write, the same bytes for many readers): only the frame's header is made, into
    // `header`, which the caller sends right before the block's bytes; nothing is queued but
    // a too_large block's error frame. `sum` is sum_payload() of the block's bytes. After the
    // stream's end it is other_sender: nothing goes out.
    block_verdict add_block_header(const journal_block_view& view, const payload_sum& sum,
                                   std::span<std::uint8_t, frame_header_size> header);
    void add_gap(const read_gap& g);
    // Everything asked for was served: the goodbye.
    void end_stream();
    // A cursor reader's goodbye after its last ack, which is stored: our goodbye (without
    // follow, after the stream's end when that has not gone out yet).
    void confirm_goodbye();
    // The stream ends early: an error frame with the reason (nothing if it already ended).
    // Its text, as error frames say it: the code's message, then `text`.
    void fail(std::error_code ec, const std::string& text);
    // After fail() or a too_large block: the reason, as fail() was given it.
    const std::string& failure() const { return failure_; }

    byte_buffer& output() { return out_; }
    state current() const { return state_; }
    const hello& peer() const { return hello_; }
    bool cursor_reader() const { return !hello_.read_cursor.empty(); }
    std::uint64_t blocks() const { return sequence_; }
    std::uint64_t block_bytes() const { return block_bytes_; }
    std::uint64_t block_objects() const { return block_objects_; }

    // The reader's bytes.
    std::span<std::uint8_t> prepare() { return frames_.prepare(); }
    void commit(std::size_t n) { frames_.commit(n); }
    // Acks beyond this offset are violations: a cursor cannot move past what is stored.
    void set_durable_end(std::uint64_t end) { durable_end_ = end; }
    peer_event next_from_peer();
    // After peer_event::ack.
    std::uint64_t acked() const { return acked_; }
    // After peer_event::violation: what the reader sent wrong.
    const std::string& violation() const { return violation_; }

  private:
    bool too_large(std::size_t payload) const {
        return payload + frame_header_size > hello_.max_frame_bytes;
    }
    // The error frame for a block of `payload` bytes over the reader's max_frame_bytes.
    block_verdict refuse_too_large(std::size_t payload, const std::string& where);
    // A block frame of `bytes` and `objects` went out (or is about to): numbered and counted.
    std::uint64_t count_block(std::size_t bytes, std::uint64_t objects);
    peer_event violate(std::string why);
    bool open() const { return state_ == state::streaming; }

    hello hello_;
    std::function<bool(std::string_view)> may_see_;
    std::function<bool()> sees_gaps_;
    frame_reader frames_;
    byte_buffer out_;
    state state_ = state::welcoming;
    std::uint64_t sequence_ = 0;  // of the last block frame
    std::uint64_t block_bytes_ = 0;
    std::uint64_t block_objects_ = 0;
    std::uint64_t durable_end_ = 0;
    std::uint64_t acked_ = 0;
    bool peer_said_goodbye_ = false;
    std::string violation_;
    std::string failure_;
};

}  // namespace objwire
