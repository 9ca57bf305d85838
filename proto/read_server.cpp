#include "proto/read_server.hpp"

#include "proto/errors.hpp"
#include "proto/frame.hpp"

namespace objwire {

read_server::read_server(hello h) : hello_(std::move(h)), frames_(max_peer_frame, 256) {}

void read_server::welcome(const objwire::welcome& w) {
    if (state_ != state::welcoming) return;
    byte_buffer payload;
    encode_welcome(w, payload);
    append_frame(out_, frame_kind::welcome, 0, payload.span());
    state_ = state::streaming;
}

read_server::block_verdict read_server::refuse_too_large(std::size_t payload,
                                                         const std::string& where) {
    fail(proto_errc::frame_too_large, "the stored block at " + where + " takes a frame of " +
                                          std::to_string(payload + frame_header_size) +
                                          " bytes, over the reader's max_frame_bytes " +
                                          std::to_string(hello_.max_frame_bytes));
    return block_verdict::too_large;
}

std::uint64_t read_server::count_block(std::size_t bytes, std::uint64_t objects) {
    block_bytes_ += bytes;
    block_objects_ += objects;
    return ++sequence_;
}

read_server::block_verdict read_server::add_block(std::span<const std::uint8_t> bytes,
                                                  std::uint64_t objects, const std::string& where) {
    if (too_large(bytes.size())) return refuse_too_large(bytes.size(), where);
    if (!open()) return block_verdict::queued;  // after the end nothing goes out
    append_frame(out_, frame_kind::journal_block, count_block(bytes.size(), objects), bytes);
    return block_verdict::queued;
}

read_server::block_verdict read_server::add_block_header(
    const journal_block_view& view, const payload_sum& sum,
    std::span<std::uint8_t, frame_header_size> header) {
    if (!wanted(view.sender_id)) return block_verdict::other_sender;
    if (too_large(sum.size))
        return refuse_too_large(sum.size, "offset " + std::to_string(view.header.first_offset));
    if (!open()) return block_verdict::other_sender;  // after the end nothing goes out
    seal_frame_header(header, frame_kind::journal_block,
                      count_block(sum.size, view.header.message_count), sum);
    return block_verdict::queued;
}

void read_server::add_gap(const read_gap& g) {
    if (!open() || (sees_gaps_ && !sees_gaps_())) return;
    byte_buffer payload;
    encode_read_gap(g, payload);
    append_frame(out_, frame_kind::gap, 0, payload.span());
}

void read_server::end_stream() {
    if (!open()) return;
    append_frame(out_, frame_kind::goodbye, 0, {});
    state_ = cursor_reader() ? state::stream_ended : state::closed;
}

void read_server::confirm_goodbye() {
    if (!cursor_reader() || !peer_said_goodbye_ ||
        (state_ != state::streaming && state_ != state::stream_ended))
        return;
    // A cursor reader without follow always hears the stream's end before this answer, even
    // when its goodbye came first: the second goodbye is the one that says the name is free.
    if (state_ == state::streaming && !hello_.follow)
        append_frame(out_, frame_kind::goodbye, 0, {});
    append_frame(out_, frame_kind::goodbye, 0, {});
    state_ = state::closed;
}

void read_server::fail(std::error_code ec, const std::string& text) {
    if (state_ == state::closed || state_ == state::failed) return;
    failure_ = text;
    byte_buffer payload;
    encode_error({static_cast<std::uint32_t>(ec.value()), ec.message() + ": " + text}, payload);
    append_frame(out_, frame_kind::error, 0, payload.span());
    state_ = state::failed;
}

read_server::peer_event read_server::violate(std::string why) {
    if (violation_.empty()) violation_ = std::move(why);
    return peer_event::violation;
}

read_server::peer_event read_server::next_from_peer() {
    if (!violation_.empty()) return peer_event::violation;
    if (peer_said_goodbye_) return peer_event::need_more;  // nothing may follow; not read
    auto r = frames_.next();
    if (r.state == frame_parser::status::need_more) return peer_event::need_more;
    if (r.state == frame_parser::status::error)
        return violate("a bad frame (" + r.error.message() + ")");
    const auto& f = r.frame;
    if (f.header.kind == frame_kind::goodbye) {
        peer_said_goodbye_ = true;
        return peer_event::goodbye;
    }
    if (f.header.kind != frame_kind::ack || !cursor_reader())
        return violate("an unexpected frame of kind " +
                       std::to_string(static_cast<int>(f.header.kind)));
    auto a = decode_read_ack(f.payload);
    if (!a) return violate("a malformed ack");
    if (a->next_offset > durable_end_)
        return violate("an ack at offset " + std::to_string(a->next_offset) +
                       ", past the durable end " + std::to_string(durable_end_));
    acked_ = a->next_offset;
    return peer_event::ack;
}

}  // namespace objwire
