// Frame codecs: none, zlib, zstd and lz4 (the last two when built with them), sans-I/O. A frame
// payload is compressed whole into a reusable buffer and decompressed into one sized by the
// frame's stated raw_len, which is a hard cap: nothing is allocated beyond it, and a stream
// that yields more or fewer bytes is `decompress_failed`. Each frame is compressed on its own
// (contexts are reset per frame, kept per connection only to save their allocations), so any
// frame decodes without the ones before it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <system_error>

#include "proto/byte_buffer.hpp"
#include "proto/frame.hpp"

namespace objwire {

// Bit n set: codec_id n is compiled in (codec none is always there).
std::uint32_t built_codecs();
inline bool has_codec(std::uint32_t mask, codec_id c) {
    return (mask >> static_cast<unsigned>(c)) & 1u;
}

std::string_view codec_name(codec_id c);  // "none", "zlib", "zstd", "lz4"
std::optional<codec_id> parse_codec(std::string_view name);

// The levels a codec takes: zlib 1..9, zstd 1..19, lz4 1..12 (1 is LZ4's fast mode, 2 and up
// LZ4HC); none has only 0.
struct level_range {
    int min = 0;
    int max = 0;
    int fallback = 0;  // what level 0 ("the codec's default") means
};
level_range levels_of(codec_id c);

class frame_compressor {
  public:
    frame_compressor();
    ~frame_compressor();
    frame_compressor(frame_compressor&&) noexcept;
    frame_compressor& operator=(frame_compressor&&) noexcept;

    // Appends `raw` compressed with `codec` at `level` (0: the codec's default) to `out`.
    // Fails with bad_codec for a codec that is not built or a level out of its range.
    std::error_code compress(codec_id codec, int level, std::span<const std::uint8_t> raw,
                             byte_buffer& out);

  private:
    struct contexts;
    std::unique_ptr<contexts> ctx_;  // created on first use, reused for every frame
};

class frame_decompressor {
  public:
    frame_decompressor();
    ~frame_decompressor();
    frame_decompressor(frame_decompressor&&) noexcept;
    frame_decompressor& operator=(frame_decompressor&&) noexcept;

    // Replaces `out` with exactly raw_len bytes decompressed from `in`. The caller has already
    // capped raw_len (the frame parser refuses raw_len above max_frame_bytes); `out` never
    // grows past it. Anything but exactly raw_len bytes from exactly all of `in` is
    // decompress_failed; a codec that is not built is bad_codec.
    std::error_code decompress(codec_id codec, std::span<const std::uint8_t> in,
                               std::uint32_t raw_len, byte_buffer& out);

  private:
    struct contexts;
    std::unique_ptr<contexts> ctx_;
};

}  // namespace objwire
