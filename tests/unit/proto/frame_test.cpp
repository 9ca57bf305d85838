#include <gtest/gtest.h>

#include "proto/crc32c.hpp"
#include "proto/frame_reader.hpp"
#include "test_support.hpp"

namespace objwire {
namespace {

using test::person;

// A stream of three data frames holding 30 person messages.
byte_buffer make_stream(std::vector<message>& sent) {
    stream_encoder enc({});
    byte_buffer stream;
    for (int f = 0; f < 3; ++f) {
        byte_buffer frame;
        frame.resize(frame_header_size);
        for (int i = 0; i < 10; ++i) {
            sent.push_back(person(f * 10 + i));
            EXPECT_FALSE(enc.encode(sent.back(), frame));
        }
        seal_frame(frame.span(), frame_kind::data, static_cast<std::uint64_t>(f + 1));
        stream.append(frame.span());
    }
    return stream;
}

// Feeds `stream` to a frame_reader in pieces cut at the given offsets and decodes everything.
std::vector<message> receive(std::span<const std::uint8_t> stream, std::vector<std::size_t> cuts) {
    frame_reader reader(1 << 20, 16);
    stream_decoder dec({});
    std::vector<message> got;
    std::uint64_t expected_seq = 1;
    cuts.push_back(stream.size());
    std::size_t pos = 0;
    for (std::size_t cut : cuts) {
        while (pos < cut) {
            auto space = reader.prepare();
            std::size_t n = std::min(space.size(), cut - pos);
            std::copy_n(stream.data() + pos, n, space.data());
            reader.commit(n);
            pos += n;
        }
        for (;;) {
            auto r = reader.next();
            if (r.state == frame_parser::status::need_more) break;
            EXPECT_EQ(r.state, frame_parser::status::frame);
            if (r.state != frame_parser::status::frame) return got;
            EXPECT_EQ(r.frame.header.sequence, expected_seq++);
            EXPECT_FALSE(dec.decode_payload(r.frame.payload,
                                            [&](message&& m) { got.push_back(std::move(m)); }));
        }
    }
    EXPECT_EQ(reader.buffered(), 0u);
    return got;
}

TEST(Frame, EveryFrameSplitAtEveryByteOffset) {
    std::vector<message> sent;
    byte_buffer stream = make_stream(sent);
    for (std::size_t cut = 0; cut <= stream.size(); ++cut) {
        auto got = receive(stream.span(), {cut});
        ASSERT_EQ(got, sent) << "split at " << cut;
    }
}

TEST(Frame, ByteAtATimeStillYieldsEveryFrame) {
    std::vector<message> sent;
    byte_buffer stream = make_stream(sent);
    std::vector<std::size_t> cuts;
    for (std::size_t i = 1; i < stream.size(); ++i)
        cuts.push_back(i);
    EXPECT_EQ(receive(stream.span(), cuts), sent);
}

TEST(Frame, HeaderLayoutMatchesTheSpec) {
    byte_buffer out;
    const std::uint8_t payload[] = {0xC1};
    append_frame(out, frame_kind::data, 0x0102, payload);
    ASSERT_EQ(out.size(), frame_header_size + 1);
    const std::uint8_t* h = out.data();
    EXPECT_EQ(h[0], 3);  // data
    EXPECT_EQ(h[1], 0);
    EXPECT_EQ(h[2], 0);
    EXPECT_EQ(h[3], 0);
    EXPECT_EQ(load_le<std::uint32_t>(h + 4), 1u);
    EXPECT_EQ(load_le<std::uint64_t>(h + 8), 0x0102u);
    EXPECT_EQ(load_le<std::uint32_t>(h + 16), 1u);
    std::uint32_t crc = crc32c(std::span<const std::uint8_t>(h, 20));
    crc = crc32c(std::span<const std::uint8_t>(h + 24, 1), crc);
    EXPECT_EQ(load_le<std::uint32_t>(h + 20), crc);
}

frame_parser::result parse_bytes(const byte_buffer& b, std::uint32_t max = 1 << 20) {
    return frame_parser(max).parse(b.span());
}

TEST(Frame, CorruptedPayloadFailsTheChecksum) {
    byte_buffer out;
    const std::uint8_t payload[] = {1, 2, 3, 4};
    append_frame(out, frame_kind::data, 1, payload);
    for (std::size_t i = 0; i < out.size(); ++i) {
        if (i >= 20 && i < 24) continue;  // the checksum itself
        byte_buffer copy;
        copy.append(out.span());
        copy.data()[i] ^= 0x40;
        auto r = parse_bytes(copy);
        EXPECT_EQ(r.state, frame_parser::status::error) << "flipped byte " << i;
    }
    byte_buffer copy;
    copy.append(out.span());
    copy.data()[25] ^= 1;
    EXPECT_EQ(parse_bytes(copy).error, proto_errc::bad_checksum);
}

TEST(Frame, OversizedFrameRefusedFromItsHeaderAlone) {
    byte_buffer out;
    std::vector<std::uint8_t> payload(2000, 0);
    append_frame(out, frame_kind::data, 1, payload);
    byte_buffer header_only;
    header_only.append(out.data(), frame_header_size);
    auto r = parse_bytes(header_only, 1024);
    EXPECT_EQ(r.state, frame_parser::status::error);
    EXPECT_EQ(r.error, proto_errc::frame_too_large);
}

TEST(Frame, TruncatedFrameNeedsMore) {
    byte_buffer out;
    const std::uint8_t payload[] = {1, 2, 3, 4};
    append_frame(out, frame_kind::data, 1, payload);
    byte_buffer part;
    part.append(out.data(), out.size() - 1);
    auto r = parse_bytes(part);
    EXPECT_EQ(r.state, frame_parser::status::need_more);
    EXPECT_EQ(r.size, out.size());
}

TEST(Frame, UnknownKindCodecAndReservedBitsAreRefused) {
    byte_buffer out;
    append_frame(out, frame_kind::data, 1, {});
    auto with = [&](std::size_t at, std::uint8_t v) {
        byte_buffer b;
        b.append(out.span());
        b.data()[at] = v;
        return parse_bytes(b).error;
    };
    EXPECT_EQ(with(0, 99), proto_errc::unknown_frame_kind);
    EXPECT_EQ(with(0, 13), proto_errc::unknown_frame_kind);  // one past sender_list
    EXPECT_EQ(with(1, 1), proto_errc::bad_reserved);
    EXPECT_EQ(with(2, 9), proto_errc::bad_codec);
    EXPECT_EQ(with(3, 1), proto_errc::bad_reserved);
}

// The kinds are wire values: each has its own number, and the last defined one parses.
TEST(Frame, KindsAreDistinctWireValues) {
    EXPECT_EQ(static_cast<int>(frame_kind::mark), 9);
    EXPECT_EQ(static_cast<int>(frame_kind::gap), 10);
    EXPECT_EQ(static_cast<int>(frame_kind::cursor_list), 11);
    byte_buffer out;
    const std::uint8_t payload[] = {1, 1, 'a', 2, 1, 7};
    append_frame(out, frame_kind::cursor_list, 0, payload);
    auto r = parse_bytes(out);
    ASSERT_EQ(r.state, frame_parser::status::frame);
    EXPECT_EQ(r.frame.header.kind, frame_kind::cursor_list);
}

}  // namespace
}  // namespace objwire
