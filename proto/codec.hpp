// Frame codecs: none, zlib, zstd and lz4 (the last two when built with them), sans-I/O. A frame
// payload is compressed whole into a reusable buffer and decompressed into one sized by the
// frame's stated raw_len, which is a hard cap: nothing is allocated beyond it, and a stream
// that yields more or fewer bytes is `decompress_failed`. Frames of none, zlib, zstd and lz4
// are compressed on their own (contexts are reset per frame, kept per connection only to save
// their allocations), so any such frame decodes without the ones before it. zstd_stream keeps
// one zstd context per connection on both sides, each frame flushed: later frames find matches
// in earlier ones (on `events`, ratio 0.40 instead of 0.46), and its window is capped at
// stream_window_log so the receiver's memory for it is bounded.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <system_error>

#include "proto/byte_buffer.hpp"
#include "proto/frame.hpp"
#include "proto/zstd_stream.hpp"

namespace objwire {

// Bit n set: codec_id n is compiled in (codec none is always there).
std::uint32_t built_codecs();
inline bool has_codec(std::uint32_t mask, codec_id c) {
    return (mask >> static_cast<unsigned>(c)) & 1u;
}

std::string_view codec_name(codec_id c);  // "none", "zlib", "zstd", "lz4", "zstd-stream"
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
    // zstd_stream: whether the last compress() started the contexts afresh (the frame must
    // carry frame_flag_stream_start). It does on the first frame, after restart_stream(), and
    // when the level changes (zstd takes a new level only at the start of its own frame).
    bool stream_started() const { return last_stream_ && stream_.started(); }
    // zstd_stream: whether the last compress() began any context afresh (its ratio is no
    // level's).
    bool stream_fresh() const { return last_stream_ && stream_.fresh(); }
    // zstd_stream: whether the last compress() went section by section (frame_flag_columns).
    bool stream_columns() const { return last_stream_ && stream_.columns(); }
    // The connection is new: the next zstd_stream frame starts fresh contexts.
    void restart_stream() { stream_.restart(); }
    // Header flags for the frame the last compress() made.
    std::uint8_t stream_flags() const;

  private:
    struct contexts;
    std::unique_ptr<contexts> ctx_;  // created on first use, reused for every frame
    zstd_stream_compressor stream_;
    bool last_stream_ = false;  // the last compress() was zstd_stream's
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
    // zstd_stream continues the contexts of the frames before or starts them afresh
    // (frame_flag_stream_start in `flags`), whole or section by section (frame_flag_columns);
    // continuing contexts never started (or broken by an error) fails.
    std::error_code decompress(codec_id codec, std::span<const std::uint8_t> in,
                               std::uint32_t raw_len, byte_buffer& out, std::uint8_t flags = 0);

  private:
    struct contexts;
    std::unique_ptr<contexts> ctx_;
    zstd_stream_decompressor stream_;
};

}  // namespace objwire
