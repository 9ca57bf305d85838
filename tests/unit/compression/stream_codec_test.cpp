// zstd_stream: one zstd context per connection on both sides, flushed per frame. Frames decode
// in order from a start; later frames compress better than on their own; a level change, a
// missing start and a stream that asks for a larger window than the cap are handled; and a
// frame that yields more than its raw_len is refused.
#include <gtest/gtest.h>
#include <zstd.h>

#include "client/workloads/workloads.hpp"
#include "proto/codec.hpp"
#include "proto/encoder.hpp"
#include "proto/errors.hpp"
#include "proto/frame.hpp"
#include "test_data.hpp"

namespace objwire {
namespace {

constexpr auto stream = codec_id::zstd_stream;

// `events` encoded as objwire sends it, cut into payloads of about 64 KiB.
std::vector<std::vector<std::uint8_t>> event_payloads(std::size_t frames) {
    auto w = workloads::make("events");
    stream_encoder enc(encoder_options{});
    byte_buffer out;
    message m;
    std::vector<std::vector<std::uint8_t>> payloads;
    for (int i = 0; i < 10'000'000 && payloads.size() < frames; ++i) {
        w->next(m);
        EXPECT_FALSE(enc.encode(m, out));
        if (out.size() < 64 * 1024) continue;
        payloads.emplace_back(out.data(), out.data() + out.size());
        out.clear();
    }
    return payloads;
}

struct packed_frame {
    std::vector<std::uint8_t> bytes;
    bool start = false;
};

std::vector<packed_frame> pack_all(frame_compressor& z, codec_id c, int level,
                                   const std::vector<std::vector<std::uint8_t>>& payloads) {
    std::vector<packed_frame> out;
    for (const auto& p : payloads) {
        byte_buffer b;
        EXPECT_FALSE(z.compress(c, level, p, b));
        out.push_back({{b.data(), b.data() + b.size()}, z.stream_started()});
    }
    return out;
}

std::size_t total(const std::vector<packed_frame>& fs) {
    std::size_t n = 0;
    for (const auto& f : fs)
        n += f.bytes.size();
    return n;
}

TEST(StreamCodec, FramesDecodeInOrderAndBeatFramesOnTheirOwn) {
    const auto payloads = event_payloads(24);
    frame_compressor z;
    const auto streamed = pack_all(z, stream, 6, payloads);
    const auto alone = pack_all(z, codec_id::zstd, 6, payloads);
    ASSERT_TRUE(streamed[0].start);
    for (std::size_t i = 1; i < streamed.size(); ++i)
        EXPECT_FALSE(streamed[i].start) << "one context for the whole connection";
    // Matches reach back into earlier frames: at least 5% smaller over the run.
    EXPECT_LT(total(streamed) * 100, total(alone) * 95);
    frame_decompressor u;
    byte_buffer raw;
    for (std::size_t i = 0; i < streamed.size(); ++i) {
        const auto n = static_cast<std::uint32_t>(payloads[i].size());
        ASSERT_FALSE(u.decompress(stream, streamed[i].bytes, n, raw,
                                  streamed[i].start ? frame_flag_stream_start : 0))
            << i;
        ASSERT_TRUE(std::equal(payloads[i].begin(), payloads[i].end(), raw.data())) << i;
    }
}

TEST(StreamCodec, ALevelChangeOrANewConnectionStartsAfresh) {
    const auto text = test::text_bytes(20'000);
    frame_compressor z;
    byte_buffer b;
    ASSERT_FALSE(z.compress(stream, 1, text, b));
    EXPECT_TRUE(z.stream_started());
    ASSERT_FALSE(z.compress(stream, 1, text, b));
    EXPECT_FALSE(z.stream_started());
    ASSERT_FALSE(z.compress(stream, 6, text, b));
    EXPECT_TRUE(z.stream_started()) << "zstd takes a new level only in a new frame";
    z.restart_stream();
    ASSERT_FALSE(z.compress(stream, 6, text, b));
    EXPECT_TRUE(z.stream_started());
}

TEST(StreamCodec, ContinuingWithoutAStartFails) {
    const auto text = test::text_bytes(20'000);
    frame_compressor z;
    byte_buffer a, b, raw;
    ASSERT_FALSE(z.compress(stream, 3, text, a));
    ASSERT_FALSE(z.compress(stream, 3, text, b));
    const auto n = static_cast<std::uint32_t>(text.size());
    frame_decompressor u;
    EXPECT_EQ(u.decompress(stream, b.span(), n, raw, 0), proto_errc::decompress_failed);
    // A frame that continues a stream is not a start either: zstd needs its frame header.
    EXPECT_EQ(u.decompress(stream, b.span(), n, raw, frame_flag_stream_start),
              proto_errc::decompress_failed);
    ASSERT_FALSE(u.decompress(stream, a.span(), n, raw, frame_flag_stream_start));
    ASSERT_FALSE(u.decompress(stream, b.span(), n, raw, 0));
    EXPECT_TRUE(std::equal(text.begin(), text.end(), raw.data()));
}

TEST(StreamCodec, AFrameYieldingMoreThanItsRawLenIsRefused) {
    const auto text = test::text_bytes(20'000);
    frame_compressor z;
    byte_buffer a, raw;
    ASSERT_FALSE(z.compress(stream, 3, text, a));
    frame_decompressor u;
    for (std::uint32_t claim : {19'999u, 10'000u, 1u}) {
        EXPECT_EQ(u.decompress(stream, a.span(), claim, raw, frame_flag_stream_start),
                  proto_errc::decompress_failed)
            << claim;
        EXPECT_LE(raw.capacity(), 64u * 1024) << "the output never grows past the claim";
    }
    EXPECT_EQ(u.decompress(stream, a.span(), 20'001, raw, frame_flag_stream_start),
              proto_errc::decompress_failed);
    // After a failure the context is gone: only a start goes on.
    ASSERT_FALSE(u.decompress(stream, a.span(), 20'000, raw, frame_flag_stream_start));
}

TEST(StreamCodec, AStreamAskingForAWindowOverTheCapIsRefused) {
    // A sender (hostile, or not objwire) whose frame header declares a 64 MiB window.
    const auto text = test::text_bytes(20'000);
    ZSTD_CCtx* c = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(c, ZSTD_c_windowLog, 26);
    std::vector<std::uint8_t> out(ZSTD_compressBound(text.size()) + 1024);
    ZSTD_inBuffer in{text.data(), text.size(), 0};
    ZSTD_outBuffer o{out.data(), out.size(), 0};
    std::size_t left = 1;
    for (int i = 0; i < 16 && left != 0; ++i)
        left = ZSTD_compressStream2(c, &o, &in, ZSTD_e_flush);
    ZSTD_freeCCtx(c);
    ASSERT_EQ(left, 0u);
    out.resize(o.pos);
    frame_decompressor u;
    byte_buffer raw;
    EXPECT_EQ(u.decompress(stream, out, 20'000, raw, frame_flag_stream_start),
              proto_errc::decompress_failed);
}

TEST(StreamCodec, OnlyAStreamDataFrameMayCarryTheStartFlag) {
    const frame_parser p(1 << 20);
    const auto text = test::text_bytes(1'000);
    for (auto c : {codec_id::none, codec_id::zlib, codec_id::zstd, stream}) {
        byte_buffer f;
        f.resize(frame_header_size);
        f.append(text);
        seal_frame(f.span(), frame_kind::data, 1, c, 1'000, frame_flag_stream_start);
        const auto r = p.parse(f.span());
        if (c == stream)
            EXPECT_EQ(r.state, frame_parser::status::frame);
        else
            EXPECT_EQ(r.error, proto_errc::bad_reserved) << codec_name(c);
        // frame_flag_columns (2) only on a stream data frame too, and no other flag exists.
        seal_frame(f.span(), frame_kind::data, 1, c, 1'000, frame_flag_columns);
        if (c == stream)
            EXPECT_EQ(p.parse(f.span()).state, frame_parser::status::frame);
        else
            EXPECT_EQ(p.parse(f.span()).error, proto_errc::bad_reserved) << codec_name(c);
        seal_frame(f.span(), frame_kind::data, 1, c, 1'000, 4);
        EXPECT_EQ(p.parse(f.span()).error, proto_errc::bad_reserved) << codec_name(c);
    }
}

}  // namespace
}  // namespace objwire
