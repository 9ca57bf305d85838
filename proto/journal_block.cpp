#include "proto/journal_block.hpp"

#include <cstring>

#include "proto/crc32c.hpp"
#include "proto/wire.hpp"

namespace objwire {
namespace {

// Header fields (docs/JOURNAL.md, "Blocks").
constexpr std::size_t at_version = 4;
constexpr std::size_t at_flags = 5;
constexpr std::size_t at_sender_len = 6;
constexpr std::size_t at_payload_len = 8;
constexpr std::size_t at_count = 12;
constexpr std::size_t at_first_offset = 16;
constexpr std::size_t at_first_sequence = 24;
constexpr std::size_t at_last_sequence = 32;
constexpr std::size_t at_time = 40;
constexpr std::size_t at_crc = 48;

class journal_category_impl final : public std::error_category {
  public:
    const char* name() const noexcept override { return "objwire.journal"; }
    std::string message(int ev) const override {
        switch (static_cast<journal_errc>(ev)) {
            case journal_errc::short_header:
                return "short block header";
            case journal_errc::short_block:
                return "short block payload";
            case journal_errc::bad_magic:
                return "not a journal block (bad magic)";
            case journal_errc::unsupported_version:
                return "unsupported journal format version";
            case journal_errc::bad_reserved:
                return "reserved block header field is not zero";
            case journal_errc::too_large:
                return "block larger than the format allows";
            case journal_errc::bad_checksum:
                return "block checksum mismatch";
            case journal_errc::count_mismatch:
                return "block message count mismatch";
            case journal_errc::offset_gap:
                return "block offset out of sequence";
            case journal_errc::empty_block:
                return "empty block";
        }
        return "objwire.journal error " + std::to_string(ev);
    }
};

}  // namespace

const std::error_category& journal_category() noexcept {
    static const journal_category_impl instance;
    return instance;
}

decoder_limits journal_block_limits() {
    decoder_limits l;
    l.table_budget = 4u << 20;
    l.max_depth = 10000;
    l.max_string_bytes = journal_max_payload;
    l.max_elements = 1'000'000'000;
    l.max_frame_bytes = journal_max_payload;
    // The daemon's own blocks of objects it held decoded in memory: no amplification to
    // bound, and a cap here would change how blocks encode.
    l.max_reference_bytes = UINT64_MAX;
    return l;
}

journal_block_writer::journal_block_writer(std::string sender_id, bool strings_checked,
                                           bool with_record, journal_block_pools* pools)
    : sender_id_(std::move(sender_id)),
      strings_checked_(strings_checked),
      pools_(pools),
      record_bytes_(with_record ? journal_stream_record_size : 0) {
    if (sender_id_.size() > journal_max_sender_id) sender_id_.resize(journal_max_sender_id);
    if (!pools_) open();
}

bool journal_block_can_hold(const decoder_limits& limits) {
    const auto j = journal_block_limits();
    return limits.table_budget <= j.table_budget && limits.max_depth <= j.max_depth &&
           limits.max_string_bytes <= j.max_string_bytes && limits.max_elements <= j.max_elements;
}

void journal_block_writer::open() {
    if (pools_ && buf_.capacity() == 0) buf_ = pools_->buffers.take(payload_start());
    open_ = true;
    buf_.clear();
    buf_.prepare(payload_start());
    buf_.commit(journal_block_header_size);
    buf_.append(std::string_view(sender_id_));
    // The record's place, written by finish(): the payload after it is encoded as it comes.
    if (record_bytes_) {
        std::memset(buf_.prepare(record_bytes_), 0, record_bytes_);
        buf_.commit(record_bytes_);
    }
    count_ = 0;
    // Each block is self-contained; the encoder and its table's storage serve the next one.
    if (encoder_) encoder_->start_fresh();
    encoder_behind_ = false;
    mark();
}

stream_encoder& journal_block_writer::encoder() {
    if (encoder_) return *encoder_;
    if (pools_ && (encoder_ = pools_->encoders.take())) {
        encoder_->start_fresh();  // another block's table
        return *encoder_;
    }
    encoder_options o;
    o.peer = journal_block_limits();
    o.strings_checked = strings_checked_;
    encoder_ = std::make_unique<stream_encoder>(o);
    return *encoder_;
}

void journal_block_writer::clear() {
    if (!pools_) return open();
    pools_->buffers.give(std::move(buf_));
    buf_ = byte_buffer{};
    pools_->encoders.give(std::move(encoder_));
    open_ = false;
    count_ = 0;
    encoder_behind_ = false;
    mark();
}

void journal_block_writer::rollback() {
    if (buf_.size() == mark_bytes_) return;
    if (mark_count_ == 0) return open();
    buf_.resize(mark_bytes_);
    count_ = mark_count_;
    encoder().reset(buf_);
    encoder_behind_ = false;
}

std::error_code journal_block_writer::add_payload(std::span<const std::uint8_t> payload,
                                                  std::uint32_t messages) {
    // A payload that relies on an empty table while the block's table holds entries gets a
    // reset op first; a block's first payload needs none.
    open_if_needed();
    const bool needs_reset = count_ != 0 && (payload.empty() || payload[0] != wire::tag_reset);
    if (payload_bytes() + payload.size() + (needs_reset ? 1 : 0) > journal_max_payload)
        return journal_errc::too_large;
    if (needs_reset) buf_.put_u8(wire::tag_reset);
    buf_.append(payload.data(), payload.size());
    count_ += messages;
    encoder_behind_ = true;
    return {};
}

std::error_code journal_block_writer::add(const message& m) {
    open_if_needed();
    auto& enc = encoder();
    if (encoder_behind_) {
        enc.reset(buf_);
        encoder_behind_ = false;
    }
    const std::size_t before = buf_.size();
    if (auto ec = enc.encode(m, buf_)) {
        // The encoder rolled the message back and wrote a reset op: the block stays decodable.
        return ec;
    }
    if (payload_bytes() > journal_max_payload) {
        // Readers refuse a block this large: drop the message, and with it whatever it put in
        // the table (a reset op tells the decoder to forget the same).
        buf_.resize(before);
        enc.reset(buf_);
        return journal_errc::too_large;
    }
    ++count_;
    return {};
}

std::span<std::uint8_t> journal_block_writer::finish(std::uint64_t first_sequence,
                                                     std::uint64_t last_sequence,
                                                     std::uint64_t time_ms) {
    std::uint8_t* h = buf_.data();
    std::memcpy(h, journal_block_magic, 4);
    h[at_version] = journal_format_version;
    h[at_flags] = record_bytes_ ? journal_flag_stream_record : 0;
    store_le<std::uint16_t>(h + at_sender_len, static_cast<std::uint16_t>(sender_id_.size()));
    store_le<std::uint32_t>(h + at_payload_len, static_cast<std::uint32_t>(payload_bytes()));
    if (record_bytes_) {
        std::uint8_t* r = h + journal_block_header_size + sender_id_.size();
        std::memcpy(r, record_.fence.data(), record_.fence.size());
        store_le<std::uint64_t>(r + 16, record_.objects);
        store_le<std::uint64_t>(r + 24, record_.digest);
    }
    store_le<std::uint32_t>(h + at_count, count_);
    store_le<std::uint64_t>(h + at_first_offset, 0);
    store_le<std::uint64_t>(h + at_first_sequence, first_sequence);
    store_le<std::uint64_t>(h + at_last_sequence, last_sequence);
    store_le<std::uint64_t>(h + at_time, time_ms);
    // The body's CRC waits in the CRC field until seal_journal_block() adds the header to it.
    store_le<std::uint32_t>(h + at_crc, crc32c(buf_.span().subspan(journal_block_header_size)));
    return buf_.span();
}

std::uint32_t journal_block_message_count(std::span<const std::uint8_t> block) {
    return block.size() < journal_block_header_size
               ? 0
               : load_le<std::uint32_t>(block.data() + at_count);
}

void seal_journal_block(std::span<std::uint8_t> block, std::uint64_t first_offset) {
    std::uint8_t* h = block.data();
    store_le<std::uint64_t>(h + at_first_offset, first_offset);
    const std::uint32_t body_crc = load_le<std::uint32_t>(h + at_crc);
    store_le<std::uint32_t>(h + at_crc, crc32c({h, at_crc}, body_crc));
}

journal_stream_record parse_journal_stream_record(std::span<const std::uint8_t> bytes) {
    journal_stream_record r;
    std::memcpy(r.fence.data(), bytes.data(), r.fence.size());
    r.objects = load_le<std::uint64_t>(bytes.data() + 16);
    r.digest = load_le<std::uint64_t>(bytes.data() + 24);
    return r;
}

journal_block_head parse_journal_block_head(std::span<const std::uint8_t> in) {
    journal_block_head r;
    const auto fail = [&](journal_errc e) {
        r.state = journal_block_parse::status::bad;
        r.error = e;
        return r;
    };
    if (in.size() < journal_block_header_size) {
        r.size = journal_block_header_size;
        r.error = journal_errc::short_header;
        return r;
    }
    const std::uint8_t* h = in.data();
    if (std::memcmp(h, journal_block_magic, 4) != 0) return fail(journal_errc::bad_magic);
    if (h[at_version] != journal_format_version) return fail(journal_errc::unsupported_version);
    if ((h[at_flags] & ~journal_flag_stream_record) != 0) return fail(journal_errc::bad_reserved);
    r.record_len = h[at_flags] ? journal_stream_record_size : 0;
    auto& bh = r.header;
    bh.version = h[at_version];
    r.sender_len = load_le<std::uint16_t>(h + at_sender_len);
    bh.payload_len = load_le<std::uint32_t>(h + at_payload_len);
    bh.message_count = load_le<std::uint32_t>(h + at_count);
    bh.first_offset = load_le<std::uint64_t>(h + at_first_offset);
    bh.first_sequence = load_le<std::uint64_t>(h + at_first_sequence);
    bh.last_sequence = load_le<std::uint64_t>(h + at_last_sequence);
    bh.time_ms = load_le<std::uint64_t>(h + at_time);
    bh.crc = load_le<std::uint32_t>(h + at_crc);
    if (r.sender_len > journal_max_sender_id || bh.payload_len > journal_max_payload)
        return fail(journal_errc::too_large);
    r.size = journal_block_header_size + r.sender_len + r.record_len + bh.payload_len;
    r.state = journal_block_parse::status::block;
    return r;
}

namespace {
// The rest of parse_journal_block() for a whole block (`head` read, `in` at least head.size
// bytes) whose body sums to `body_crc`.
journal_block_parse finish_block(std::span<const std::uint8_t> in, const journal_block_head& head,
                                 std::uint32_t body_crc) {
    journal_block_parse r;
    r.block.header = head.header;
    r.size = head.size;
    r.state = journal_block_parse::status::bad;
    const auto& bh = r.block.header;
    if (crc32c({in.data(), at_crc}, body_crc) != bh.crc) {
        r.error = journal_errc::bad_checksum;
        return r;
    }
    if (bh.message_count == 0) {
        r.error = journal_errc::empty_block;
        return r;
    }
    const auto body = in.subspan(journal_block_header_size, head.size - journal_block_header_size);
    r.block.sender_id = {reinterpret_cast<const char*>(body.data()), head.sender_len};
    if (head.record_len)
        r.block.record = parse_journal_stream_record(body.subspan(head.sender_len));
    r.block.payload = body.subspan(head.sender_len + head.record_len);
    r.state = journal_block_parse::status::block;
    return r;
}
}  // namespace

journal_block_parse parse_journal_block(std::span<const std::uint8_t> in) {
    const auto head = parse_journal_block_head(in);
    if (head.state == journal_block_parse::status::block && in.size() >= head.size)
        return finish_block(
            in, head,
            crc32c(in.subspan(journal_block_header_size, head.size - journal_block_header_size)));
    journal_block_parse r;
    r.error = head.error;
    r.block.header = head.header;
    r.state = head.state;
    r.size = head.size;  // need_more: what it needs; a bad block of known extent: where it ends
    if (head.state == journal_block_parse::status::block) {
        r.state = journal_block_parse::status::need_more;
        r.error = journal_errc::short_block;
    }
    return r;
}

journal_block_frame_parse parse_journal_block_frame(std::span<const std::uint8_t> payload,
                                                    std::uint32_t head_sum,
                                                    std::uint32_t frame_crc) {
    journal_block_frame_parse r;
    const auto head = parse_journal_block_head(payload);
    if (head.state != journal_block_parse::status::block || head.size != payload.size()) {
        // Not one whole block: the frame's checksum over all of it, then the block's fault.
        r.frame_ok = crc32c(payload, head_sum) == frame_crc;
        if (r.frame_ok) r.block = parse_journal_block(payload);
        return r;
    }
    // The frame's sum runs over its header, the block's header, then the body; the block's
    // over the body, then its header: the body's sum serves both.
    const auto body = payload.subspan(journal_block_header_size);
    const std::uint32_t body_crc = crc32c(body);
    const std::uint32_t head_and_block_header =
        crc32c(payload.first(journal_block_header_size), head_sum);
    r.frame_ok =
        crc32c_combine(head_and_block_header, body_crc, crc32c_shift(body.size())) == frame_crc;
    if (r.frame_ok) r.block = finish_block(payload, head, body_crc);
    return r;
}

}  // namespace objwire
