// zstd-stream (codec 4, docs/PROTOCOL.md 2.1): zstd contexts that live as long as the
// connection, on both sides, each frame's piece flushed so it decodes on arrival. A payload in
// column layout (proto/columns.hpp) is compressed section by section, each section index with
// its own context: a column's values meet only their own kind in the history, which is where
// the repeats are. Only built with zstd; sans-I/O.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>

#include "proto/byte_buffer.hpp"
#include "proto/columns.hpp"

namespace objwire {

// The whole-payload context's history: 4 MiB, the window zstd itself picks for levels 9 and
// up. A receiver refuses a stream that asks for more.
inline constexpr int stream_window_log = 22;
// Each section context's history: 512 KiB, so that nine of them cost the receiver about what
// the one whole-payload context does.
inline constexpr int column_window_log = 19;

// Context 0 carries whole payloads; 1 + i carries section i of column payloads.
inline constexpr std::size_t stream_contexts = 1 + max_sections;

class zstd_stream_compressor {
  public:
    zstd_stream_compressor();
    ~zstd_stream_compressor();
    zstd_stream_compressor(zstd_stream_compressor&&) noexcept;
    zstd_stream_compressor& operator=(zstd_stream_compressor&&) noexcept;

    // Appends the next piece of `raw` at `level`: a column payload section by section (the
    // directory, then each section's varint stored length and piece). False: the contexts
    // are in an unknown state, and the next call starts afresh.
    bool compress(int level, std::span<const std::uint8_t> raw, byte_buffer& out);
    // Whether the last compress() started every context afresh (frame_flag_stream_start): the
    // first time, after restart(), and when the level changes.
    bool started() const { return started_; }
    // Whether the last compress() went section by section (frame_flag_columns).
    bool columns() const { return columns_; }
    // Whether the last compress() began any context afresh - all of them (started()), or a
    // section's first used since: such a piece had no history, and its ratio says nothing
    // of the level's.
    bool fresh() const { return fresh_; }
    // The receiver will not continue our contexts: the next piece starts afresh.
    void restart() { level_ = 0; }

  private:
    struct contexts;
    std::unique_ptr<contexts> ctx_;
    int level_ = 0;  // 0: no context open
    bool started_ = false;
    bool columns_ = false;
    bool fresh_ = false;
};

class zstd_stream_decompressor {
  public:
    zstd_stream_decompressor();
    ~zstd_stream_decompressor();
    zstd_stream_decompressor(zstd_stream_decompressor&&) noexcept;
    zstd_stream_decompressor& operator=(zstd_stream_decompressor&&) noexcept;

    // Writes exactly `raw.size()` bytes from `in`, the next piece of the streams: `start`
    // begins every context afresh, `columns` reads a piece made section by section. Anything
    // else than exactly raw.size() bytes from all of `in` is false, and after a failure only
    // a start goes on.
    bool decompress(std::span<const std::uint8_t> in, std::span<std::uint8_t> raw, bool start,
                    bool columns);

  private:
    struct contexts;
    std::unique_ptr<contexts> ctx_;
    bool open_ = false;  // started, and no failure since
};

}  // namespace objwire
