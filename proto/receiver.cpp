#include "proto/receiver.hpp"

#include <utility>

#include "proto/columns.hpp"
#include "proto/errors.hpp"
#include "proto/wire.hpp"

namespace objwire {

bool reads_back_alike(std::uint64_t budget, std::uint64_t stored_budget, std::uint64_t evictions) {
    return budget == stored_budget || (budget < stored_budget && evictions == 0);
}

receiver::receiver(options opts)
    : opts_(std::move(opts)),
      reader_(opts_.limits.max_frame_bytes, opts_.read_block),
      decoder_(opts_.limits) {
    opts_.codecs &= built_codecs();
    if (!opts_.clock) opts_.clock = &steady_now_ns;
    if (opts_.stored_table_budget == 0) opts_.stored_table_budget = opts_.limits.table_budget;
    // A frame decoded under a larger table than its reader's may use more than the reader has.
    if (opts_.limits.table_budget > opts_.stored_table_budget)
        opts_.fresh_frames = opts_.check_fresh_frames = false;
}

std::span<std::uint8_t> receiver::prepare() {
    if (opts_.pool && reader_.capacity() == 0) reader_.adopt(opts_.pool->take(opts_.read_block));
    return reader_.prepare();
}

bool receiver::park() {
    if (!opts_.pool || reader_.buffered() != 0) return false;
    opts_.pool->give(reader_.release());
    opts_.pool->give(std::move(raw_));
    raw_ = byte_buffer{};
    return true;
}

receiver::step receiver::fail(std::error_code ec, std::string_view detail) {
    state_ = state::failed;
    error_ = ec;
    detail_ = ec.message();
    if (!detail.empty()) detail_.append(": ").append(detail);
    scratch_.clear();
    encode_error({static_cast<std::uint32_t>(ec.value()), detail_}, scratch_);
    error_frame_.clear();
    append_frame(error_frame_, frame_kind::error, 0, scratch_.span());
    return step::close;
}

// The figures of a refused frame header: its size and the limit (the texts name objwired's
// key, the receiver's one user that configures it).
std::string receiver::frame_error(const frame_parser::result& r) const {
    if (r.error != proto_errc::frame_too_large) return {};
    const auto& h = r.frame.header;
    return "a frame of " + std::to_string(h.payload_len) + " bytes (" + std::to_string(h.raw_len) +
           " decompressed), over the maximum of " + std::to_string(opts_.limits.max_frame_bytes) +
           " bytes (limits.max_frame_bytes)";
}

// Where a data frame failed, and for a limit, the limit and the key that sets it.
std::string receiver::data_error(std::error_code ec, const frame_view& f) const {
    std::string text = "in frame " + std::to_string(f.header.sequence);
    const auto& l = opts_.limits;
    if (const auto limit = exceeded_limit(ec, l); !limit.empty())
        text += " (the limit: " + limit + ")";
    else if (ec == proto_errc::table_budget_exceeded)
        text += " (the limit: " + std::to_string(l.table_budget) +
                " bytes, this connection's share of limits.table_budget)";
    else if (ec == proto_errc::decompress_failed && opts_.max_decompression_ratio != 0 &&
             f.header.raw_len / opts_.max_decompression_ratio > f.payload.size())
        text += ": " + std::to_string(f.payload.size()) + " bytes claim to decompress to " +
                std::to_string(f.header.raw_len) + ", more than limits.max_decompression_ratio " +
                std::to_string(opts_.max_decompression_ratio) + " times their size";
    return text;
}

receiver::step receiver::process(const std::function<void(message&&)>& deliver) {
    return process(deliver, {});
}

receiver::step receiver::process(const std::function<void(message&&)>& deliver,
                                 const frame_handler& frame_done) {
    while (state_ == state::awaiting_hello || state_ == state::streaming) {
        auto r = reader_.next();
        if (r.state == frame_parser::status::need_more) return step::read;
        if (r.state == frame_parser::status::error) return fail(r.error, frame_error(r));
        if (auto s = on_frame(r.frame, deliver, frame_done); s != step::read) return s;
    }
    return state_ == state::admitting ? step::admit : step::close;
}

receiver::step receiver::on_frame(const frame_view& f,
                                  const std::function<void(message&&)>& deliver,
                                  const frame_handler& frame_done) {
    if (state_ == state::awaiting_hello) {
        if (f.header.kind != frame_kind::hello)
            return fail(proto_errc::unexpected_frame, "expected hello");
        return on_hello(f);
    }
    switch (f.header.kind) {
        case frame_kind::data:
            return on_data(f, deliver, frame_done);
        case frame_kind::mark:
            return on_mark(f);
        case frame_kind::goodbye:
            state_ = state::finished;
            return step::close;
        case frame_kind::error: {
            // Whatever the peer's code, for this side the stream failed with a message.
            state_ = state::failed;
            error_ = proto_errc::bad_message;
            detail_ = "peer reported: " + read_error_frame(f.payload).text;
            return step::close;
        }
        default:
            return fail(proto_errc::unexpected_frame);
    }
}

receiver::step receiver::on_hello(const frame_view& f) {
    auto h = decode_hello(f.payload);
    if (!h) return fail(h.error());
    hello_ = std::move(*h);
    hello_received_ = true;
    // A sender may ask for a smaller table than we allow, never a larger one.
    if (hello_.table_budget != 0) limit_table(hello_.table_budget);
    state_ = state::admitting;
    if (!opts_.admit_on_hello) return step::admit;
    admit();
    return step::read;
}

void receiver::limit_table(std::uint64_t bytes) {
    const bool before_welcome = state_ == state::awaiting_hello || state_ == state::admitting;
    if (!before_welcome || bytes >= opts_.limits.table_budget) return;
    opts_.limits.table_budget = bytes;
    decoder_ = stream_decoder(opts_.limits);
}

void receiver::admit(std::uint64_t last_sequence, const stream_welcome& stream) {
    if (state_ != state::admitting) return;
    last_sequence_ = acked_sequence_ = last_sequence;
    welcome w;
    w.server_name = opts_.server_name;
    w.limits = opts_.limits;
    w.codecs = opts_.codecs;
    w.sink = opts_.sink;
    w.next_sequence = last_sequence_ + 1;
    w.credit_bytes = announced_credit_ = opts_.credit_bytes;
    w.fresh_frames = opts_.fresh_frames;
    w.columns = true;  // every receiver of this version decodes them
    w.resume_token = stream.resume_token;
    w.stored_objects = stream.stored_objects;
    w.stored_digest = stream.stored_digest;
    scratch_.clear();
    encode_welcome(w, scratch_);
    append_frame(out_, frame_kind::welcome, 0, scratch_.span());
    state_ = state::streaming;
}

void receiver::refuse(std::error_code ec, std::string_view detail) {
    if (state_ == state::admitting) fail(ec, detail);
}

receiver::step receiver::on_mark(const frame_view& f) {
    if (f.header.sequence != last_sequence_ + 1)
        return fail(proto_errc::bad_sequence,
                    "mark for frame " + std::to_string(f.header.sequence) + ", expected " +
                        std::to_string(last_sequence_ + 1));
    auto m = decode_mark(f.payload);
    if (!m) return fail(m.error(), "in a mark frame");
    pending_digest_ = m->input_digest;
    return step::read;
}

receiver::step receiver::on_data(const frame_view& f, const std::function<void(message&&)>& deliver,
                                 const frame_handler& frame_done) {
    if (f.header.sequence != last_sequence_ + 1)
        return fail(proto_errc::bad_sequence, "expected " + std::to_string(last_sequence_ + 1) +
                                                  ", got " + std::to_string(f.header.sequence));
    std::span<const std::uint8_t> payload = f.payload;
    if (auto ec = unpack(f, payload)) return fail(ec, data_error(ec, f));
    frame_payload_ = payload;
    frame_wire_bytes_ = frame_header_size + f.payload.size();
    frame_digest_ = std::exchange(pending_digest_, 0);
    // A payload in column layout is never stored whole: a journal block holds one layout.
    frame_fresh_ = !has_columns(payload) &&
                   (decoder_.table_fresh() || (!payload.empty() && payload[0] == wire::tag_reset));
    frame_checked_ = false;
    std::uint64_t delivered = 0;
    std::error_code ec;
    if (frame_fresh_ && opts_.check_fresh_frames)
        ec = check_fresh(payload, deliver, delivered);
    else
        ec = decoder_.decode_payload(payload, [&](message&& m) {
            deliver(std::move(m));
            ++delivered;
        });
    if (ec) return fail(ec, data_error(ec, f));
    if (frame_done) frame_done(delivered);
    if (refused_)
        return fail(refused_,
                    "in frame " + std::to_string(f.header.sequence) + ": " + refused_detail_);
    messages_ += delivered;
    last_sequence_ = f.header.sequence;
    return step::read;
}

std::error_code receiver::check_fresh(std::span<const std::uint8_t> payload,
                                      const std::function<void(message&&)>& deliver,
                                      std::uint64_t& messages) {
    const std::uint64_t evictions = decoder_.table().evictions;
    // Stored whole: no message is needed.
    if (auto ec = decoder_.check_payload(payload, messages)) return ec;
    frame_checked_ = reads_back_alike(opts_.limits.table_budget, opts_.stored_table_budget,
                                      decoder_.table().evictions - evictions);
    if (frame_checked_) return {};
    messages = 0;
    return decoder_.decode_checked_again(payload, [&](message&& m) {
        deliver(std::move(m));
        ++messages;
    });
}

std::error_code receiver::unpack(const frame_view& f, std::span<const std::uint8_t>& payload) {
    if (f.header.codec == codec_id::none) return {};
    // Only what we announced: a codec we did not offer is refused before any work is done.
    if (!has_codec(opts_.codecs, f.header.codec)) return proto_errc::bad_codec;
    if (opts_.max_decompression_ratio != 0 &&
        f.header.raw_len / opts_.max_decompression_ratio > f.payload.size())
        return proto_errc::decompress_failed;
    if (opts_.pool && raw_.capacity() < f.header.raw_len) {
        opts_.pool->give(std::move(raw_));
        raw_ = opts_.pool->take(f.header.raw_len);
    }
    const std::uint64_t start = opts_.clock();
    // raw_len is capped by the frame parser (max_frame_bytes), and the decompressor never
    // writes past it.
    auto ec =
        decompressor_.decompress(f.header.codec, f.payload, f.header.raw_len, raw_, f.header.flags);
    decompress_ns_ += opts_.clock() - start;
    if (ec) return ec;
    decompressed_bytes_ += f.header.raw_len;
    ++compressed_frames_;
    compressed_bytes_ += f.payload.size();
    payload = raw_.span();
    return {};
}

void receiver::queue_ack() {
    // Only a change travels: a connection whose share stays put sends the acks it always did.
    const std::uint64_t credit = opts_.credit_bytes != announced_credit_ ? opts_.credit_bytes : 0;
    if (credit) announced_credit_ = credit;
    scratch_.clear();
    encode_ack({acked_sequence_, messages_, decoder_.table().bytes, decoder_.table().peak_bytes,
                decompressed_bytes_, decompress_ns_, credit},
               scratch_);
    append_frame(out_, frame_kind::ack, 0, scratch_.span());
}

void receiver::announce_credit() {
    if (state_ != state::streaming || last_sequence_ != acked_sequence_) return;
    if (opts_.credit_bytes != announced_credit_) queue_ack();
}

void receiver::acknowledge() {
    if (last_sequence_ != acked_sequence_) {
        acked_sequence_ = last_sequence_;
        queue_ack();
    }
    if (!error_frame_.empty()) {
        out_.append(error_frame_.span());
        error_frame_.clear();
    }
    if (state_ == state::finished && !goodbye_sent_) {
        append_frame(out_, frame_kind::goodbye, 0, {});
        goodbye_sent_ = true;
    }
}

void receiver::release_buffers() {
    (void)reader_.release();
    out_ = byte_buffer{};
    scratch_ = byte_buffer{};
    raw_ = byte_buffer{};
}

}  // namespace objwire
