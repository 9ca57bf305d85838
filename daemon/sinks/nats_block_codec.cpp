#include "daemon/sinks/nats_block_codec.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cstring>

namespace objwire::daemon {

bool unpack_nats_block(const char* codec, const char* raw_len,
                       std::span<const std::uint8_t> payload, std::size_t max_raw,
                       frame_decompressor& decompressor, byte_buffer& out, std::string& why) {
    out.clear();
    if (!codec && !raw_len) {  // stored as formed
        out.append(payload);
        return true;
    }
    if (!codec || !raw_len) {
        why = fmt::format("it has {} without {}", codec ? nats_codec_header : nats_raw_len_header,
                          codec ? nats_raw_len_header : nats_codec_header);
        return false;
    }
    const auto c = parse_codec(codec);
    if (!c || *c == codec_id::none || *c == codec_id::zstd_stream ||
        !has_codec(built_codecs(), *c)) {
        why = fmt::format("its codec '{}' is not one this objwired decompresses", codec);
        return false;
    }
    std::uint64_t len = 0;
    const char* end = raw_len + std::strlen(raw_len);
    const auto [p, ec] = std::from_chars(raw_len, end, len);
    if (ec != std::errc() || p != end || len == 0) {
        why = fmt::format("its raw length '{}' is not a number", raw_len);
        return false;
    }
    if (len > max_raw) {
        why = fmt::format("it claims {} raw bytes, over the limit of {}", len, max_raw);
        return false;
    }
    if (const auto err =
            decompressor.decompress(*c, payload, static_cast<std::uint32_t>(len), out)) {
        why = fmt::format(
            "its {} payload of {} bytes does not decompress to the {} bytes it "
            "claims ({})",
            codec, payload.size(), len, err.message());
        out.clear();
        return false;
    }
    return true;
}

}  // namespace objwire::daemon
