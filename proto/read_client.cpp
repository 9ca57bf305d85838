#include "proto/read_client.hpp"

#include <algorithm>
#include <utility>

#include "proto/errors.hpp"
#include "proto/frame.hpp"
#include "proto/wire.hpp"

namespace objwire {

void encode_read_gap(const read_gap& g, byte_buffer& out) {
    std::uint8_t payload[read_gap_payload_size];
    store_le<std::uint64_t>(payload, g.first);
    store_le<std::uint64_t>(payload + 8, g.end);
    out.append(payload);
}

result<read_gap> decode_read_gap(std::span<const std::uint8_t> payload) {
    if (payload.size() != read_gap_payload_size) return proto_errc::bad_message;
    read_gap g{load_le<std::uint64_t>(payload.data()), load_le<std::uint64_t>(payload.data() + 8)};
    if (g.first >= g.end) return proto_errc::bad_message;
    return g;
}

read_client::read_client(options opts)
    : opts_(std::move(opts)), frames_(opts_.max_frame_bytes, opts_.read_block) {
    opts_.greeting.role = peer_role::reader;
    opts_.greeting.max_frame_bytes = opts_.max_frame_bytes;
    // A block frame's checksum is checked with the block's own, in one pass (on_block).
    frames_.check_payload_later(frame_kind::journal_block);
    if (opts_.greeting.request != read_request::none) state_ = state::awaiting_answer;
    byte_buffer payload;
    encode_hello(opts_.greeting, payload);
    append_frame(out_, frame_kind::hello, 0, payload.span());
}

read_client::event read_client::next() {
    for (;;) {
        if (state_ == state::finished) return event::end;
        if (state_ == state::failed) return event::failed;
        auto r = frames_.next();
        if (r.state == frame_parser::status::need_more) return event::need_more;
        if (r.state == frame_parser::status::error && r.error == proto_errc::frame_too_large)
            return fail(r.error, "a frame from the daemon is larger than this reader accepts (" +
                                     std::to_string(opts_.max_frame_bytes) +
                                     " bytes with its header: read.max_block_bytes)");
        if (r.state == frame_parser::status::error)
            return fail(r.error, "bad frame from the daemon: " + r.error.message());
        if (!r.checked && !check_block_frame(r))
            return fail(proto_errc::bad_checksum,
                        "bad frame from the daemon: " +
                            std::error_code(proto_errc::bad_checksum).message());
        wire_bytes_in_ += r.size;
        const auto e = on_frame(r.frame);
        // Frames in flight after our goodbye are passed over, and so is each part of a sender
        // list before its goodbye (on_frame says need_more: the frame completed nothing).
        if (state_ == state::closing && (e == event::block || e == event::gap)) continue;
        if (e == event::need_more) continue;
        return e;
    }
}

bool read_client::check_block_frame(const frame_parser::result& r) {
    auto checked = parse_journal_block_frame(r.frame.payload, r.head_sum, r.frame.header.crc);
    block_parse_ = checked.block;
    return checked.frame_ok;
}

read_client::event read_client::on_frame(const frame_view& f) {
    if (f.header.kind == frame_kind::error) return on_error(f);
    switch (state_) {
        case state::awaiting_welcome:
            return on_welcome(f);
        case state::awaiting_answer:
            return on_answer(f);
        default:
            return on_stream(f);
    }
}

read_client::event read_client::on_welcome(const frame_view& f) {
    if (f.header.kind != frame_kind::welcome)
        return fail(proto_errc::unexpected_frame,
                    "the daemon did not answer the hello with a welcome");
    auto w = decode_welcome(f.payload);
    if (!w) return fail(w.error(), "bad welcome: " + std::error_code(w.error()).message());
    welcome_ = std::move(*w);
    offsets_are_blocks_ = welcome_.read_offsets == offset_unit::block;
    state_ = state::streaming;
    return event::welcome;
}

read_client::event read_client::on_answer(const frame_view& f) {
    const auto asked = opts_.greeting.request;
    if (asked == read_request::list_cursors && f.header.kind == frame_kind::cursor_list) {
        auto l = decode_cursor_list(f.payload);
        if (!l) return fail(l.error(), "bad cursor list: " + std::error_code(l.error()).message());
        cursors_ = std::move(*l);
        state_ = state::finished;
        return event::cursor_list;
    }
    const bool senders = asked == read_request::list_senders;
    if (senders && f.header.kind == frame_kind::sender_list) return on_sender_list(f);
    if (f.header.kind == frame_kind::goodbye) {
        state_ = state::finished;
        return senders ? event::sender_list : event::end;
    }
    return fail(proto_errc::unexpected_frame,
                senders ? "the daemon did not answer the sender list request"
                        : "the daemon did not answer the cursor request");
}

// A part of the list: entries appended, ids ascending across all parts (so none twice).
read_client::event read_client::on_sender_list(const frame_view& f) {
    list_bytes_ += f.payload.size();
    if (list_bytes_ > opts_.max_list_bytes)
        return fail(proto_errc::frame_too_large,
                    "the daemon's sender list is larger than this reader accepts (" +
                        std::to_string(opts_.max_list_bytes) + " bytes)");
    const std::size_t before = senders_.senders.size();
    if (auto e = decode_sender_list(f.payload, senders_); e != proto_errc::ok)
        return fail(e, "bad sender list: " + std::error_code(e).message());
    for (std::size_t i = std::max<std::size_t>(before, 1); i < senders_.senders.size(); ++i)
        if (!(senders_.senders[i - 1].id < senders_.senders[i].id))
            return fail(proto_errc::bad_message,
                        "bad sender list: the ids are not in ascending order");
    return event::need_more;
}

read_client::event read_client::on_stream(const frame_view& f) {
    if (state_ == state::stream_ended && f.header.kind != frame_kind::goodbye)
        return fail(proto_errc::unexpected_frame, "the daemon sent a frame after the stream's end");
    switch (f.header.kind) {
        case frame_kind::journal_block:
            return on_block(f);
        case frame_kind::gap:
            return on_gap(f);
        case frame_kind::goodbye:
            // Our goodbye crossed the stream's end: the daemon's answer is the next goodbye.
            if (state_ == state::closing && std::exchange(stream_end_due_, false))
                return event::need_more;
            // A cursor reader's stream ends twice: here, then after its last ack.
            state_ = state_ == state::streaming && !opts_.greeting.read_cursor.empty()
                         ? state::stream_ended
                         : state::finished;
            return event::end;
        default:
            return fail(proto_errc::unexpected_frame,
                        "unexpected frame kind " + std::to_string(static_cast<int>(f.header.kind)) +
                            " from the daemon");
    }
}

read_client::event read_client::on_block(const frame_view& f) {
    if (f.header.sequence != next_sequence_)
        return fail(proto_errc::bad_sequence, "block frame " + std::to_string(f.header.sequence) +
                                                  " where " + std::to_string(next_sequence_) +
                                                  " was due");
    ++next_sequence_;
    // Checked with the frame's checksum (check_block_frame).
    const auto& parsed = block_parse_;
    if (parsed.state != journal_block_parse::status::block || parsed.size != f.payload.size())
        return fail(parsed.error ? parsed.error : std::error_code(proto_errc::trailing_bytes),
                    "bad stored block in frame " + std::to_string(f.header.sequence) + ": " +
                        (parsed.error ? parsed.error.message() : "bytes after the block"));
    const auto& b = parsed.block;
    if (b.header.message_count > opts_.max_block_objects)
        return fail(proto_errc::too_many_elements,
                    "the stored block at offset " + std::to_string(b.header.first_offset) +
                        " announces " + std::to_string(b.header.message_count) +
                        " objects, more than this reader accepts (" +
                        std::to_string(opts_.max_block_objects) + ", read.max_block_objects)");
    // Journal offsets only grow: a block that goes back would hand out offsets twice, and a
    // reader resuming after them would skip objects.
    if (!offsets_are_blocks_ && b.header.first_offset < served_end_)
        return fail(proto_errc::bad_message,
                    "the daemon served offsets going backwards: a block at offset " +
                        std::to_string(b.header.first_offset) + " after offsets up to " +
                        std::to_string(served_end_ - 1));
    served_end_ = b.end_offset();
    block_ = b;
    return event::block;
}

read_client::event read_client::on_gap(const frame_view& f) {
    auto g = decode_read_gap(f.payload);
    if (!g) return fail(proto_errc::bad_message, "malformed gap frame from the daemon");
    // A gap moves the stream forward like a block (the daemon never serves a range twice).
    if (!offsets_are_blocks_ && g->first < served_end_)
        return fail(proto_errc::bad_message,
                    "the daemon served offsets going backwards: a gap from offset " +
                        std::to_string(g->first) + " after offsets up to " +
                        std::to_string(served_end_ - 1));
    served_end_ = g->end;
    gap_ = *g;
    return event::gap;
}

read_client::event read_client::on_error(const frame_view& f) {
    auto e = read_error_frame(f.payload);
    if (!e.well_formed) return fail(e.code, e.text + " from the daemon");
    std::string text = std::move(e.text);
    if (state_ != state::awaiting_welcome && state_ != state::awaiting_answer) {
        text = "the daemon ended the stream: " + text;
        if (e.code == proto_errc::frame_too_large)
            text += " (this reader accepts " + std::to_string(opts_.max_frame_bytes) +
                    " bytes with the frame header: read.max_block_bytes)";
    } else if (state_ == state::awaiting_welcome) {
        text = "refused: " + text;
    }
    return fail(e.code, std::move(text), true);
}

read_client::event read_client::fail(std::error_code ec, std::string detail, bool refused) {
    if (state_ != state::failed) {
        error_ = ec;
        detail_ = std::move(detail);
        refused_ = refused;
        state_ = state::failed;
    }
    return event::failed;
}

void read_client::ack(std::uint64_t next_offset) {
    if (state_ != state::streaming && state_ != state::stream_ended) return;
    byte_buffer payload;
    encode_read_ack({next_offset}, payload);
    append_frame(out_, frame_kind::ack, 0, payload.span());
}

void read_client::goodbye() {
    if (state_ != state::streaming && state_ != state::stream_ended) return;
    append_frame(out_, frame_kind::goodbye, 0, {});
    // A cursor reader without follow hears the stream's end before the daemon's answer.
    stream_end_due_ =
        state_ == state::streaming && !opts_.greeting.read_cursor.empty() && !opts_.greeting.follow;
    state_ = state::closing;
}

}  // namespace objwire
