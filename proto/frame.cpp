#include "proto/frame.hpp"

#include "proto/crc32c.hpp"
#include "proto/errors.hpp"

namespace objwire {
namespace {

bool known_kind(std::uint8_t k) {
    return k >= 1 && k <= 12;
}
bool known_codec(std::uint8_t c) {
    return c <= 4;
}

}  // namespace

namespace {
// Header bytes 0..19.
void fill_header(std::uint8_t* h, frame_kind kind, std::uint8_t flags, codec_id codec,
                 std::uint32_t payload_len, std::uint64_t sequence, std::uint32_t raw_len) {
    h[0] = static_cast<std::uint8_t>(kind);
    h[1] = flags;
    h[2] = static_cast<std::uint8_t>(codec);
    h[3] = 0;
    store_le<std::uint32_t>(h + 4, payload_len);
    store_le<std::uint64_t>(h + 8, sequence);
    store_le<std::uint32_t>(h + 16, codec == codec_id::none ? payload_len : raw_len);
}
}  // namespace

void seal_frame(std::span<std::uint8_t> frame, frame_kind kind, std::uint64_t sequence,
                codec_id codec, std::uint32_t raw_len, std::uint8_t flags) {
    std::uint8_t* h = frame.data();
    const auto payload_len = static_cast<std::uint32_t>(frame.size() - frame_header_size);
    fill_header(h, kind, flags, codec, payload_len, sequence, raw_len);
    std::uint32_t crc = crc32c({h, 20});
    crc = crc32c(frame.subspan(frame_header_size), crc);
    store_le<std::uint32_t>(h + 20, crc);
}

payload_sum sum_payload(std::span<const std::uint8_t> payload) {
    const auto size = static_cast<std::uint32_t>(payload.size());
    return {size, crc32c(payload), crc32c_shift(size)};
}

void seal_frame_header(std::span<std::uint8_t, frame_header_size> header, frame_kind kind,
                       std::uint64_t sequence, const payload_sum& payload) {
    std::uint8_t* h = header.data();
    fill_header(h, kind, 0, codec_id::none, payload.size, sequence, 0);
    store_le<std::uint32_t>(h + 20, crc32c_combine(crc32c({h, 20}), payload.crc, payload.shift));
}

void append_frame(byte_buffer& out, frame_kind kind, std::uint64_t sequence,
                  std::span<const std::uint8_t> payload) {
    const std::size_t start = out.size();
    out.prepare(frame_header_size + payload.size());
    out.commit(frame_header_size);
    out.append(payload);
    seal_frame(out.span().subspan(start), kind, sequence);
}

frame_parser::result frame_parser::parse(std::span<const std::uint8_t> in) const {
    result r;
    if (in.size() < frame_header_size) {
        r.size = frame_header_size;
        return r;
    }
    const std::uint8_t* h = in.data();
    auto fail = [&](proto_errc e) {
        r.state = status::error;
        r.error = e;
        return r;
    };
    if (!known_kind(h[0])) return fail(proto_errc::unknown_frame_kind);
    if (!known_codec(h[2])) return fail(proto_errc::bad_codec);
    // The only flags: a zstd_stream data frame may start the stream's contexts afresh, and
    // carry a column payload section by section.
    const bool stream = h[0] == static_cast<std::uint8_t>(frame_kind::data) &&
                        h[2] == static_cast<std::uint8_t>(codec_id::zstd_stream);
    const std::uint8_t allowed = stream ? frame_flag_stream_start | frame_flag_columns : 0;
    if ((h[1] & ~allowed) != 0 || h[3] != 0) return fail(proto_errc::bad_reserved);
    frame_header& fh = r.frame.header;
    fh.kind = static_cast<frame_kind>(h[0]);
    fh.flags = h[1];
    fh.codec = static_cast<codec_id>(h[2]);
    fh.payload_len = load_le<std::uint32_t>(h + 4);
    fh.sequence = load_le<std::uint64_t>(h + 8);
    fh.raw_len = load_le<std::uint32_t>(h + 16);
    fh.crc = load_le<std::uint32_t>(h + 20);
    if (fh.payload_len > max_frame_bytes_ || fh.raw_len > max_frame_bytes_)
        return fail(proto_errc::frame_too_large);
    if (fh.codec == codec_id::none && fh.raw_len != fh.payload_len)
        return fail(proto_errc::bad_reserved);
    const std::size_t total = frame_header_size + fh.payload_len;
    if (in.size() < total) {
        r.size = total;
        return r;
    }
    r.frame.payload = in.subspan(frame_header_size, fh.payload_len);
    r.head_sum = crc32c({h, 20});
    r.checked = fh.kind != later_;
    if (r.checked && crc32c(r.frame.payload, r.head_sum) != fh.crc)
        return fail(proto_errc::bad_checksum);
    r.state = status::frame;
    r.size = total;
    return r;
}

}  // namespace objwire
