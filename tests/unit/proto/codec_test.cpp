#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "proto/hex_string.hpp"
#include "proto/wire.hpp"
#include "test_support.hpp"

namespace objwire {
namespace {

using test::person;
using test::round_trip;

std::error_code decode_bytes(std::vector<std::uint8_t> bytes, decoder_limits limits = {}) {
    stream_decoder dec(limits);
    return dec.decode_payload(bytes, [](message&&) {});
}

TEST(Codec, EveryValueKindRoundTrips) {
    auto point = make_record_type("Point", {"x", "y"});
    map m{{"a", 1}, {"b", "two"}, {"", value{}}};
    list l{value{},
           true,
           false,
           std::int64_t{0},
           std::int64_t{-17},
           std::int64_t{47},
           std::int64_t{48},
           std::numeric_limits<std::int64_t>::min(),
           std::numeric_limits<std::int64_t>::max(),
           0.0,
           -0.0,
           3.25,
           1e300,
           std::numeric_limits<double>::infinity(),
           "",
           "h\xC3\xA9llo",
           bytes{{0, 1, 255}},
           bytes{},
           m,
           list{},
           make_record(point, {1.5, -2})};
    message in{l, {}};
    auto out = round_trip({in});
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0], in);
}

TEST(Codec, NanSurvivesBitForBit) {
    message in{std::numeric_limits<double>::quiet_NaN(), {}};
    auto out = round_trip({in});
    ASSERT_EQ(out.size(), 1u);
    EXPECT_TRUE(std::isnan(out[0].root.get<double>()));
}

TEST(Codec, StringsAndTypesAreSentOnceThenReferenced) {
    encoder_options opts;
    stream_encoder enc(opts);
    byte_buffer first, second;
    ASSERT_FALSE(enc.encode(person(100), first));
    ASSERT_FALSE(enc.encode(person(101), second));
    // Second message: record tag, two one-byte string refs, the age as a one-byte change.
    EXPECT_EQ(second.size(), 4u);
    EXPECT_GT(first.size(), 30u);  // descriptor and both strings spelled out
    // Ids in insertion order: "Person", 3 field names, the type, "Heinz", "Kabutz".
    EXPECT_EQ(second.data()[0], wire::short_record + 4);
    EXPECT_EQ(second.data()[1], wire::short_string_ref + 5);
    EXPECT_EQ(second.data()[2], wire::short_string_ref + 6);
    EXPECT_EQ(enc.table().hits, 2u);
}

TEST(Codec, PersonStreamCostsFourBytesPerObject) {
    std::vector<message> in;
    for (int i = 0; i < 10'000; ++i)
        in.push_back(person(i));
    std::size_t wire = 0;
    auto out = round_trip(in, {}, &wire);
    ASSERT_EQ(out, in);
    // 1 record byte, 2 string refs, the age as a one-byte change.
    EXPECT_LT(static_cast<double>(wire) / in.size(), 4.01);
}

TEST(Codec, DecodedRecordsShareOneDescriptor) {
    auto out = round_trip({person(1), person(2)});
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(out[0].root.get<record>().type.get(), out[1].root.get<record>().type.get());
}

TEST(Codec, ExplicitResetClearsBothTables) {
    stream_encoder enc({});
    byte_buffer buf;
    ASSERT_FALSE(enc.encode(person(1), buf));
    const auto before = buf.size();
    enc.reset(buf);
    ASSERT_FALSE(enc.encode(person(2), buf));
    // After the reset byte the strings and the type are spelled out again.
    EXPECT_EQ(buf.size(), 2 * before + 1);
    EXPECT_EQ(enc.table().resets, 1u);
    stream_decoder dec({});
    std::vector<message> out;
    ASSERT_FALSE(dec.decode_payload(buf.span(), [&](message&& m) { out.push_back(m); }));
    EXPECT_EQ(out, (std::vector<message>{person(1), person(2)}));
    EXPECT_EQ(dec.table().resets, 1u);
}

TEST(Codec, ResetCadenceEveryNMessages) {
    encoder_options opts;
    opts.reset = {reset_policy::kind::every_messages, 10};
    stream_encoder enc(opts);
    byte_buffer buf;
    for (int i = 0; i < 100; ++i)
        ASSERT_FALSE(enc.encode(person(i), buf));
    EXPECT_EQ(enc.table().resets, 9u);
    stream_decoder dec({});
    std::size_t n = 0;
    ASSERT_FALSE(dec.decode_payload(
        buf.span(), [&](message&& m) { EXPECT_EQ(m, person(static_cast<std::int64_t>(n++))); }));
    EXPECT_EQ(n, 100u);
}

TEST(Codec, FullTableEvictsInStepWithTheReceiver) {
    decoder_limits limits;
    limits.table_budget = 4096;
    encoder_options opts;
    opts.peer = limits;
    opts.reset = {reset_policy::kind::never, 0};
    stream_encoder enc(opts);
    stream_decoder dec(limits);
    byte_buffer buf;
    auto type = make_record_type("Pair", {"constant", "unique"});
    for (int i = 0; i < 2000; ++i) {
        message m{make_record(type, {"constant", "unique-" + std::to_string(i)}), {}};
        buf.clear();
        ASSERT_FALSE(enc.encode(m, buf));
        ASSERT_FALSE(dec.decode_payload(buf.span(), [&](message&& got) { EXPECT_EQ(got, m); }));
        ASSERT_LE(dec.table().bytes, limits.table_budget);
        ASSERT_EQ(dec.table().bytes, enc.table().bytes);
        ASSERT_EQ(dec.table().entries, enc.table().entries);
    }
    EXPECT_GT(enc.table().evictions, 1000u);
    EXPECT_EQ(enc.table().evictions, dec.table().evictions);
    EXPECT_EQ(enc.table().resets, 0u);
    // The constant and the type were used by every message: CLOCK kept them.
    buf.clear();
    ASSERT_FALSE(enc.encode({make_record(type, {"constant", "x"}), {}}, buf));
    EXPECT_LT(buf.data()[0], wire::short_record + 64);  // the type by reference
    EXPECT_GE(buf.data()[0], wire::short_record);
    EXPECT_GE(buf.data()[1], wire::short_string_ref);  // "constant" by reference
    EXPECT_LT(buf.data()[1], wire::short_record);
}

TEST(Codec, AdaptiveIndexesOnlyFieldsThatRecur) {
    encoder_options opts;  // adaptive is the default
    stream_encoder enc(opts);
    byte_buffer buf;
    auto type = make_record_type("Event", {"level", "user"});
    const char* levels[] = {"INFO", "WARN", "ERROR"};
    for (int i = 0; i < 10'000; ++i)
        ASSERT_FALSE(
            enc.encode({make_record(type, {levels[i % 3], "user-" + std::to_string(i)}), {}}, buf));
    // The three levels, the type and its strings, and only a sliver of the unique users.
    EXPECT_LT(enc.table().inserts, 256u + 6u + 10'000u / 50);
    EXPECT_GT(enc.table().hits, 9'000u);
    stream_decoder dec({});
    std::size_t n = 0;
    ASSERT_FALSE(dec.decode_payload(buf.span(), [&](message&&) { ++n; }));
    EXPECT_EQ(n, 10'000u);
    EXPECT_EQ(dec.table().bytes, enc.table().bytes);
}

// What a type's fields taught outlives a reset (a receiver that stores fresh frames gets one
// per frame): a field of unique values does not index its first values all over again, and a
// field of recurring ones goes on indexing.
TEST(Codec, WhatAFieldLearntSurvivesAReset) {
    stream_encoder enc({});
    byte_buffer buf;
    auto type = make_record_type("Event", {"host", "user"});
    std::vector<message> sent;
    const auto event = [&](int i) {
        return message{
            make_record(type, {"host-" + std::to_string(i * 7 % 200), "user-" + std::to_string(i)}),
            {}};
    };
    for (int i = 0; i < 5000; ++i) {
        sent.push_back(event(i));
        ASSERT_FALSE(enc.encode(sent.back(), buf));
    }
    enc.reset(buf);
    const auto before = enc.table().inserts;
    for (int i = 5000; i < 6000; ++i) {
        sent.push_back(event(i));
        ASSERT_FALSE(enc.encode(sent.back(), buf));
    }
    // The type and its three strings, the 200 hosts once each, and users only in samples
    // (one in 64) - not the 256 a field is given before it is judged.
    EXPECT_LT(enc.table().inserts - before, 4u + 200u + 1000u / 64 + 4u);
    EXPECT_GT(enc.table().hits, 1000u);
    stream_decoder dec({});
    std::vector<message> got;
    ASSERT_FALSE(dec.decode_payload(buf.span(), [&](message&& m) { got.push_back(m); }));
    EXPECT_EQ(got, sent);
}

// A field whose values stopped recurring is looked up only in samples (one in 64); once its
// values recur again the samples see it, and it goes back to references.
TEST(Codec, AFieldThatDeclinedIndexesAgainWhenItsValuesRecur) {
    stream_encoder enc({});
    byte_buffer buf;
    auto type = make_record_type("Login", {"user"});
    std::vector<message> sent;
    for (int i = 0; i < 10'000; ++i)
        sent.push_back({make_record(type, {"user-" + std::to_string(i)}), {}});
    for (int i = 0; i < 30'000; ++i)
        sent.push_back({make_record(type, {"alice"}), {}});
    std::size_t last_at = 0;
    for (std::size_t i = 0; i < sent.size(); ++i) {
        last_at = buf.size();
        ASSERT_FALSE(enc.encode(sent[i], buf));
        if (i == 9'999) {
            EXPECT_LT(enc.table().inserts, 256u + 2u + 10'000u / 60);
        }
    }
    // The type by a one-byte reference, then "alice" by reference (tag and id), not literally.
    EXPECT_EQ(buf.data()[last_at + 1], wire::tag_string_ref);
    EXPECT_LE(buf.size() - last_at, 4u);
    EXPECT_GT(enc.table().hits, 20'000u);  // back to references within the first 10,000
    stream_decoder dec({});
    std::vector<message> got;
    ASSERT_FALSE(dec.decode_payload(buf.span(), [&](message&& m) { got.push_back(m); }));
    EXPECT_EQ(got, sent);
    EXPECT_EQ(dec.table().bytes, enc.table().bytes);
}

TEST(Codec, IntegerFieldsTravelAsChanges) {
    auto type = make_record_type("Tick", {"ts", "seq"});
    stream_encoder enc({});
    byte_buffer first, later;
    ASSERT_FALSE(
        enc.encode({make_record(type, {std::int64_t{1'700'000'000'000'000}, 1000}), {}}, first));
    ASSERT_FALSE(
        enc.encode({make_record(type, {std::int64_t{1'700'000'000'000'900}, 1001}), {}}, later));
    // record byte, ts as a 2-byte varint change with its tag, seq as a one-byte change.
    EXPECT_EQ(later.size(), 1u + 3u + 1u);
    std::vector<std::uint8_t> stream(first.data(), first.data() + first.size());
    stream.insert(stream.end(), later.data(), later.data() + later.size());
    stream_decoder dec({});
    std::vector<message> out;
    ASSERT_FALSE(dec.decode_payload(stream, [&](message&& m) { out.push_back(m); }));
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(out[1].root.get<record>().fields[0].get<std::int64_t>(), 1'700'000'000'000'900);
    EXPECT_EQ(out[1].root.get<record>().fields[1].get<std::int64_t>(), 1001);
}

TEST(Codec, ExtremeIntegerChangesWrapCorrectly) {
    auto type = make_record_type("Wide", {"v"});
    const std::int64_t values[] = {0,
                                   std::numeric_limits<std::int64_t>::max(),
                                   std::numeric_limits<std::int64_t>::min(),
                                   -1,
                                   5,
                                   6,
                                   7};
    std::vector<message> in;
    for (auto v : values)
        in.push_back({make_record(type, {v}), {}});
    EXPECT_EQ(round_trip(in), in);
}

TEST(Codec, TransientFieldsAreNotSent) {
    encoder_options opts;
    opts.transient["Person"] = {"surname"};
    stream_encoder enc(opts);
    byte_buffer buf;
    ASSERT_FALSE(enc.encode(person(7), buf));
    stream_decoder dec({});
    std::vector<message> out;
    ASSERT_FALSE(dec.decode_payload(buf.span(), [&](message&& m) { out.push_back(m); }));
    ASSERT_EQ(out.size(), 1u);
    const auto& r = out[0].root.get<record>();
    EXPECT_EQ(r.type->fields, (std::vector<std::string>{"firstName", "age"}));
    EXPECT_EQ(r.fields, (std::vector<value>{"Heinz", std::int64_t{7}}));
    EXPECT_EQ(
        std::string_view(reinterpret_cast<const char*>(buf.data()), buf.size()).find("Kabutz"),
        std::string_view::npos);
}

TEST(Codec, DeltaOutsideARecordFieldIsRefused) {
    EXPECT_EQ(decode_bytes({wire::short_delta + 9}), proto_errc::unknown_tag);
    EXPECT_EQ(decode_bytes({wire::tag_list, 1, wire::tag_int_delta, 2}), proto_errc::unknown_tag);
}

TEST(Codec, SharedObjectsKeepIdentityAndCyclesClose) {
    auto trip = make_record_type("Trip", {"id", "stops", "back"});
    auto point = make_record_type("Point", {"x", "y"});
    message in;
    in.objects.push_back(
        make_record(trip, {7, list{object_ref{1}, object_ref{2}, object_ref{1}}, object_ref{0}}));
    in.objects.push_back(make_record(point, {1, 2}));
    in.objects.push_back(make_record(point, {3, 4}));
    in.root = object_ref{0};
    auto out = round_trip({in});
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0], canonical(in));
    const auto& t = out[0].objects[out[0].root.get<object_ref>().index].get<record>();
    EXPECT_EQ(t.fields[2].get<object_ref>().index, out[0].root.get<object_ref>().index);
    const auto& stops = t.fields[1].get<list>();
    EXPECT_EQ(stops[0].get<object_ref>().index, stops[2].get<object_ref>().index);
    EXPECT_NE(stops[0].get<object_ref>().index, stops[1].get<object_ref>().index);
    EXPECT_EQ(out[0].objects.size(), 3u);
}

TEST(Codec, CanonicalRenumbersAndDropsUnreferenced) {
    message in;
    in.objects = {value{"unused"}, value{"b"}, value{list{object_ref{1}}}};
    in.root = list{object_ref{2}, object_ref{1}};
    auto c = canonical(in);
    EXPECT_EQ(c.objects.size(), 2u);
    EXPECT_EQ(c.root, (value{list{object_ref{0}, object_ref{1}}}));
    EXPECT_EQ(round_trip({in})[0], c);
}

TEST(Codec, EncoderRefusesWhatTheReceiverWould) {
    decoder_limits limits;
    limits.max_depth = 3;
    encoder_options opts;
    opts.peer = limits;
    stream_encoder enc(opts);
    byte_buffer buf;
    EXPECT_EQ(enc.encode({list{list{list{list{}}}}, {}}, buf), proto_errc::depth_exceeded);
    EXPECT_EQ(buf.size(), 1u);  // only the reset that keeps the tables in step
    EXPECT_EQ(enc.encode({std::string("bad \xFF utf8"), {}}, buf), proto_errc::invalid_utf8);
    EXPECT_EQ(enc.encode({object_ref{5}, {}}, buf), proto_errc::unknown_object);
    record broken{test::person_type(), {1}};
    EXPECT_EQ(enc.encode({broken, {}}, buf), proto_errc::bad_record);
    // The encoder is still usable and in step with a decoder.
    buf.clear();
    ASSERT_FALSE(enc.encode(person(5), buf));
    stream_decoder dec(limits);
    std::vector<message> out;
    ASSERT_FALSE(dec.decode_payload(buf.span(), [&](message&& m) { out.push_back(m); }));
    EXPECT_EQ(out, std::vector<message>{person(5)});
}

TEST(Decoder, RejectsEachBadInputWithItsOwnError) {
    using v = std::vector<std::uint8_t>;
    EXPECT_EQ(decode_bytes(v{wire::tag_int}), proto_errc::truncated);
    EXPECT_EQ(decode_bytes(v{wire::tag_string, 5, 'a'}), proto_errc::truncated);
    EXPECT_EQ(decode_bytes(v{0x17}), proto_errc::unknown_tag);
    EXPECT_EQ(decode_bytes(v{wire::tag_string_ref, 3}), proto_errc::unknown_reference);
    EXPECT_EQ(decode_bytes(v{wire::short_string_ref}), proto_errc::unknown_reference);
    EXPECT_EQ(decode_bytes(v{wire::short_record + 2}), proto_errc::unknown_reference);
    EXPECT_EQ(decode_bytes(v{wire::tag_object_ref, 0}), proto_errc::unknown_object);
    EXPECT_EQ(decode_bytes(v{wire::tag_string, 2, 0xC3, 0x28}), proto_errc::invalid_utf8);
    EXPECT_EQ(decode_bytes(v{wire::tag_int, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
                             0xFF, 0x01}),
              proto_errc::bad_varint);
    // A list claiming a billion elements in a 6-byte payload: refused before allocating.
    EXPECT_EQ(decode_bytes(v{wire::tag_list, 0x80, 0x94, 0xEB, 0xDC, 0x03}),
              proto_errc::too_many_elements);
    decoder_limits small;
    small.max_string_bytes = 4;
    EXPECT_EQ(decode_bytes(v{wire::tag_string, 5, 'a', 'b', 'c', 'd', 'e'}, small),
              proto_errc::string_too_long);
    v deep(100'000, wire::tag_list);
    EXPECT_EQ(decode_bytes(deep), proto_errc::depth_exceeded);
}

// Ids and hashes in lowercase hex travel two digits a byte; anything else stays a plain
// literal, and every form decodes back to the same string.
TEST(Codec, HexDigitStringsTravelPacked) {
    const auto one = [](std::string s) {
        encoder_options o;
        o.max_indexed_string = 0;  // every string a literal, as unique ids are
        stream_encoder enc(o);
        byte_buffer buf;
        EXPECT_FALSE(enc.encode(message{value(s)}, buf));
        stream_decoder dec({});
        std::vector<message> out;
        EXPECT_FALSE(dec.decode_payload(buf.span(), [&](message&& m) { out.push_back(m); }));
        EXPECT_EQ(out, std::vector<message>{message{value(s)}}) << s;
        return std::vector<std::uint8_t>(buf.data(), buf.data() + buf.size());
    };
    const auto packed = one("00ff3a9c5b7e1d24");  // a 16-digit user id
    ASSERT_EQ(packed.size(), 10u);                // tag, length 8, 8 bytes - not 18
    EXPECT_EQ(packed[0], wire::tag_hex_string);
    EXPECT_EQ(packed[1], 8u);
    EXPECT_EQ(packed[2], 0x00u);
    EXPECT_EQ(packed[3], 0xFFu);
    EXPECT_EQ(packed[4], 0x3Au);
    for (const char* plain : {"00ff3a9c5b7e1d2", "00FF3A9C", "ab", "", "0x12", "deadbeefg0"}) {
        const auto bytes = one(plain);
        ASSERT_FALSE(bytes.empty());
        EXPECT_EQ(bytes[0], wire::tag_string) << plain;
    }
    EXPECT_EQ(one("beef")[0], wire::tag_hex_string);  // the shortest packed form
}

// Digits are checked and packed eight at a time, the rest two at a time: every even length
// packs and comes back, and one byte outside 0-9a-f anywhere keeps the string literal.
TEST(Codec, HexPackingChecksEveryDigitAtEveryLength) {
    const std::string digits = "0123456789abcdef";
    for (std::size_t n = 4; n <= 40; n += 2) {
        std::string s;
        for (std::size_t i = 0; i < n; ++i)
            s += digits[(i * 7 + n) % 16];
        std::vector<std::uint8_t> packed(n / 2);
        ASSERT_TRUE(try_pack_hex(s, packed.data())) << s;
        std::string back;
        unpack_hex(packed.data(), packed.size(), back);
        EXPECT_EQ(back, s);
        for (std::size_t i = 0; i < n; ++i) {
            for (char bad : {'g', 'A', 'F', '/', ':', '`', ' ', '\x80', '\xE6'}) {
                std::string t = s;
                t[i] = bad;
                EXPECT_FALSE(try_pack_hex(t, packed.data())) << n << " at " << i << " " << bad;
            }
        }
    }
}

TEST(Decoder, RefusesBadPackedHexStrings) {
    using v = std::vector<std::uint8_t>;
    EXPECT_EQ(decode_bytes(v{wire::tag_hex_string, 3, 0xAB}), proto_errc::truncated);
    EXPECT_EQ(decode_bytes(v{wire::tag_hex_string, 1, 0xAB}), proto_errc::bad_message);
    EXPECT_EQ(decode_bytes(v{wire::tag_hex_string, 0}), proto_errc::bad_message);
    decoder_limits small;
    small.max_string_bytes = 5;  // 3 bytes would unpack to 6 digits
    EXPECT_EQ(decode_bytes(v{wire::tag_hex_string, 3, 1, 2, 3}, small),
              proto_errc::string_too_long);
    EXPECT_FALSE(decode_bytes(v{wire::tag_hex_string, 2, 1, 2}, small));
}

TEST(Decoder, RefusesStreamOverTheAnnouncedBudget) {
    decoder_limits limits;
    limits.table_budget = 48;
    // One 20-byte string costs 52: more than the whole budget, nothing to evict makes it fit.
    std::vector<std::uint8_t> bytes{wire::tag_string_new, 20};
    bytes.insert(bytes.end(), 20, 'a');
    EXPECT_EQ(decode_bytes(bytes, limits), proto_errc::table_budget_exceeded);
    // A smaller one fits; then a record pinning its type leaves too little for a new string.
    limits.table_budget = 100;
    std::vector<std::uint8_t> pinned{wire::tag_record_new,
                                     wire::tag_string,
                                     1,
                                     'T',
                                     1,
                                     wire::tag_string,
                                     1,
                                     'f',  // type "T"{f}: 32+1+1+8 = 42
                                     wire::tag_string_new,
                                     30};  // 62 more: 104 > 100
    pinned.insert(pinned.end(), 30, 'b');
    EXPECT_EQ(decode_bytes(pinned, limits), proto_errc::table_budget_exceeded);
}

TEST(Decoder, ErrorPoisonsTheDecoder) {
    stream_decoder dec({});
    std::vector<std::uint8_t> bad{0x17};
    EXPECT_EQ(dec.decode_payload(bad, [](message&&) {}), proto_errc::unknown_tag);
    std::vector<std::uint8_t> good{wire::tag_null};
    EXPECT_EQ(dec.decode_payload(good, [](message&&) {}), proto_errc::unknown_tag);
}

}  // namespace
}  // namespace objwire

namespace objwire {
namespace {

// Java's failure: re-writing a mutated object sends only its handle and the receiver sees the
// first state forever. A kept object sends its new state when it changed, a back-reference
// when it did not.
TEST(SharedAcrossMessages, MutatedObjectDeliversEveryStateUnchangedCostsAReference) {
    stream_encoder enc({});
    stream_decoder dec({});
    constexpr std::uint64_t key = 42;
    std::vector<std::size_t> sizes;
    for (int round = 0; round < 6; ++round) {
        const std::int64_t age = round < 3 ? round : 2;  // changes, then stays
        message m;
        m.objects.push_back(make_record(test::person_type(), {"Heinz", "Kabutz", age}));
        m.shared_keys = {key};
        m.root = list{object_ref{0}, object_ref{0}};
        byte_buffer buf;
        ASSERT_FALSE(enc.encode(m, buf));
        sizes.push_back(buf.size());
        std::vector<message> out;
        ASSERT_FALSE(dec.decode_payload(buf.span(), [&](message&& got) { out.push_back(got); }));
        ASSERT_EQ(out.size(), 1u);
        EXPECT_EQ(out[0], m) << "round " << round;  // every age arrives, identity kept
    }
    // Rounds 3..5 repeat round 2's state: list tag, count, kept-object tag + id, object ref.
    EXPECT_EQ(sizes[3], 1u + 1u + 2u + 2u);
    EXPECT_EQ(sizes[5], sizes[3]);
    EXPECT_GT(sizes[1], sizes[3]);  // a change travels in full
}

TEST(SharedAcrossMessages, KeptObjectsStayWithinTheBudget) {
    decoder_limits limits;
    limits.table_budget = 2048;
    encoder_options opts;
    opts.peer = limits;
    stream_encoder enc(opts);
    stream_decoder dec(limits);
    for (std::uint64_t k = 1; k <= 300; ++k) {
        message m;
        m.objects.push_back(std::string(40, static_cast<char>('a' + k % 26)) + std::to_string(k));
        m.shared_keys = {k};
        m.root = object_ref{0};
        byte_buffer buf;
        ASSERT_FALSE(enc.encode(m, buf));
        ASSERT_FALSE(dec.decode_payload(buf.span(), [&](message&& got) { EXPECT_EQ(got, m); }));
        ASSERT_LE(dec.table().bytes, limits.table_budget);
        ASSERT_EQ(dec.table().bytes, enc.table().bytes);
    }
}

TEST(SharedAcrossMessages, AKeptObjectMayNotHoldHandles) {
    // tag_object_keep around a list holding an object reference to itself.
    std::vector<std::uint8_t> bytes{wire::tag_object_keep, wire::tag_list, 1, wire::tag_object_ref,
                                    0};
    stream_decoder dec({});
    EXPECT_EQ(dec.decode_payload(bytes, [](message&&) {}), proto_errc::bad_message);
}

}  // namespace
}  // namespace objwire
