#include "proto/sender.hpp"

#include <cstring>

#include "proto/errors.hpp"

namespace objwire {
namespace {
const table_stats no_table;
}

sender::sender(options opts)
    : opts_(std::move(opts)),
      reader_(opts_.greeting.max_frame_bytes, opts_.read_block),
      compressor_(opts_.compression, opts_.clock) {
    encode_hello(opts_.greeting, scratch_);
    append_frame(out_, frame_kind::hello, 0, scratch_.span());
    sealed_ = out_.size();
    open_batch();
}

const table_stats& sender::table() const {
    return encoder_ ? encoder_->table() : no_table;
}

void sender::open_batch() {
    batch_start_ = out_.size();
    out_.prepare(frame_header_size);
    out_.commit(frame_header_size);
    open_messages_ = 0;
}

void sender::consume_output() {
    // Only the open batch is left; it moves to the front.
    out_.consume_front(sealed_);
    batch_start_ -= sealed_;
    sealed_ = 0;
}

std::error_code sender::fail(std::error_code ec, std::string detail) {
    if (state_ != state::failed) {
        state_ = state::failed;
        error_ = ec;
        detail_ = std::move(detail);
    }
    return ec;
}

std::error_code sender::add(const message& m) {
    if (state_ == state::failed) return error_;
    if (state_ != state::streaming) return proto_errc::unexpected_frame;
    const std::size_t before = out_.size();
    if (auto ec = encoder_->encode(m, out_)) return ec;  // rolled back, tables kept in step
    const std::size_t cap = welcome_.limits.max_frame_bytes;
    if (out_.size() - before > cap - 1) {  // leave room for a reset op in front of it
        out_.resize(before);
        encoder_->reset(out_);  // the receiver must forget what the dropped bytes inserted
        return proto_errc::message_too_large;
    }
    if (out_.size() - batch_start_ - frame_header_size > cap) {
        // The message goes to the next frame: seal what came before it.
        scratch_.clear();
        scratch_.append(out_.data() + before, out_.size() - before);
        out_.resize(before);
        seal();
        out_.append(scratch_.span());
    }
    ++open_messages_;
    ++messages_;
    if (open_batch_bytes() >= opts_.batch_max_bytes) seal();
    return {};
}

void sender::seal() {
    if (state_ != state::streaming || open_batch_bytes() == 0) return;
    const std::uint64_t seq = next_sequence_++;
    const auto packed = compressor_.pack(out_, batch_start_ + frame_header_size);
    std::span<std::uint8_t> frame = out_.span().subspan(batch_start_);
    seal_frame(frame, frame_kind::data, seq, packed.codec, packed.raw_len);
    in_flight_.push_back({seq, frame.size()});
    in_flight_bytes_ += frame.size();
    sealed_ = out_.size();
    open_batch();
}

void sender::finish() {
    if (state_ != state::streaming) return;
    seal();
    out_.resize(batch_start_);  // drop the empty open batch header
    append_frame(out_, frame_kind::goodbye, 0, {});
    sealed_ = out_.size();
    batch_start_ = out_.size();
    state_ = state::closing;
}

std::error_code sender::process() {
    for (;;) {
        if (state_ == state::failed) return error_;
        auto r = reader_.next();
        if (r.state == frame_parser::status::need_more) return {};
        if (r.state == frame_parser::status::error) return fail(r.error, "bad frame from peer");
        if (auto ec = on_frame(r.frame)) return ec;
    }
}

std::error_code sender::on_frame(const frame_view& f) {
    switch (f.header.kind) {
        case frame_kind::welcome: {
            if (state_ != state::greeting)
                return fail(proto_errc::unexpected_frame, "second welcome");
            auto w = decode_welcome(f.payload);
            if (!w) return fail(w.error(), "bad welcome");
            welcome_ = std::move(*w);
            compressor_.policy().set_accepted(welcome_.codecs);
            encoder_options eo = opts_.encoding;
            eo.peer = welcome_.limits;
            encoder_.emplace(std::move(eo));
            state_ = state::streaming;
            return {};
        }
        case frame_kind::ack: {
            auto a = decode_ack(f.payload);
            if (!a) return fail(a.error(), "bad ack");
            if (a->sequence >= next_sequence_)
                return fail(proto_errc::bad_sequence, "ack for a frame never sent");
            while (!in_flight_.empty() && in_flight_.front().sequence <= a->sequence) {
                in_flight_bytes_ -= in_flight_.front().bytes;
                in_flight_.pop_front();
            }
            last_ack_ = *a;
            compressor_.policy().on_receiver_report(a->decompressed_bytes, a->decompress_ns);
            return {};
        }
        case frame_kind::error: {
            auto e = decode_error(f.payload);
            if (!e) return fail(e.error(), "malformed error frame");
            std::error_code code(static_cast<int>(e->code), proto_category());
            return fail(code, "refused by peer: " + e->text);
        }
        case frame_kind::goodbye:
            if (state_ != state::closing)
                return fail(proto_errc::unexpected_frame, "goodbye before ours");
            state_ = state::closed;
            return {};
        default:
            return fail(proto_errc::unexpected_frame, "unexpected frame kind");
    }
}

}  // namespace objwire
