// Lazy values (proto/lazy_value.hpp, docs/PROTOCOL.md 4.1): they round-trip, the decoder keeps
// their bytes without decompressing, a re-encoder (the daemon's journal) carries them byte for
// byte, the encoder packs by field or size when asked, and every hostile form - a bomb, a size
// lie, a cut, a nesting too deep, a nested bomb - is refused with its error.
#include <gtest/gtest.h>

#include <algorithm>

#include "proto/codec.hpp"
#include "proto/journal_block.hpp"
#include "proto/json_writer.hpp"
#include "proto/lazy_value.hpp"
#include "proto/wire.hpp"
#include "test_support.hpp"

namespace objwire {
namespace {

record_type_ptr doc_type() {
    static const auto t = make_record_type("Doc", {"id", "title", "body"});
    return t;
}

std::string text_of(std::size_t n) {
    std::string s;
    for (std::size_t i = 0; s.size() < n; ++i)
        s += "line " + std::to_string(i % 97) + " of a compressible body; ";
    s.resize(n);
    return s;
}

value body_value() {
    return list{text_of(20'000), map{{"k", 1}, {"nested", list{1.5, nullptr, "x"}}},
                bytes{{1, 2, 3}}};
}

std::vector<codec_id> built_lazy_codecs() {
    std::vector<codec_id> out;
    for (auto c : {codec_id::zlib, codec_id::zstd, codec_id::lz4})
        if (has_codec(built_codecs(), c)) out.push_back(c);
    return out;
}

std::vector<std::uint8_t> compress(codec_id c, std::span<const std::uint8_t> raw) {
    frame_compressor z;
    byte_buffer out;
    EXPECT_FALSE(z.compress(c, 0, raw, out));
    return {out.span().begin(), out.span().end()};
}

// A lazy value over arbitrary inner bytes (a hostile sender's).
lazy_value lazy_over(std::span<const std::uint8_t> raw, codec_id c = codec_id::zlib) {
    return lazy_value(c, static_cast<std::uint32_t>(raw.size()), compress(c, raw));
}

// One message's encoding with a fresh encoder: the inner bytes a lazy value holds.
std::vector<std::uint8_t> encoded_alone(const value& v) {
    stream_encoder enc({});
    byte_buffer b;
    EXPECT_FALSE(enc.encode(message{v}, b));
    return {b.span().begin(), b.span().end()};
}

std::error_code expand_error(const lazy_value& l, const decoder_limits& limits = {},
                             std::uint32_t depth = 1) {
    auto r = expand_lazy(l, limits, depth);
    return r ? std::error_code{} : r.error();
}

// The payload a sender writes for `m`, and what a decoder with `limits` makes of it.
std::error_code decode_one(std::span<const std::uint8_t> payload, const decoder_limits& limits,
                           message* out = nullptr) {
    stream_decoder dec(limits);
    return dec.decode_payload(payload, [&](message&& m) {
        if (out) *out = std::move(m);
    });
}

TEST(LazyValue, PacksAndExpandsWithEveryBuiltCodec) {
    const value v = body_value();
    for (auto c : built_lazy_codecs()) {
        auto l = pack_lazy(v, c);
        ASSERT_TRUE(l) << codec_name(c) << l.error().message();
        EXPECT_EQ(l->codec(), c);
        EXPECT_EQ(l->raw_size(), encoded_alone(v).size());
        EXPECT_LT(l->stored().size(), l->raw_size() / 4) << codec_name(c);
        auto back = expand_lazy(*l, {});
        ASSERT_TRUE(back) << back.error().message();
        EXPECT_EQ(*back, v);
    }
}

TEST(LazyValue, TravelsInsideAMessageAsItsBytes) {
    auto l = pack_lazy(body_value(), codec_id::zlib);
    ASSERT_TRUE(l);
    const message m{make_record(doc_type(), {7, "title", *l})};
    auto out = test::round_trip({m, m});
    ASSERT_EQ(out.size(), 2u);
    for (const auto& back : out) {
        EXPECT_EQ(back, m);
        const auto& got = back.root.get<record>().fields[2].get<lazy_value>();
        EXPECT_TRUE(std::ranges::equal(got.stored(), l->stored()));
        EXPECT_EQ(*expand_lazy(got, {}), body_value());
    }
}

TEST(LazyValue, DecoderKeepsTheBytesWithoutDecompressing) {
    // Not a zlib stream at all: the decoder cannot tell, and need not; the reader can.
    const std::vector<std::uint8_t> junk{0xde, 0xad, 0xbe, 0xef};
    const message m{list{lazy_value(codec_id::zlib, 1000, junk)}};
    auto out = test::round_trip({m});
    ASSERT_EQ(out.size(), 1u);
    const auto& got = out[0].root.get<list>()[0].get<lazy_value>();
    EXPECT_TRUE(std::ranges::equal(got.stored(), junk));
    EXPECT_EQ(expand_error(got), proto_errc::decompress_failed);
}

TEST(LazyValue, JournalReencodingCarriesTheBytesUnchanged) {
    auto l = pack_lazy(body_value(), codec_id::zlib, 9);
    ASSERT_TRUE(l);
    // A stream whose table already holds "title" and Doc, as a connection's would.
    std::vector<message> in;
    for (int i = 0; i < 3; ++i)
        in.push_back(message{make_record(doc_type(), {i, "title", *l})});
    auto decoded = test::round_trip(in);
    journal_block_writer w("s", true);
    for (const auto& m : decoded)
        ASSERT_FALSE(w.add(m));
    auto block = w.finish(1, 1, 0);
    seal_journal_block(block, 0);
    auto parsed = parse_journal_block(block);
    ASSERT_EQ(parsed.state, journal_block_parse::status::block);
    std::vector<message> stored;
    ASSERT_FALSE(decode_journal_block(parsed.block, [&](message&& m) { stored.push_back(m); }));
    ASSERT_EQ(stored.size(), 3u);
    for (const auto& m : stored) {
        const auto& got = m.root.get<record>().fields[2].get<lazy_value>();
        EXPECT_TRUE(std::ranges::equal(got.stored(), l->stored()));  // not recompressed
        EXPECT_EQ(got.raw_size(), l->raw_size());
    }
    // And the block's bytes hold the stored bytes verbatim.
    const auto s = l->stored();
    EXPECT_NE(std::search(block.begin(), block.end(), s.begin(), s.end()), block.end());
}

TEST(LazyValue, HeaderIsCheckedBeforeAnything) {
    decoder_limits small;
    small.max_frame_bytes = 4096;
    auto payload = [](std::uint64_t codec, std::uint64_t raw, std::uint64_t stored_len,
                      std::size_t present) {
        byte_buffer b;
        b.put_u8(wire::tag_lazy);
        b.put_varint(codec);
        b.put_varint(raw);
        b.put_varint(stored_len);
        for (std::size_t i = 0; i < present; ++i)
            b.put_u8(0x78);
        return std::vector<std::uint8_t>(b.span().begin(), b.span().end());
    };
    // 1 GiB claimed in a few bytes: refused from the header.
    EXPECT_EQ(decode_one(payload(1, 1u << 30, 4, 4), small), proto_errc::frame_too_large);
    EXPECT_EQ(decode_one(payload(1, 4097, 4, 4), small), proto_errc::frame_too_large);
    EXPECT_FALSE(decode_one(payload(1, 4096, 4, 4), small));
    for (std::uint64_t c : {0u, 4u, 5u, 300u})
        EXPECT_EQ(decode_one(payload(c, 10, 4, 4), small), proto_errc::bad_codec) << c;
    EXPECT_EQ(decode_one(payload(1, 0, 4, 4), small), proto_errc::bad_message);
    EXPECT_EQ(decode_one(payload(1, 10, 0, 0), small), proto_errc::bad_message);
    // Stored bytes claimed past the end of the frame.
    EXPECT_EQ(decode_one(payload(1, 10, 1u << 30, 4), small), proto_errc::truncated);
    EXPECT_EQ(decode_one(payload(1, 10, 5, 4), small), proto_errc::truncated);
    // The sender refuses what the receiver would.
    encoder_options o;
    o.peer = small;
    stream_encoder enc(o);
    byte_buffer b;
    EXPECT_EQ(enc.encode(message{list{lazy_value(codec_id::zlib, 5000, {1})}}, b),
              proto_errc::frame_too_large);
    EXPECT_EQ(enc.encode(message{list{lazy_value(codec_id::zstd_stream, 5, {1})}}, b),
              proto_errc::bad_codec);
    EXPECT_EQ(enc.encode(message{list{lazy_value{}}}, b), proto_errc::bad_codec);
}

TEST(LazyValue, ABombOrASizeLieIsRefusedWithinTheStatedSize) {
    std::vector<std::uint8_t> zeros(64u << 20, 0);
    for (auto c : built_lazy_codecs()) {
        const auto bomb = compress(c, zeros);
        // Claims 1 MiB, holds 64 MiB: decompression stops at the claim.
        EXPECT_EQ(expand_error(lazy_value(c, 1u << 20, bomb)), proto_errc::decompress_failed)
            << codec_name(c);
        // Claims more than the reader's max_frame_bytes: refused before decompressing.
        EXPECT_EQ(expand_error(lazy_value(c, 64u << 20, bomb)), proto_errc::frame_too_large)
            << codec_name(c);
    }
    const auto inner = encoded_alone(body_value());
    const auto z = compress(codec_id::zlib, inner);
    const auto n = static_cast<std::uint32_t>(inner.size());
    EXPECT_EQ(expand_error(lazy_value(codec_id::zlib, n - 1, z)), proto_errc::decompress_failed);
    EXPECT_EQ(expand_error(lazy_value(codec_id::zlib, n + 1, z)), proto_errc::decompress_failed);
    auto cut = z;
    cut.resize(z.size() / 2);
    EXPECT_EQ(expand_error(lazy_value(codec_id::zlib, n, cut)), proto_errc::decompress_failed);
    EXPECT_TRUE(expand_lazy(lazy_value(codec_id::zlib, n, z), {}));
}

TEST(LazyValue, TheInnerEncodingIsCheckedLikeAMessage) {
    // Two values where one belongs.
    auto two = encoded_alone("a");
    two.push_back(0x00);
    EXPECT_EQ(expand_error(lazy_over(two)), proto_errc::trailing_bytes);
    // A reset op, or nothing but one.
    EXPECT_EQ(expand_error(lazy_over(std::vector<std::uint8_t>{wire::tag_reset, 0x00})),
              proto_errc::bad_message);
    // A shared object: a lazy value is a tree.
    EXPECT_EQ(expand_error(lazy_over(std::vector<std::uint8_t>{wire::tag_object_def, 0x00})),
              proto_errc::bad_message);
    // A back-reference into a table it does not have.
    EXPECT_EQ(expand_error(lazy_over(std::vector<std::uint8_t>{wire::short_string_ref})),
              proto_errc::unknown_reference);
    // Cut inside a value.
    EXPECT_EQ(expand_error(lazy_over(std::vector<std::uint8_t>{wire::tag_list, 3, 0x00})),
              proto_errc::truncated);
    // Too deep: 100 nested lists against max_depth 64, and depth counts from where it sits.
    std::vector<std::uint8_t> deep;
    for (int i = 0; i < 100; ++i) {
        deep.push_back(wire::tag_list);
        deep.push_back(i == 99 ? 0 : 1);
    }
    EXPECT_EQ(expand_error(lazy_over(deep)), proto_errc::depth_exceeded);
    value v = list{};
    for (int i = 0; i < 10; ++i)
        v = list{v};
    auto l = pack_lazy(v, codec_id::zlib);
    ASSERT_TRUE(l);
    decoder_limits limits;
    limits.max_depth = 12;
    EXPECT_TRUE(expand_lazy(*l, limits, 1));
    EXPECT_TRUE(expand_lazy(*l, limits, 2));
    EXPECT_EQ(expand_error(*l, limits, 3), proto_errc::depth_exceeded);
    // Strings over the reader's limit.
    limits = {};
    limits.max_string_bytes = 100;
    auto big = pack_lazy(text_of(1000), codec_id::zlib);
    ASSERT_TRUE(big);
    EXPECT_EQ(expand_error(*big, limits), proto_errc::string_too_long);
}

TEST(LazyValue, NestedLazyValuesShareOneBudget) {
    // Each inner one claims 1 MiB of zeros in a few hundred bytes; 200 of them in an outer one.
    auto one = pack_lazy(bytes{std::vector<std::uint8_t>((1u << 20) - 16, 0)}, codec_id::zlib, 9);
    ASSERT_TRUE(one);
    list many(200, value(*one));
    auto outer = pack_lazy(many, codec_id::zlib, 9);
    ASSERT_TRUE(outer);
    EXPECT_LT(outer->stored().size(), 64u * 1024);
    value v = *outer;
    std::uint64_t budget = 16u << 20;
    EXPECT_EQ(expand_lazy_values(v, {}, 1, budget), proto_errc::frame_too_large);
    // One level at a time is bounded by itself: the inner ones stay lazy.
    auto level = expand_lazy(*outer, {});
    ASSERT_TRUE(level);
    EXPECT_EQ(level->get<list>().size(), 200u);
    EXPECT_EQ(level->get<list>()[0].type(), value::kind::lazy);
    // Within budget, everything expands.
    value small = list{*one, *one};
    budget = 16u << 20;
    ASSERT_FALSE(expand_lazy_values(small, {}, 1, budget));
    EXPECT_EQ(small.get<list>()[1].get<bytes>().data.size(), (1u << 20) - 16);
}

TEST(LazyValue, PackingRefusesSharedObjectsAndUnbuiltCodecs) {
    EXPECT_EQ(pack_lazy(list{object_ref{0}}, codec_id::zlib).error(), proto_errc::bad_message);
    EXPECT_EQ(pack_lazy("x", codec_id::zstd_stream).error(), proto_errc::bad_codec);
    EXPECT_EQ(pack_lazy("x", codec_id::none).error(), proto_errc::bad_codec);
}

std::vector<message> encoded_with(lazy_options lazy, const std::vector<message>& in,
                                  std::uint64_t* packed = nullptr, std::size_t* wire = nullptr) {
    encoder_options o;
    o.lazy = std::move(lazy);
    stream_encoder enc(o);
    byte_buffer b;
    for (const auto& m : in)
        EXPECT_FALSE(enc.encode(m, b));
    if (packed) *packed = enc.lazy_packed();
    if (wire) *wire = b.size();
    std::vector<message> out;
    stream_decoder dec({});
    EXPECT_FALSE(dec.decode_payload(b.span(), [&](message&& m) { out.push_back(std::move(m)); }));
    return out;
}

TEST(LazyValue, EncoderPacksConfiguredFields) {
    const message m{make_record(doc_type(), {1, "t", text_of(5000)})};
    lazy_options o;
    o.fields = {"Doc.body"};
    std::uint64_t packed = 0;
    auto out = encoded_with(o, {m, m}, &packed);
    EXPECT_EQ(packed, 2u);
    ASSERT_EQ(out.size(), 2u);
    for (const auto& back : out) {
        const auto& f = back.root.get<record>().fields;
        EXPECT_EQ(f[1], value("t"));
        ASSERT_EQ(f[2].type(), value::kind::lazy);
        EXPECT_EQ(*expand_lazy(f[2].get<lazy_value>(), {}), value(text_of(5000)));
    }
    // Off by default: nothing packed.
    auto plain = encoded_with({}, {m});
    EXPECT_EQ(plain[0], m);
    // A field that would not shrink stays plain.
    const message tiny{make_record(doc_type(), {1, "t", "short"})};
    auto kept = encoded_with(o, {tiny}, &packed);
    EXPECT_EQ(packed, 0u);
    EXPECT_EQ(kept[0], tiny);
}

TEST(LazyValue, EncoderPacksValuesOverTheSizeThreshold) {
    const value big = list{text_of(3000), text_of(3000)};
    const message m{map{{"small", "s"}, {"big", big}, {"n", 5}}};
    lazy_options o;
    o.min_bytes = 1024;
    std::size_t lazy_wire = 0, plain_wire = 0;
    std::uint64_t packed = 0;
    auto out = encoded_with(o, {m}, &packed, &lazy_wire);
    encoded_with({}, {m}, nullptr, &plain_wire);
    EXPECT_EQ(packed, 1u);  // the outermost value over the threshold, not its strings again
    EXPECT_LT(lazy_wire, plain_wire / 4);
    const auto& got = out[0].root.get<map>();
    EXPECT_EQ(got[0].second, value("s"));
    ASSERT_EQ(got[1].second.type(), value::kind::lazy);
    EXPECT_EQ(*expand_lazy(got[1].second.get<lazy_value>(), {}, 2), big);
    // A shared object's value goes lazy too, and stays one object referenced twice.
    const message shared{list{object_ref{0}, object_ref{0}}, {text_of(5000)}};
    auto s = encoded_with(o, {shared}, &packed);
    EXPECT_EQ(packed, 1u);
    ASSERT_EQ(s[0].objects.size(), 1u);
    EXPECT_EQ(s[0].root, (value(list{object_ref{0}, object_ref{0}})));
    ASSERT_EQ(s[0].objects[0].type(), value::kind::lazy);
    EXPECT_EQ(*expand_lazy(s[0].objects[0].get<lazy_value>(), {}, 2), value(text_of(5000)));
    // The root itself never goes lazy: the reader sees the message's shape.
    const message root_only{text_of(5000)};
    auto r = encoded_with(o, {root_only}, &packed);
    EXPECT_EQ(packed, 0u);
    EXPECT_EQ(r[0], root_only);
}

TEST(LazyValue, JsonExpandsAndMarksWhatDoesNotExpand) {
    auto l = pack_lazy(body_value(), codec_id::zlib);
    ASSERT_TRUE(l);
    const message lazy_m{make_record(doc_type(), {1, "t", *l})};
    const message plain_m{make_record(doc_type(), {1, "t", body_value()})};
    std::string json;
    EXPECT_FALSE(append_json(lazy_m, json));
    EXPECT_EQ(json, to_json(plain_m));
    const message bad{list{lazy_value(codec_id::zlib, 10, {1, 2, 3})}};
    json.clear();
    EXPECT_EQ(append_json(bad, json), proto_errc::decompress_failed);
    EXPECT_EQ(json, R"([{"$lazy_error":"decompress_failed"}])");
}

}  // namespace
}  // namespace objwire
