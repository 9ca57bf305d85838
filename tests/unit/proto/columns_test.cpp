// The column layout of frame payloads (docs/PROTOCOL.md 4.2): what goes in which section, that
// every kind of message survives it, that a directory which does not describe its payload is
// refused, and that zstd-stream carries it section by section.
#include <gtest/gtest.h>

#include <algorithm>

#include "client/workloads/workloads.hpp"
#include "proto/codec.hpp"
#include "proto/columns.hpp"
#include "proto/wire.hpp"
#include "test_support.hpp"

namespace objwire {
namespace {

using bytes_t = std::vector<std::uint8_t>;

// Ten fields: the last three share the eighth field section.
record_type_ptr wide_type() {
    static const auto t =
        make_record_type("Wide", {"f0", "f1", "f2", "f3", "f4", "f5", "f6", "f7", "f8", "f9"});
    return t;
}

message wide(int i) {
    message m;
    m.objects.push_back(test::person(i).root);
    m.root = make_record(
        wide_type(), {std::int64_t{i}, "text-" + std::to_string(i % 5), test::person(i).root,
                      list{std::int64_t{1}, "x", std::int64_t{i}}, object_ref{0}, value{}, 1.5 * i,
                      i % 2 == 0, "seven", object_ref{0}});
    return m;
}

// Events, persons, wide records and messages whose root is no record, interleaved.
std::vector<message> mixed(int n) {
    auto events = workloads::make("events");
    std::vector<message> out;
    for (int i = 0; i < n; ++i) {
        message e;
        events->next(e);
        out.push_back(std::move(e));
        out.push_back(test::person(i));
        out.push_back(wide(i));
        if (i % 7 == 0) out.push_back(message{list{std::int64_t{i}, "root list"}});
        if (i % 11 == 0) out.push_back(message{object_ref{0}, {test::person(-i).root}});
    }
    return out;
}

// Encodes `msgs` into one column payload.
bytes_t column_payload(stream_encoder& enc, const std::vector<message>& msgs) {
    byte_buffer main;
    column_sections sections;
    for (const auto& m : msgs)
        EXPECT_FALSE(enc.encode(m, main, sections));
    byte_buffer out;
    sections.write_payload(main.span(), out);
    return {out.data(), out.data() + out.size()};
}

std::error_code decode(stream_decoder& dec, const bytes_t& payload, std::vector<message>* got) {
    return dec.decode_payload(payload, [&](message&& m) {
        if (got) got->push_back(std::move(m));
    });
}

TEST(Columns, EveryKindOfMessageSurvivesTheLayoutFrameAfterFrame) {
    const auto msgs = mixed(300);
    stream_encoder enc({});
    stream_decoder dec({});
    std::vector<message> got;
    // Several payloads through one table: references made in one are resolved in the next.
    for (std::size_t from = 0; from < msgs.size(); from += 97) {
        const std::vector<message> part(
            msgs.begin() + static_cast<std::ptrdiff_t>(from),
            msgs.begin() + static_cast<std::ptrdiff_t>(std::min(msgs.size(), from + 97)));
        const auto payload = column_payload(enc, part);
        ASSERT_TRUE(has_columns(payload));
        ASSERT_FALSE(decode(dec, payload, &got));
    }
    EXPECT_EQ(got, msgs);
    EXPECT_EQ(dec.table().bytes, enc.table().bytes);
}

TEST(Columns, ColumnsAndPlainPayloadsMixOnOneTable) {
    const auto msgs = mixed(60);
    stream_encoder enc({});
    stream_decoder dec({});
    std::vector<message> got;
    for (std::size_t i = 0; i < msgs.size(); ++i) {
        if (i % 2 == 0) {
            ASSERT_FALSE(decode(dec, column_payload(enc, {msgs[i]}), &got));
        } else {
            byte_buffer plain;
            ASSERT_FALSE(enc.encode(msgs[i], plain));
            ASSERT_FALSE(decode(dec, {plain.data(), plain.data() + plain.size()}, &got));
        }
    }
    EXPECT_EQ(got, msgs);
}

// Field i of a root record in field section min(i, 7); a record nested in a field stays in
// its field's section; the record's own tag in the main one.
TEST(Columns, EachRootFieldGoesToItsSection) {
    stream_encoder enc({});
    const auto payload = column_payload(enc, {wide(3)});
    column_directory d;
    ASSERT_EQ(read_column_payload(payload, d), proto_errc::ok);
    ASSERT_EQ(d.count, max_sections);
    const auto text = [&](std::size_t section) {
        const auto s = column_section(payload, d, section);
        return std::string(s.begin(), s.end());
    };
    EXPECT_NE(text(2).find("text-3"), std::string::npos);
    EXPECT_NE(text(3).find("Kabutz"), std::string::npos) << "the nested record, whole";
    EXPECT_NE(text(3).find("Person"), std::string::npos);
    EXPECT_NE(text(8).find("seven"), std::string::npos) << "fields 7-9 share the last section";
    EXPECT_NE(text(0).find("Wide"), std::string::npos) << "the root's descriptor";
    for (std::size_t s : {0, 1, 2, 4, 5, 6, 7, 8})
        EXPECT_EQ(text(s).find("Kabutz"), std::string::npos) << s;
    EXPECT_EQ(d.lengths[6], 1u) << "field 5: one null tag";
    EXPECT_EQ(column_section(payload, d, 6)[0], wire::tag_null);
}

TEST(Columns, TrailingEmptySectionsAreLeftOut) {
    stream_encoder enc({});
    const auto payload = column_payload(enc, {test::person(1)});
    column_directory d;
    ASSERT_EQ(read_column_payload(payload, d), proto_errc::ok);
    EXPECT_EQ(d.count, 4u);  // main + three fields
    const auto only_lists = column_payload(enc, {message{list{}}});
    ASSERT_EQ(read_column_payload(only_lists, d), proto_errc::ok);
    EXPECT_EQ(d.count, 2u);  // a directory names at least one field section
    EXPECT_EQ(d.lengths[1], 0u);
}

// A directory that does not describe its payload, and payloads that do not fit their
// directory, are refused with a clear error and poison the decoder.
TEST(Columns, ADirectoryThatLiesIsRefused) {
    const auto refuse = [](bytes_t payload, proto_errc want) {
        stream_decoder dec({});
        EXPECT_EQ(decode(dec, payload, nullptr), want) << ::testing::PrintToString(payload);
        EXPECT_EQ(decode(dec, bytes_t{wire::tag_null}, nullptr), want) << "poisoned";
    };
    const std::uint8_t c = wire::tag_columns, n = wire::tag_null;
    refuse({c}, proto_errc::truncated);
    refuse({c, 1, 1, n}, proto_errc::bad_columns);                              // no field section
    refuse({c, 10, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, n}, proto_errc::bad_columns);  // ten
    refuse({c, 2, 1, 0}, proto_errc::bad_columns);        // sections past the end
    refuse({c, 2, 1, 0, n, n}, proto_errc::bad_columns);  // bytes after them
    refuse({c, 2, 0x80}, proto_errc::truncated);          // a length cut short
    refuse({c, 2, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F, 0, n}, proto_errc::bad_columns);  // 4 GiB
    // The root record Person (3 fields) with only one field section: fields 1 and 2 have none.
    stream_encoder enc({});
    byte_buffer main;
    column_sections sections;
    ASSERT_FALSE(enc.encode(test::person(5), main, sections));
    bytes_t cut{c, 2, static_cast<std::uint8_t>(main.size()),
                static_cast<std::uint8_t>(sections.fields()[0].size())};
    cut.insert(cut.end(), main.data(), main.data() + main.size());
    const auto f0 = sections.fields()[0].span();
    cut.insert(cut.end(), f0.begin(), f0.end());
    refuse(cut, proto_errc::bad_columns);
    // A directory anywhere but the start is no value.
    refuse({wire::tag_reset, c, 2, 0, 0}, proto_errc::unknown_tag);
}

TEST(Columns, ATrailingByteInAFieldSectionIsRefused) {
    stream_encoder enc({});
    auto payload = column_payload(enc, {test::person(6)});
    column_directory d;
    ASSERT_EQ(read_column_payload(payload, d), proto_errc::ok);
    ASSERT_LT(d.lengths[1], 0x7Fu);
    payload[3] += 1;  // the main section's length is payload[2], the first field's payload[3]
    payload.insert(
        payload.begin() + static_cast<std::ptrdiff_t>(d.header_bytes + d.lengths[0] + d.lengths[1]),
        wire::tag_null);
    stream_decoder dec({});
    EXPECT_EQ(decode(dec, payload, nullptr), proto_errc::trailing_bytes);
}

// A root record's field count is checked against the bytes of every section, not the main
// one alone (which holds only the record's tag), and still refuses a count no bytes back.
TEST(Columns, FieldCountsAreCheckedAgainstAllSections) {
    std::vector<std::string> names;
    for (char c = 'a'; c < 'a' + 26; ++c)
        names.emplace_back(1, c);
    auto many = make_record_type("Many", names);
    std::vector<value> fields(names.size(), value{std::int64_t{1}});
    stream_encoder enc({});
    const auto payload = column_payload(enc, {message{make_record(many, fields)}});
    stream_decoder dec({});
    std::vector<message> got;
    ASSERT_FALSE(decode(dec, payload, &got));
    ASSERT_EQ(got.size(), 1u);
    // The same descriptor with 40 fields and no field bytes at all.
    column_directory d;
    ASSERT_EQ(read_column_payload(payload, d), proto_errc::ok);
    const auto main = column_section(payload, d, 0);
    ASSERT_LT(main.size(), 0x80u);  // its length is written as one byte below
    bytes_t starved{wire::tag_columns, 2, static_cast<std::uint8_t>(main.size()), 0};
    starved.insert(starved.end(), main.begin(), main.end());
    stream_decoder fresh({});
    EXPECT_EQ(decode(fresh, starved, nullptr), proto_errc::truncated);
}

// zstd-stream frames of column payloads, section by section, interleaved with whole ones and
// a change of level: each decodes to exactly its payload, in order.
TEST(Columns, ZstdStreamCarriesSectionsInTheirOwnContexts) {
    const auto msgs = mixed(400);
    stream_encoder enc({});
    frame_compressor z;
    frame_decompressor u;
    stream_decoder dec({});
    std::vector<message> got;
    std::size_t column_frames = 0;
    for (std::size_t from = 0, k = 0; from < msgs.size(); from += 50, ++k) {
        const std::vector<message> part(
            msgs.begin() + static_cast<std::ptrdiff_t>(from),
            msgs.begin() + static_cast<std::ptrdiff_t>(std::min(msgs.size(), from + 50)));
        bytes_t raw;
        if (k % 3 == 2) {
            byte_buffer plain;
            for (const auto& m : part)
                ASSERT_FALSE(enc.encode(m, plain));
            raw.assign(plain.data(), plain.data() + plain.size());
        } else {
            raw = column_payload(enc, part);
        }
        byte_buffer packed;
        ASSERT_FALSE(z.compress(codec_id::zstd_stream, k < 10 ? 3 : 9, raw, packed));
        EXPECT_EQ(z.stream_columns(), has_columns(raw));
        EXPECT_EQ(z.stream_started(), k == 0 || k == 10);
        column_frames += z.stream_columns();
        byte_buffer out;
        ASSERT_FALSE(u.decompress(codec_id::zstd_stream, packed.span(),
                                  static_cast<std::uint32_t>(raw.size()), out, z.stream_flags()))
            << k;
        ASSERT_EQ(bytes_t(out.data(), out.data() + out.size()), raw) << k;
        ASSERT_FALSE(decode(dec, raw, &got));
    }
    EXPECT_GT(column_frames, 3u);
    EXPECT_EQ(got, msgs);
}

// Broken pieces: a stored length past the end, a piece for an empty section, a raw size that
// is not the directory's, a piece that continues contexts never started.
TEST(Columns, ZstdStreamRefusesPiecesThatDoNotFit) {
    stream_encoder enc({});
    const auto raw = column_payload(enc, {test::person(1), test::person(2)});
    frame_compressor z;
    byte_buffer packed;
    ASSERT_FALSE(z.compress(codec_id::zstd_stream, 3, raw, packed));
    ASSERT_TRUE(z.stream_columns());
    const auto n = static_cast<std::uint32_t>(raw.size());
    const std::uint8_t both = frame_flag_stream_start | frame_flag_columns;
    const auto fails = [&](bytes_t in, std::uint32_t raw_len, std::uint8_t flags) {
        frame_decompressor u;
        byte_buffer out;
        return u.decompress(codec_id::zstd_stream, in, raw_len, out, flags) ==
               proto_errc::decompress_failed;
    };
    const bytes_t good(packed.data(), packed.data() + packed.size());
    EXPECT_FALSE(fails(good, n, both));
    EXPECT_TRUE(fails(good, n, frame_flag_columns)) << "contexts never started";
    EXPECT_TRUE(fails(good, n, frame_flag_stream_start)) << "read as one whole piece";
    EXPECT_TRUE(fails(good, n + 1, both));
    EXPECT_TRUE(fails(good, n - 1, both));
    auto longer = good;
    longer.push_back(0);
    EXPECT_TRUE(fails(longer, n, both)) << "a byte after the last piece";
    auto cut = good;
    cut.pop_back();
    EXPECT_TRUE(fails(cut, n, both));
}
// The sender writes column payloads only to a receiver that announced them (welcome field 15)
// and only while it compresses across frames.
struct sent_frame {
    codec_id codec;
    std::uint8_t flags;
    bytes_t raw;
};

// Sends 2,000 events and returns the frames as they went out, each decompressed; checks that
// they decode, in order, to exactly the events sent.
std::vector<sent_frame> frames_sent(bool receiver_takes_columns, compression_mode mode,
                                    std::uint32_t max_frame_bytes = 1 << 20) {
    sender::options so;
    so.greeting.client_name = "test";
    so.batch_max_bytes = 4096;
    so.compression.mode = mode;
    so.compression.codec = codec_id::zstd;
    sender s(so);
    s.consume_output();  // the hello
    welcome w;
    w.codecs = built_codecs();
    w.columns = receiver_takes_columns;
    w.next_sequence = 1;
    w.limits.max_frame_bytes = max_frame_bytes;
    byte_buffer payload, frame;
    encode_welcome(w, payload);
    append_frame(frame, frame_kind::welcome, 0, payload.span());
    auto space = s.prepare();
    std::copy_n(frame.data(), frame.size(), space.data());
    s.commit(frame.size());
    EXPECT_FALSE(s.process());
    auto events = workloads::make("events");
    std::vector<message> sent(2000);
    for (auto& m : sent) {
        events->next(m);
        EXPECT_FALSE(s.add(m));
    }
    s.seal();
    std::vector<sent_frame> out;
    frame_parser p(w.limits.max_frame_bytes);
    frame_decompressor u;
    auto bytes = s.output();
    while (!bytes.empty()) {
        auto r = p.parse(bytes);
        EXPECT_EQ(r.state, frame_parser::status::frame);
        if (r.state != frame_parser::status::frame) break;
        const auto& h = r.frame.header;
        byte_buffer raw;
        EXPECT_FALSE(u.decompress(h.codec, r.frame.payload, h.raw_len, raw, h.flags));
        out.push_back({h.codec, h.flags, {raw.data(), raw.data() + raw.size()}});
        bytes = bytes.subspan(r.size);
    }
    stream_decoder dec(w.limits);
    std::vector<message> got;
    for (const auto& f : out)
        EXPECT_FALSE(decode(dec, f.raw, &got));
    EXPECT_EQ(got, sent);
    return out;
}

TEST(Columns, TheSenderUsesThemOnlyWhenCompressingAcrossFramesForAReceiverThatTakesThem) {
    const auto count = [](const std::vector<sent_frame>& fs) {
        return std::count_if(fs.begin(), fs.end(), [](auto& f) { return has_columns(f.raw); });
    };
    const auto always = frames_sent(true, compression_mode::always);
    ASSERT_GT(always.size(), 10u);
    EXPECT_EQ(count(always), static_cast<std::ptrdiff_t>(always.size()));
    for (const auto& f : always)
        EXPECT_EQ(f.codec == codec_id::zstd_stream, (f.flags & frame_flag_columns) != 0);
    const auto older = frames_sent(false, compression_mode::always);
    ASSERT_GT(older.size(), 10u);
    EXPECT_EQ(count(older), 0);
    for (const auto& f : older)
        EXPECT_FALSE(f.flags & frame_flag_columns);
    const auto never = frames_sent(true, compression_mode::never);
    ASSERT_GT(never.size(), 10u);
    EXPECT_EQ(count(never), 0);
}

// Frames capped below the batch size by the receiver: each message that would overflow one
// moves to the next frame with its sections, and every frame stays within the cap.
TEST(Columns, AMessageThatOverflowsAFrameMovesToTheNextWithItsSections) {
    const auto frames = frames_sent(true, compression_mode::always, 1024);
    ASSERT_GT(frames.size(), 100u);
    for (const auto& f : frames) {
        EXPECT_TRUE(has_columns(f.raw));
        EXPECT_LE(f.raw.size(), 1024u);
    }
}

}  // namespace
}  // namespace objwire
