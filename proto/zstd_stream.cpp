#include "proto/zstd_stream.hpp"

#include <cstring>

#include "proto/byte_reader.hpp"

#if OBJWIRE_WITH_ZSTD
#include <zstd.h>
#endif

namespace objwire {

#if OBJWIRE_WITH_ZSTD
namespace {

struct cctx_free {
    void operator()(ZSTD_CCtx* c) const { ZSTD_freeCCtx(c); }
};
struct dctx_free {
    void operator()(ZSTD_DCtx* d) const { ZSTD_freeDCtx(d); }
};

int window_log_of(std::size_t context) {
    return context == 0 ? stream_window_log : column_window_log;
}

// A fresh context at `level`. From level 5 up, matches of at least 6 bytes: on objwire's
// encoding (short back-references, varints) shorter matches cost more than the literals they
// replace - measured on `events`, ratio 0.41 against 0.42 at level 6 and 0.40 against 0.41 at
// level 9, and faster.
bool start(ZSTD_CCtx* c, int level, int window_log) {
    ZSTD_CCtx_reset(c, ZSTD_reset_session_and_parameters);
    // The window is fixed, not the level's own (19-22 bits): the receiver's cap, whatever the
    // level, and a history of many frames even at level 1.
    return !ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, level)) &&
           !ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_windowLog, window_log)) &&
           (level < 5 || !ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_minMatch, 6)));
}

// Appends `raw` to the stream, flushed so that the receiver can decode all of it now.
bool flush_into(ZSTD_CCtx* c, std::span<const std::uint8_t> raw, byte_buffer& out) {
    ZSTD_inBuffer in{raw.data(), raw.size(), 0};
    // A flushed block never exceeds the bound; the loop is for zstd's own bookkeeping.
    const std::size_t bound = ZSTD_compressBound(raw.size()) + ZSTD_CStreamOutSize();
    for (int round = 0; round < 64; ++round) {
        ZSTD_outBuffer o{out.prepare(bound), bound, 0};
        const std::size_t left = ZSTD_compressStream2(c, &o, &in, ZSTD_e_flush);
        if (ZSTD_isError(left)) return false;
        out.commit(o.pos);
        if (left == 0) return true;
    }
    return false;
}

// The next flushed piece of a stream into exactly dst.size() bytes. Every round must make
// progress, and the output window is the cap; after it is full, the stream must have nothing
// more to give for this piece (a piece that would yield more is a bomb, or a lie).
bool exact(ZSTD_DCtx* d, std::span<const std::uint8_t> in, std::span<std::uint8_t> dst) {
    ZSTD_inBuffer src{in.data(), in.size(), 0};
    ZSTD_outBuffer o{dst.data(), dst.size(), 0};
    while (src.pos < src.size) {
        const std::size_t was_in = src.pos, was_out = o.pos;
        if (ZSTD_isError(ZSTD_decompressStream(d, &o, &src))) return false;
        if (src.pos == was_in && o.pos == was_out) return false;  // stuck: output is full
    }
    if (o.pos != dst.size()) return false;
    std::uint8_t extra = 0;
    ZSTD_outBuffer more{&extra, 1, 0};
    ZSTD_inBuffer none{nullptr, 0, 0};
    return !ZSTD_isError(ZSTD_decompressStream(d, &more, &none)) && more.pos == 0;
}

}  // namespace

struct zstd_stream_compressor::contexts {
    std::array<std::unique_ptr<ZSTD_CCtx, cctx_free>, stream_contexts> c;
    std::array<bool, stream_contexts> open{};  // started since the stream started
    byte_buffer piece;
    bool begun = false;  // get() began a context in this compress()
    // The context for `i`, begun at `level` if it has not been since the stream started: a
    // section first used mid-stream begins its own zstd frame there, as the receiver expects.
    ZSTD_CCtx* get(std::size_t i, int level) {
        if (!c[i]) c[i].reset(ZSTD_createCCtx());
        if (!c[i]) return nullptr;
        if (!open[i]) {
            if (!start(c[i].get(), level, window_log_of(i))) return nullptr;
            begun = true;
        }
        open[i] = true;
        return c[i].get();
    }
};

struct zstd_stream_decompressor::contexts {
    std::array<std::unique_ptr<ZSTD_DCtx, dctx_free>, stream_contexts> d;
    std::array<bool, stream_contexts> open{};
    bool piece(std::size_t i, std::span<const std::uint8_t> in, std::span<std::uint8_t> dst) {
        if (!d[i]) d[i].reset(ZSTD_createDCtx());
        if (!d[i]) return false;
        if (!open[i]) {
            ZSTD_DCtx_reset(d[i].get(), ZSTD_reset_session_and_parameters);
            // The history a sender may ask us to keep: no more than it would use.
            if (ZSTD_isError(
                    ZSTD_DCtx_setParameter(d[i].get(), ZSTD_d_windowLogMax, window_log_of(i))))
                return false;
            open[i] = true;
        }
        return exact(d[i].get(), in, dst);
    }
};

zstd_stream_compressor::zstd_stream_compressor() = default;
zstd_stream_compressor::~zstd_stream_compressor() = default;
zstd_stream_compressor::zstd_stream_compressor(zstd_stream_compressor&&) noexcept = default;
zstd_stream_compressor& zstd_stream_compressor::operator=(zstd_stream_compressor&&) noexcept =
    default;

bool zstd_stream_compressor::compress(int level, std::span<const std::uint8_t> raw,
                                      byte_buffer& out) {
    if (!ctx_) ctx_ = std::make_unique<contexts>();
    started_ = level_ != level;
    if (started_) ctx_->open.fill(false);
    level_ = level;
    ctx_->begun = false;
    column_directory d;
    columns_ = has_columns(raw) && read_column_payload(raw, d) == proto_errc::ok;
    bool ok = true;
    if (!columns_) {
        ZSTD_CCtx* c = ctx_->get(0, level);
        ok = c && flush_into(c, raw, out);
    } else {
        out.append(raw.first(d.header_bytes));
        for (std::size_t i = 0; ok && i < d.count; ++i) {
            auto section = column_section(raw, d, i);
            ctx_->piece.clear();
            ZSTD_CCtx* c = section.empty() ? nullptr : ctx_->get(1 + i, level);
            ok = section.empty() || (c && flush_into(c, section, ctx_->piece));
            out.put_varint(ctx_->piece.size());
            out.append(ctx_->piece.span());
        }
    }
    if (!ok) level_ = 0;  // the contexts are in an unknown state: the next frame restarts
    fresh_ = ctx_->begun;
    return ok;
}

zstd_stream_decompressor::zstd_stream_decompressor() = default;
zstd_stream_decompressor::~zstd_stream_decompressor() = default;
zstd_stream_decompressor::zstd_stream_decompressor(zstd_stream_decompressor&&) noexcept = default;
zstd_stream_decompressor& zstd_stream_decompressor::operator=(zstd_stream_decompressor&&) noexcept =
    default;

bool zstd_stream_decompressor::decompress(std::span<const std::uint8_t> in,
                                          std::span<std::uint8_t> raw, bool start, bool columns) {
    if (!ctx_) ctx_ = std::make_unique<contexts>();
    if (start) {
        ctx_->open.fill(false);
        open_ = true;
    }
    if (!open_) return false;
    open_ = false;  // until this piece decodes
    if (!columns) return open_ = ctx_->piece(0, in, raw);
    // The directory travels as it is; its sections must fill exactly the stated raw size.
    column_directory d;
    if (read_column_directory(in, raw.size(), d) != proto_errc::ok ||
        d.header_bytes + d.section_bytes() != raw.size())
        return false;
    std::memcpy(raw.data(), in.data(), d.header_bytes);
    byte_reader r(in.subspan(d.header_bytes));
    std::size_t at = d.header_bytes;
    for (std::size_t i = 0; i < d.count; ++i) {
        const std::uint64_t stored = r.varint();
        auto piece = r.take(static_cast<std::size_t>(stored));
        if (!r.ok() || (stored == 0) != (d.lengths[i] == 0)) return false;
        if (stored != 0 && !ctx_->piece(1 + i, piece, raw.subspan(at, d.lengths[i]))) return false;
        at += d.lengths[i];
    }
    return open_ = r.at_end();
}

#else  // without zstd the codec is not announced, and nothing calls these

struct zstd_stream_compressor::contexts {};
struct zstd_stream_decompressor::contexts {};
zstd_stream_compressor::zstd_stream_compressor() = default;
zstd_stream_compressor::~zstd_stream_compressor() = default;
zstd_stream_compressor::zstd_stream_compressor(zstd_stream_compressor&&) noexcept = default;
zstd_stream_compressor& zstd_stream_compressor::operator=(zstd_stream_compressor&&) noexcept =
    default;
bool zstd_stream_compressor::compress(int, std::span<const std::uint8_t>, byte_buffer&) {
    return false;
}
zstd_stream_decompressor::zstd_stream_decompressor() = default;
zstd_stream_decompressor::~zstd_stream_decompressor() = default;
zstd_stream_decompressor::zstd_stream_decompressor(zstd_stream_decompressor&&) noexcept = default;
zstd_stream_decompressor& zstd_stream_decompressor::operator=(zstd_stream_decompressor&&) noexcept =
    default;
bool zstd_stream_decompressor::decompress(std::span<const std::uint8_t>, std::span<std::uint8_t>,
                                          bool, bool) {
    return false;
}

#endif

}  // namespace objwire
