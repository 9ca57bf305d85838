#include "proto/sender.hpp"

#include <type_traits>

#include <cstring>
#include <limits>

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
    push_sealed(out_.size(), false);
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
    open_reference_bytes_ = 0;
    columns_.clear();
}

std::uint64_t sender::window_bytes() const {
    const std::uint64_t credit = credit_bytes_;  // 0: the receiver announced none
    if (credit == 0) return opts_.max_in_flight;
    if (opts_.max_in_flight == 0) return credit;
    return std::min(credit, opts_.max_in_flight);
}

void sender::consume_output() {
    // The frames still queued (and the open batch) move to the front.
    out_.consume_front(released_);
    batch_start_ -= released_;
    sealed_ -= released_;
    released_ = 0;
    peak_unacked_bytes_ = std::max(peak_unacked_bytes_, unacked_bytes());
}

void sender::push_sealed(std::size_t bytes, bool data) {
    queued_.push_back({bytes, data});
    if (data) queued_data_bytes_ += bytes;
    sealed_ += bytes;
    release();
}

// Control frames go whenever everything before them went. A data frame goes when what is
// written (or offered) and unacknowledged leaves room for it in the window, or when nothing
// is: a frame larger than the window then travels alone.
void sender::release() {
    const std::uint64_t window = window_bytes();
    while (!queued_.empty()) {
        const queued_frame f = queued_.front();
        if (f.data) {
            const std::uint64_t committed = unacked_bytes();
            if (window != 0 && committed > 0 && committed + f.bytes > window) return;
            queued_data_bytes_ -= f.bytes;
        }
        released_ += f.bytes;
        queued_.pop_front();
    }
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
    return add_source(m);
}

std::error_code sender::add(const typed_source& m) {
    return add_source(m);
}

template <class Source>
std::error_code sender::add_source(const Source& m) {
    if (state_ == state::failed) return error_;
    if (state_ != state::streaming) return proto_errc::unexpected_frame;
    // The input digest covers messages; a typed source is digested as the message it writes
    // only by the client's typed layer, so here it leaves the digest as it was.
    if constexpr (std::is_same_v<Source, message>) {
        if (opts_.input_digests)
            adding_digest_ = chain_input_digest(input_digest_, object_digest(m));
    } else if (opts_.input_digests) {
        adding_digest_ = input_digest_;
    }
    auto ec = add_message(m, true);
    if (!ec) ++messages_;
    return ec;
}

template <class Source>
std::error_code sender::add_message(const Source& m, bool fill) {
    // A fresh frame: a restart need not decode anything before it, and a receiver that asked
    // for fresh frames (welcome field 14) stores it without encoding its objects again.
    // Not while compressing across frames (a slow link): bytes matter more than the receiver's
    // CPU there.
    const bool replay_bound = opts_.resumable && since_fresh_bytes_ >= opts_.max_replay_bytes;
    const bool asked = welcome_.fresh_frames && !compressor_.policy().carries_context();
    if (open_messages_ == 0 && !open_fresh_ && (asked || replay_bound)) {
        encoder_->reset(out_);
        open_fresh_ = true;
        since_fresh_bytes_ = 0;
    }
    // Column layout while compressing across frames, where it shrinks what crosses the slow
    // link; decided per frame, so a frame holds one layout.
    if (open_messages_ == 0) {
        open_columns_ = welcome_.columns && compressor_.policy().carries_context();
        compressor_.policy().on_layout(open_columns_);
    }
    if (open_columns_) return add_in_columns(m, fill);
    const std::size_t before = out_.size();
    if (auto ec = encoder_->encode(m, out_)) return ec;  // rolled back, tables kept in step
    if (out_.size() - before > welcome_.limits.max_frame_bytes - 1) return drop_message(before);
    if (frame_overflows(0)) {
        // The message goes to the next frame: seal what came before it.
        scratch_.clear();
        scratch_.append(out_.data() + before, out_.size() - before);
        out_.resize(before);
        seal();
        out_.append(scratch_.span());
    }
    return message_added(fill);
}

// add_message() in column layout: the message's field sections are taken back, or moved to
// the next frame, with it.
template <class Source>
std::error_code sender::add_in_columns(const Source& m, bool fill) {
    const std::size_t before = out_.size();
    const std::size_t columns_before = columns_.bytes();
    const auto mark = columns_.position();
    if (auto ec = encoder_->encode(m, out_, columns_)) return ec;  // both rolled back
    const std::size_t directory = column_sections::max_directory_bytes;
    const std::size_t bytes = out_.size() - before + columns_.bytes() - columns_before;
    if (bytes + directory > welcome_.limits.max_frame_bytes - 1) {
        columns_.truncate(mark);
        return drop_message(before);
    }
    if (frame_overflows(directory)) {
        scratch_.clear();
        scratch_.append(out_.data() + before, out_.size() - before);
        columns_.move_tail(mark, held_columns_);
        out_.resize(before);
        seal();
        out_.append(scratch_.span());
        columns_.append(held_columns_);
    }
    return message_added(fill);
}

std::error_code sender::message_added(bool fill) {
    open_reference_bytes_ += encoder_->last_reference_bytes();
    ++open_messages_;
    // After a seal of the frames before this message (an overflow), before one with it.
    input_digest_ = adding_digest_;
    if (fill && open_batch_bytes() >= opts_.batch_max_bytes) seal();
    return {};
}

// One message does not fit a frame on its own (with room for a reset op in front of it).
std::error_code sender::drop_message(std::size_t before) {
    out_.resize(before);
    encoder_->reset(out_);  // the receiver must forget what the dropped bytes inserted
    return proto_errc::message_too_large;
}

// Whether the message just encoded takes the open frame past the receiver's frame size (with
// `directory` bytes to come) or its reference allowance. Each message alone is within the
// allowance (the encoder sees to it); the frame's sum is kept within it here, as its size is.
bool sender::frame_overflows(std::size_t directory) const {
    const std::uint64_t refs = encoder_->last_reference_bytes();
    return open_batch_bytes() + directory > welcome_.limits.max_frame_bytes ||
           refs > welcome_.limits.max_reference_bytes - open_reference_bytes_;
}

void sender::seal() {
    if (state_ == state::streaming) seal_batch();
}

void sender::seal_batch() {
    // After finish() no batch is open.
    if (out_.size() < batch_start_ + frame_header_size || open_batch_bytes() == 0) return;
    if (open_columns_) write_columns();
    const std::uint64_t seq = next_sequence_++;
    if (opts_.resumable) retain(seq);
    open_fresh_ = false;
    const auto packed = compressor_.pack(out_, batch_start_ + frame_header_size);
    std::span<std::uint8_t> frame = out_.span().subspan(batch_start_);
    seal_frame(frame, frame_kind::data, seq, packed.codec, packed.raw_len, packed.flags);
    if (marking()) {
        insert_mark(seq);
        frame = out_.span().subspan(batch_start_);
    }
    in_flight_.push_back({seq, frame.size(), open_messages_});
    in_flight_bytes_ += frame.size();
    ++frames_sealed_;
    push_sealed(frame.size(), true);
    open_batch();
}

// The mark goes in front of its data frame: the receiver learns the digest before it stores
// the frame's objects, so they are stored with it. One move of the frame (a memmove of at
// most a frame) per frame, and only when the digest is reported.
void sender::insert_mark(std::uint64_t sequence) {
    scratch_.clear();
    encode_mark({input_digest_}, scratch_);
    byte_buffer mark_frame;
    append_frame(mark_frame, frame_kind::mark, sequence, scratch_.span());
    const std::size_t n = mark_frame.size();
    const std::size_t frame_bytes = out_.size() - batch_start_;
    out_.prepare(n);
    out_.commit(n);
    std::memmove(out_.data() + batch_start_ + n, out_.data() + batch_start_, frame_bytes);
    std::memcpy(out_.data() + batch_start_, mark_frame.data(), n);
    push_sealed(n, false);
    batch_start_ += n;
}

// The open batch's main section, in out_, becomes a whole column payload.
void sender::write_columns() {
    const std::size_t payload_start = batch_start_ + frame_header_size;
    column_main_.clear();
    column_main_.append(out_.span().subspan(payload_start));
    out_.resize(payload_start);
    columns_.write_payload(column_main_.span(), out_);
    columns_.clear();
}

void sender::retain(std::uint64_t sequence) {
    const std::span<const std::uint8_t> payload =
        out_.span().subspan(batch_start_ + frame_header_size);
    byte_buffer copy(payload.size());
    copy.append(payload);
    if (open_fresh_) fresh_sequences_.push_back(sequence);
    retained_.push_back({sequence, std::move(copy), input_digest_});
    // Tiny frames (linger 0) cost their bookkeeping too: counted, they bound the memory.
    const std::uint64_t cost = payload.size() + retained_frame_overhead;
    since_fresh_bytes_ += cost;
    retained_bytes_ += cost;
}

// Amortised O(1) per frame: each retained frame and each fresh sequence is dropped once.
void sender::trim_retained() {
    while (fresh_sequences_.size() >= 2 && fresh_sequences_[1] <= acked_through_)
        fresh_sequences_.pop_front();
    if (fresh_sequences_.empty() || fresh_sequences_.front() > acked_through_) return;
    const std::uint64_t keep_from = fresh_sequences_.front();
    while (!retained_.empty() && retained_.front().sequence < keep_from) {
        retained_bytes_ -= retained_.front().payload.size() + retained_frame_overhead;
        retained_.pop_front();
    }
}

void sender::finish() {
    if (state_ != state::streaming) return;
    finishing_ = true;
    seal();
    out_.resize(batch_start_);  // drop the empty open batch header
    append_frame(out_, frame_kind::goodbye, 0, {});
    push_sealed(out_.size() - sealed_, false);
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
        case frame_kind::welcome:
            return on_welcome(f);
        case frame_kind::ack:
            return on_ack(f);
        case frame_kind::error: {
            auto e = read_error_frame(f.payload);
            return fail(e.code, "refused by peer: " + e.text);
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

std::error_code sender::on_welcome(const frame_view& f) {
    if (state_ != state::greeting) return fail(proto_errc::unexpected_frame, "second welcome");
    auto w = decode_welcome(f.payload);
    if (!w) return fail(w.error(), "bad welcome");
    const decoder_limits old_limits = welcome_.limits;
    welcome_ = std::move(*w);
    credit_bytes_ = welcome_.credit_bytes;  // a new connection's own, whatever acks said before
    // A reconnect presents the token to resume the stream (docs/PROTOCOL.md 1.1, "Ownership").
    if (!welcome_.resume_token.empty()) opts_.greeting.resume_token = welcome_.resume_token;
    compressor_.policy().set_accepted(welcome_.codecs);
    encoder_options eo = opts_.encoding;
    eo.peer = welcome_.limits;
    // Granted a smaller table than asked for (0 asks for the protocol's default), a frame
    // that evicts is not stored whole by a receiver that asked for fresh frames: reset instead.
    const std::uint64_t asked = opts_.greeting.table_budget != 0 ? opts_.greeting.table_budget
                                                                 : decoder_limits{}.table_budget;
    eo.reset_rather_than_evict = welcome_.fresh_frames && welcome_.limits.table_budget < asked;
    // Lazy values in a codec the daemon lacks would reach readers likely to lack it too.
    if (!has_codec(welcome_.codecs, eo.lazy.codec)) eo.lazy.codec = codec_id::zlib;
    encoder_.emplace(std::move(eo));
    open_fresh_ = true;
    since_fresh_bytes_ = 0;
    state_ = state::streaming;
    const std::uint64_t next = std::max<std::uint64_t>(welcome_.next_sequence, 1);
    if (frames_sealed_ > 0 && next > next_sequence_)
        return fail(proto_errc::bad_sequence,
                    "receiver has frames up to " + std::to_string(next - 1) + ", only up to " +
                        std::to_string(next_sequence_ - 1) + " were sent");
    if (!std::exchange(restarting_, false)) {
        next_sequence_ = next;  // a stream this sender id began before us
        acked_through_ = next - 1;
        return {};
    }
    if (auto ec = replay(old_limits)) return ec;
    if (finishing_) finish();
    return {};
}

std::error_code sender::on_ack(const frame_view& f) {
    auto a = decode_ack(f.payload);
    if (!a) return fail(a.error(), "bad ack");
    // Frames still queued behind the window were never offered to the peer.
    std::uint64_t queued_frames = 0;
    for (const auto& q : queued_)
        queued_frames += q.data ? 1 : 0;
    if (a->sequence >= next_sequence_ - queued_frames)
        return fail(proto_errc::bad_sequence, "ack for a frame never sent");
    while (!in_flight_.empty() && in_flight_.front().sequence <= a->sequence) {
        in_flight_bytes_ -= in_flight_.front().bytes;
        messages_acked_ += in_flight_.front().messages;
        in_flight_.pop_front();
    }
    acked_through_ = std::max(acked_through_, a->sequence);
    if (opts_.resumable) trim_retained();
    last_ack_ = *a;
    // A new credit sizes the window for the frames written from now on; those already
    // written stay in flight, so a smaller one holds new frames back until acks drain them.
    if (a->credit != 0) credit_bytes_ = a->credit;
    compressor_.policy().on_receiver_report(a->decompressed_bytes, a->decompress_ns);
    release();  // the acknowledged bytes (or a larger credit) made room in the window
    return {};
}

std::error_code sender::restart() {
    if (!opts_.resumable) return proto_errc::unexpected_frame;
    if (state_ == state::closed) return {};
    // Whatever the old encoder left in the open batch becomes a frame, so it replays too.
    if (encoder_ && state_ != state::greeting) seal_batch();
    out_.clear();
    sealed_ = released_ = 0;
    queued_.clear();  // frames not written yet are retained: the replay resends them
    queued_data_bytes_ = 0;
    scratch_.clear();
    encode_hello(opts_.greeting, scratch_);
    append_frame(out_, frame_kind::hello, 0, scratch_.span());
    push_sealed(out_.size(), false);
    open_batch();
    reader_ = frame_reader(opts_.greeting.max_frame_bytes, opts_.read_block);
    encoder_.reset();
    // The new receiver has no zstd_stream context: the first frame to it starts one.
    compressor_.restart_stream();
    // A sender that never got a welcome has nothing of the old connection to replay.
    restarting_ = restarting_ || state_ != state::greeting;
    state_ = state::greeting;
    error_ = {};
    detail_.clear();
    return {};
}

// The receiver stored everything up to next_sequence - 1. Retained frames up to there count
// as acknowledged; decoding the retained frames in order with the old connection's limits
// rebuilds its table, and the frames after the stored ones are encoded for the new table frame
// by frame and numbered from next_sequence: the same numbers unless the receiver forgot frames
// it had acknowledged (docs/PROTOCOL.md, "Resume").
std::error_code sender::replay(const decoder_limits& old) {
    const std::uint64_t stored = std::max<std::uint64_t>(welcome_.next_sequence, 1) - 1;
    // Acknowledged frames are kept only to rebuild the table: never resent, even to a
    // receiver that forgot them.
    const std::uint64_t acked = acked_through_;
    for (const auto& f : in_flight_)
        if (f.sequence <= stored) messages_acked_ += f.messages;
    in_flight_.clear();
    in_flight_bytes_ = 0;
    auto frames = std::move(retained_);
    retained_.clear();
    fresh_sequences_.clear();
    retained_bytes_ = 0;
    next_sequence_ = stored + 1;
    acked_through_ = stored;
    stream_decoder old_table(old);
    const std::uint64_t digest_now = input_digest_;
    for (const auto& f : frames) {
        const bool resend = f.sequence > stored && f.sequence > acked;
        // A resent frame split in two (a fresh table costs more bytes) marks its first part
        // with no digest: which objects it ends at was not kept.
        input_digest_ = adding_digest_ = 0;
        std::error_code add_error;
        auto ec = old_table.decode_payload(f.payload.span(), [&](const message& m) {
            if (resend && !add_error) add_error = add_message(m, false);
        });
        if (ec) return fail(ec, "a frame kept for resending does not decode: " + ec.message());
        if (add_error)
            return fail(add_error, "a resent message does not fit the receiver's limits");
        if (!resend) continue;
        input_digest_ = f.digest;  // the resent frame's mark says what the first one's did
        seal_batch();
        ++frames_resent_;
    }
    input_digest_ = adding_digest_ = digest_now;
    return {};
}

}  // namespace objwire
