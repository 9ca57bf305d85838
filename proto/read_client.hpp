// The reading end of a reader connection (docs/PROTOCOL.md 1.2) as a state machine with no
// I/O, the counterpart of read_server: it queues the hello, takes the daemon's bytes through
// prepare()/commit() and hands out one event per next() - the welcome, a stored block, a gap,
// the cursor or sender list, the end, or a failure with its reason. Every rule a reader relies on
// is checked here, so a broken or hostile daemon cannot make it hold more than one frame: the frame
// size (max_frame_bytes), block sequence numbers, each block whole and verified with at most
// max_block_objects objects, offsets that only grow, well-formed gaps, and the order of frames per
// state. The first violation fails the connection; nothing after it is read.
//
//   read_client c(opts);                 // the hello is in c.output()
//   write(c.output()); c.output().clear();
//   for (;;) switch (c.next()) {
//       case read_client::event::need_more: c.commit(read(c.prepare())); break;
//       case read_client::event::block: decode(c.block()); break;  // until the next next()
//       ...
//   }
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <system_error>

#include "proto/byte_buffer.hpp"
#include "proto/control.hpp"
#include "proto/frame_reader.hpp"
#include "proto/journal_block.hpp"

namespace objwire {

// Offsets a journal lost, [first, end), as a gap frame carries them.
struct read_gap {
    std::uint64_t first = 0;
    std::uint64_t end = 0;
    bool operator==(const read_gap&) const = default;
};

// A gap frame's payload: two u64 LE.
inline constexpr std::size_t read_gap_payload_size = 16;
void encode_read_gap(const read_gap& g, byte_buffer& out);
result<read_gap> decode_read_gap(std::span<const std::uint8_t> payload);

class read_client {
  public:
    struct options {
        hello greeting;  // sent as a reader's hello (role is set here)
        // The largest frame accepted, header included: one stored block. Also hello field 3,
        // so the daemon refuses a larger block with frame_too_large instead of sending it.
        std::uint32_t max_frame_bytes = 256u << 20;
        std::uint64_t max_block_objects = 16u << 20;
        std::size_t read_block = 256 * 1024;
        // A sender list (read_request::list_senders) may come in several frames: at most this
        // many payload bytes in all.
        std::size_t max_list_bytes = 64u << 20;
    };
    // stream_ended: a cursor reader's stream is complete (the daemon's goodbye); its last ack
    // and goodbye() are still due, and the daemon's second goodbye confirms them.
    enum class state {
        awaiting_welcome,
        awaiting_answer,
        streaming,
        stream_ended,
        closing,
        finished,
        failed
    };
    enum class event { need_more, welcome, block, gap, cursor_list, sender_list, end, failed };

    explicit read_client(options opts);

    std::span<std::uint8_t> prepare() { return frames_.prepare(); }
    void commit(std::size_t n) { frames_.commit(n); }
    // The next thing the daemon said; need_more when the bytes so far end inside a frame.
    // After `end` or `failed` it keeps returning that.
    event next();

    // After `welcome` (and for the rest of the connection).
    const welcome& peer() const { return welcome_; }
    // After `block`: the block, verified; its bytes stay valid until prepare() or next().
    const journal_block_view& block() const { return block_; }
    // After `gap`.
    const read_gap& gap() const { return gap_; }
    // After `cursor_list` (a read_request::list_cursors hello).
    const cursor_list& cursors() const { return cursors_; }
    // After `sender_list` (a read_request::list_senders hello): every sender id, ascending.
    const sender_list& senders() const { return senders_; }
    // The welcome said offsets count blocks (a NATS stream's sequences, already applied): the
    // offsets inside its blocks count one connection's objects and are not checked for order.
    bool offsets_are_blocks() const { return offsets_are_blocks_; }

    // A cursor reader's position: every object below next_offset is written out.
    void ack(std::uint64_t next_offset);
    // Ends the stream from this side: a goodbye, then blocks and gaps still in flight are
    // passed over until the daemon's goodbye (`end`, state finished).
    void goodbye();

    byte_buffer& output() { return out_; }
    state current() const { return state_; }
    // After `failed`: why. refused() when the daemon said so in an error frame (its code and
    // text), not when this end found the daemon's bytes wrong.
    std::error_code error() const { return error_; }
    const std::string& error_detail() const { return detail_; }
    bool refused() const { return refused_; }
    std::uint64_t wire_bytes_in() const { return wire_bytes_in_; }
    const options& settings() const { return opts_; }

  private:
    event on_frame(const frame_view& f);
    event on_welcome(const frame_view& f);
    event on_answer(const frame_view& f);
    event on_sender_list(const frame_view& f);
    event on_stream(const frame_view& f);
    // A journal_block frame (left unchecked by the frame reader): its checksum and its
    // block's in one pass, the block's parse kept for on_block. False: the frame's is wrong.
    bool check_block_frame(const frame_parser::result& r);
    event on_block(const frame_view& f);
    event on_gap(const frame_view& f);
    event on_error(const frame_view& f);
    event fail(std::error_code ec, std::string detail, bool refused = false);

    options opts_;
    frame_reader frames_;
    byte_buffer out_;
    state state_ = state::awaiting_welcome;
    welcome welcome_;
    journal_block_view block_;
    journal_block_parse block_parse_;  // of the last journal_block frame (check_block_frame)
    read_gap gap_;
    cursor_list cursors_;
    sender_list senders_;
    std::size_t list_bytes_ = 0;
    bool offsets_are_blocks_ = false;
    std::uint64_t next_sequence_ = 1;
    // Our goodbye went out before the stream's end (a cursor reader without follow): that end
    // still comes, then the daemon's answer.
    bool stream_end_due_ = false;
    std::uint64_t served_end_ = 0;  // the offset after the last block or gap
    std::uint64_t wire_bytes_in_ = 0;
    std::error_code error_;
    std::string detail_;
    bool refused_ = false;
};

}  // namespace objwire
