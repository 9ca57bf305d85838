#include "proto/codec.hpp"

#include <zlib.h>

#include <algorithm>
#include <cstring>

#include "proto/errors.hpp"

#if OBJWIRE_WITH_ZSTD
#include <zstd.h>
#endif
#if OBJWIRE_WITH_LZ4
#include <lz4.h>
#include <lz4hc.h>
#endif

namespace objwire {
namespace {

// zlib's streams; the lz4 and zstd states are plain allocations freed by these deleters.
struct deflate_stream {
    z_stream z{};
    int level = 0;  // 0: not initialized
    ~deflate_stream() {
        if (level) deflateEnd(&z);
    }
};

struct inflate_stream {
    z_stream z{};
    bool ready = false;
    ~inflate_stream() {
        if (ready) inflateEnd(&z);
    }
};

// A destination that is never null, even for a zero-byte frame: codecs reject null pointers.
std::uint8_t* out_ptr(byte_buffer& out, std::size_t n) {
    return out.prepare(n ? n : 1);
}

}  // namespace

std::uint32_t built_codecs() {
    std::uint32_t m = 1u << static_cast<unsigned>(codec_id::none);
    m |= 1u << static_cast<unsigned>(codec_id::zlib);
#if OBJWIRE_WITH_ZSTD
    m |= 1u << static_cast<unsigned>(codec_id::zstd);
    m |= 1u << static_cast<unsigned>(codec_id::zstd_stream);
#endif
#if OBJWIRE_WITH_LZ4
    m |= 1u << static_cast<unsigned>(codec_id::lz4);
#endif
    return m;
}

std::string_view codec_name(codec_id c) {
    switch (c) {
        case codec_id::none:
            return "none";
        case codec_id::zlib:
            return "zlib";
        case codec_id::zstd:
            return "zstd";
        case codec_id::lz4:
            return "lz4";
        case codec_id::zstd_stream:
            return "zstd-stream";
    }
    return "unknown";
}

std::optional<codec_id> parse_codec(std::string_view name) {
    for (auto c :
         {codec_id::none, codec_id::zlib, codec_id::zstd, codec_id::lz4, codec_id::zstd_stream})
        if (codec_name(c) == name) return c;
    return std::nullopt;
}

level_range levels_of(codec_id c) {
    switch (c) {
        case codec_id::none:
            return {0, 0, 0};
        case codec_id::zlib:
            return {1, 9, 6};
        case codec_id::zstd:
        case codec_id::zstd_stream:
            return {1, 19, 3};
        case codec_id::lz4:
            return {1, 12, 1};
    }
    return {};
}

// ---- compression ----------------------------------------------------------------------------

struct frame_compressor::contexts {
    deflate_stream deflate;
#if OBJWIRE_WITH_ZSTD
    std::unique_ptr<ZSTD_CCtx, decltype(&ZSTD_freeCCtx)> zstd{ZSTD_createCCtx(), &ZSTD_freeCCtx};
#endif
#if OBJWIRE_WITH_LZ4
    std::unique_ptr<char[]> lz4_fast;  // LZ4_sizeofState() bytes, made on first use
    std::unique_ptr<char[]> lz4_hc;    // LZ4_sizeofStateHC() bytes
#endif
};

frame_compressor::frame_compressor() = default;
frame_compressor::~frame_compressor() = default;
frame_compressor::frame_compressor(frame_compressor&&) noexcept = default;
frame_compressor& frame_compressor::operator=(frame_compressor&&) noexcept = default;

namespace {

std::error_code deflate_into(deflate_stream& d, int level, std::span<const std::uint8_t> raw,
                             byte_buffer& out) {
    if (d.level != level) {  // a new level needs a new stream; the same level is only reset
        if (d.level) deflateEnd(&d.z);
        d.z = {};
        d.level = 0;
        if (deflateInit(&d.z, level) != Z_OK) return proto_errc::bad_codec;
        d.level = level;
    } else {
        deflateReset(&d.z);
    }
    const auto bound = deflateBound(&d.z, static_cast<uLong>(raw.size()));
    d.z.next_in = const_cast<Bytef*>(raw.data());
    d.z.avail_in = static_cast<uInt>(raw.size());
    d.z.next_out = out_ptr(out, bound);
    d.z.avail_out = static_cast<uInt>(bound);
    if (deflate(&d.z, Z_FINISH) != Z_STREAM_END) return proto_errc::bad_codec;
    out.commit(bound - d.z.avail_out);
    return {};
}

}  // namespace

std::error_code frame_compressor::compress(codec_id codec, int level,
                                           std::span<const std::uint8_t> raw, byte_buffer& out) {
    last_stream_ = codec == codec_id::zstd_stream;
    if (!has_codec(built_codecs(), codec)) return proto_errc::bad_codec;
    const auto range = levels_of(codec);
    if (level == 0) level = range.fallback;
    if (level < range.min || level > range.max) return proto_errc::bad_codec;
    if (!ctx_) ctx_ = std::make_unique<contexts>();
    switch (codec) {
        case codec_id::none:
            out.append(raw);
            return {};
        case codec_id::zlib:
            return deflate_into(ctx_->deflate, level, raw, out);
        case codec_id::zstd: {
#if OBJWIRE_WITH_ZSTD
            const std::size_t bound = ZSTD_compressBound(raw.size());
            ZSTD_CCtx_setParameter(ctx_->zstd.get(), ZSTD_c_compressionLevel, level);
            // compress2 starts a new frame each call: frames stay independently decodable.
            const std::size_t n = ZSTD_compress2(ctx_->zstd.get(), out_ptr(out, bound), bound,
                                                 raw.data(), raw.size());
            if (ZSTD_isError(n)) return proto_errc::bad_codec;
            out.commit(n);
            return {};
#else
            break;
#endif
        }
        case codec_id::zstd_stream:
            if (stream_.compress(level, raw, out)) return {};
            return proto_errc::bad_codec;
        case codec_id::lz4: {
#if OBJWIRE_WITH_LZ4
            const int bound = LZ4_compressBound(static_cast<int>(raw.size()));
            if (bound <= 0) return proto_errc::bad_codec;  // over LZ4_MAX_INPUT_SIZE
            auto* dst = reinterpret_cast<char*>(out_ptr(out, static_cast<std::size_t>(bound)));
            const auto* src = reinterpret_cast<const char*>(raw.data());
            const int len = static_cast<int>(raw.size());
            int n = 0;
            if (level == 1) {
                if (!ctx_->lz4_fast) ctx_->lz4_fast = std::make_unique<char[]>(LZ4_sizeofState());
                n = LZ4_compress_fast_extState(ctx_->lz4_fast.get(), src, dst, len, bound, 1);
            } else {
                if (!ctx_->lz4_hc) ctx_->lz4_hc = std::make_unique<char[]>(LZ4_sizeofStateHC());
                n = LZ4_compress_HC_extStateHC(ctx_->lz4_hc.get(), src, dst, len, bound, level);
            }
            if (n <= 0 && len > 0) return proto_errc::bad_codec;
            out.commit(static_cast<std::size_t>(n));
            return {};
#else
            break;
#endif
        }
    }
    return proto_errc::bad_codec;
}

std::uint8_t frame_compressor::stream_flags() const {
    return static_cast<std::uint8_t>((stream_started() ? frame_flag_stream_start : 0) |
                                     (stream_columns() ? frame_flag_columns : 0));
}

// ---- decompression --------------------------------------------------------------------------

struct frame_decompressor::contexts {
    inflate_stream inflate;
#if OBJWIRE_WITH_ZSTD
    // Made on the first zstd frame: a connection that sends lz4 or zlib never pays for it.
    std::unique_ptr<ZSTD_DCtx, decltype(&ZSTD_freeDCtx)> zstd{nullptr, &ZSTD_freeDCtx};
    ZSTD_DCtx* zstd_context() {
        if (!zstd) zstd.reset(ZSTD_createDCtx());
        return zstd.get();
    }
#endif
};

frame_decompressor::frame_decompressor() = default;
frame_decompressor::~frame_decompressor() = default;
frame_decompressor::frame_decompressor(frame_decompressor&&) noexcept = default;
frame_decompressor& frame_decompressor::operator=(frame_decompressor&&) noexcept = default;

namespace {

// inflate into exactly raw_len bytes: the output window is the cap, so a bomb stops there.
bool inflate_exact(inflate_stream& s, std::span<const std::uint8_t> in, std::uint8_t* dst,
                   std::uint32_t raw_len) {
    if (!s.ready) {
        if (inflateInit(&s.z) != Z_OK) return false;
        s.ready = true;
    } else {
        inflateReset(&s.z);
    }
    s.z.next_in = const_cast<Bytef*>(in.data());
    s.z.avail_in = static_cast<uInt>(in.size());
    s.z.next_out = dst;
    s.z.avail_out = raw_len;
    // Z_STREAM_END with the window exactly full and the input used up is the only success:
    // Z_BUF_ERROR or Z_OK means the stream wanted more room (or more input) than stated.
    const int rc = inflate(&s.z, Z_FINISH);
    return rc == Z_STREAM_END && s.z.avail_out == 0 && s.z.avail_in == 0;
}

}  // namespace

std::error_code frame_decompressor::decompress(codec_id codec, std::span<const std::uint8_t> in,
                                               std::uint32_t raw_len, byte_buffer& out,
                                               std::uint8_t flags) {
    if (!has_codec(built_codecs(), codec)) return proto_errc::bad_codec;
    if (!ctx_) ctx_ = std::make_unique<contexts>();
    out.clear();
    std::uint8_t* dst = out_ptr(out, raw_len);
    bool ok = false;
    switch (codec) {
        case codec_id::none:
            ok = in.size() == raw_len;
            if (ok && raw_len) std::memcpy(dst, in.data(), raw_len);
            break;
        case codec_id::zlib:
            ok = inflate_exact(ctx_->inflate, in, dst, raw_len);
            break;
        case codec_id::zstd: {
#if OBJWIRE_WITH_ZSTD
            // One shot into the capped buffer: zstd refuses a frame whose content would not fit
            // (dstSize_tooSmall) and allocates no window of its own for it.
            ZSTD_DCtx* z = ctx_->zstd_context();
            const std::size_t n =
                z ? ZSTD_decompressDCtx(z, dst, raw_len, in.data(), in.size()) : 0;
            ok = z && !ZSTD_isError(n) && n == raw_len;
#endif
            break;
        }
        case codec_id::zstd_stream:
            ok = stream_.decompress(in, {dst, raw_len}, (flags & frame_flag_stream_start) != 0,
                                    (flags & frame_flag_columns) != 0);
            break;
        case codec_id::lz4: {
#if OBJWIRE_WITH_LZ4
            const int n = LZ4_decompress_safe(
                reinterpret_cast<const char*>(in.data()), reinterpret_cast<char*>(dst),
                static_cast<int>(in.size()), static_cast<int>(raw_len));
            ok = n >= 0 && static_cast<std::uint32_t>(n) == raw_len;
#endif
            break;
        }
    }
    if (!ok) return proto_errc::decompress_failed;
    out.commit(raw_len);
    return {};
}

}  // namespace objwire
