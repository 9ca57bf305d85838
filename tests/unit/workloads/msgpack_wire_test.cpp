// tests/bench/msgpack_wire.hpp, the MessagePack the msgpack peer benchmark sends: bytes
// checked against the spec's examples and boundaries, round trips of every form, the events
// workload's records as maps and arrays, and truncated or foreign input.
#include "tests/bench/msgpack_wire.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "client/workloads/workloads.hpp"

namespace objwire::msgpack_wire {
namespace {

std::vector<std::uint8_t> bytes_of(const std::string& s) {
    return {s.begin(), s.end()};
}

template <class Put>
std::vector<std::uint8_t> encoded(Put put) {
    std::string out;
    put(out);
    return bytes_of(out);
}

// The one object `in` holds, decoded in full; nodes stay valid while `in` and `d` live.
const node& decode_one(decoder& d, const std::vector<std::uint8_t>& in) {
    std::size_t pos = 0;
    EXPECT_EQ(d.next(in, pos), decode_status::done);
    EXPECT_EQ(pos, in.size());
    return d.root();
}

// The decoded tree as an objwire value: arrays as lists, maps as maps (keys are strings here).
value to_value(const decoder& d, const node& n) {
    switch (n.type) {
        case kind::nil:
            return nullptr;
        case kind::boolean:
            return n.as.boolean;
        case kind::uinteger:
            return n.as.uinteger;
        case kind::integer:
            return n.as.integer;
        case kind::float64:
            return n.as.float64;
        case kind::str:
            return std::string(n.text());
        case kind::array: {
            list l;
            for (std::uint32_t i = 0; i < n.size; ++i)
                l.push_back(to_value(d, d.at(n.as.first + i)));
            return l;
        }
        case kind::map: {
            map m;
            for (std::uint32_t i = 0; i < n.size; ++i)
                m.emplace_back(std::string(d.at(n.as.first + 2 * i).text()),
                               to_value(d, d.at(n.as.first + 2 * i + 1)));
            return m;
        }
    }
    return nullptr;
}

value round_trip(const value& v, record_form form = record_form::map) {
    const auto in = encoded([&](std::string& out) { put_value(out, v, form); });
    decoder d;
    return to_value(d, decode_one(d, in));
}

using bytes = std::vector<std::uint8_t>;

TEST(MsgpackWire, ScalarsTakeTheSpecsSmallestForm) {
    EXPECT_EQ(encoded([](auto& o) { put_nil(o); }), (bytes{0xc0}));
    EXPECT_EQ(encoded([](auto& o) { put_bool(o, false); }), (bytes{0xc2}));
    EXPECT_EQ(encoded([](auto& o) { put_bool(o, true); }), (bytes{0xc3}));
    EXPECT_EQ(encoded([](auto& o) { put_int(o, 0); }), (bytes{0x00}));
    EXPECT_EQ(encoded([](auto& o) { put_int(o, 127); }), (bytes{0x7f}));
    EXPECT_EQ(encoded([](auto& o) { put_int(o, 128); }), (bytes{0xcc, 0x80}));
    EXPECT_EQ(encoded([](auto& o) { put_int(o, 256); }), (bytes{0xcd, 0x01, 0x00}));
    EXPECT_EQ(encoded([](auto& o) { put_int(o, 65536); }), (bytes{0xce, 0, 1, 0, 0}));
    EXPECT_EQ(encoded([](auto& o) { put_int(o, std::int64_t{1} << 32); }),
              (bytes{0xcf, 0, 0, 0, 1, 0, 0, 0, 0}));
    EXPECT_EQ(encoded([](auto& o) { put_int(o, -1); }), (bytes{0xff}));
    EXPECT_EQ(encoded([](auto& o) { put_int(o, -32); }), (bytes{0xe0}));
    EXPECT_EQ(encoded([](auto& o) { put_int(o, -33); }), (bytes{0xd0, 0xdf}));
    EXPECT_EQ(encoded([](auto& o) { put_int(o, -129); }), (bytes{0xd1, 0xff, 0x7f}));
    EXPECT_EQ(encoded([](auto& o) { put_int(o, -32769); }), (bytes{0xd2, 0xff, 0xff, 0x7f, 0xff}));
    EXPECT_EQ(encoded([](auto& o) { put_float64(o, 1.5); }),
              (bytes{0xcb, 0x3f, 0xf8, 0, 0, 0, 0, 0, 0}));
}

TEST(MsgpackWire, StringsArraysAndMapsTakeTheirLengthForms) {
    EXPECT_EQ(encoded([](auto& o) { put_str(o, "abc"); }), (bytes{0xa3, 'a', 'b', 'c'}));
    EXPECT_EQ(encoded([](auto& o) { put_str(o, std::string(32, 'x')); })[0], 0xd9);
    EXPECT_EQ(encoded([](auto& o) { put_str(o, std::string(31, 'x')); })[0], 0xbf);
    const auto str16 = encoded([](auto& o) { put_str(o, std::string(256, 'x')); });
    EXPECT_EQ(bytes(str16.begin(), str16.begin() + 3), (bytes{0xda, 0x01, 0x00}));
    EXPECT_EQ(encoded([](auto& o) { put_array_header(o, 15); }), (bytes{0x9f}));
    EXPECT_EQ(encoded([](auto& o) { put_array_header(o, 16); }), (bytes{0xdc, 0x00, 0x10}));
    EXPECT_EQ(encoded([](auto& o) { put_map_header(o, 15); }), (bytes{0x8f}));
    EXPECT_EQ(encoded([](auto& o) { put_map_header(o, 16); }), (bytes{0xde, 0x00, 0x10}));
}

// {"compact":true,"schema":0}, the example on msgpack.org.
TEST(MsgpackWire, MapMatchesTheFormatsOwnExample) {
    const value v = map{{"compact", true}, {"schema", 0}};
    EXPECT_EQ(encoded([&](auto& o) { put_value(o, v, record_form::map); }),
              (bytes{0x82, 0xa7, 'c', 'o', 'm', 'p', 'a', 'c', 't', 0xc3, 0xa6, 's', 'c', 'h', 'e',
                     'm', 'a', 0x00}));
}

TEST(MsgpackWire, IntegersRoundTripAtEveryBoundary) {
    const std::int64_t min = std::numeric_limits<std::int64_t>::min();
    const std::int64_t max = std::numeric_limits<std::int64_t>::max();
    for (std::int64_t v :
         {min, min + 1, std::int64_t{INT32_MIN} - 1, std::int64_t{INT32_MIN}, std::int64_t{-32769},
          std::int64_t{-32768}, std::int64_t{-129}, std::int64_t{-128}, std::int64_t{-33},
          std::int64_t{-32}, std::int64_t{-1}, std::int64_t{0}, std::int64_t{127},
          std::int64_t{255}, std::int64_t{65535}, std::int64_t{4294967295}, max}) {
        const auto back = round_trip(v);
        const auto* as_int = back.get_if<std::int64_t>();
        ASSERT_NE(as_int, nullptr) << v;
        EXPECT_EQ(*as_int, v);
    }
}

TEST(MsgpackWire, NestedValuesRoundTrip) {
    list long_list(70000, value(-5));
    map wide;
    for (int i = 0; i < 20; ++i)
        wide.emplace_back("k" + std::to_string(i), i * 1000);
    const value v =
        map{{"nil", nullptr},    {"f", -0.25},   {"s", std::string(70000, 'y')},
            {"list", long_list}, {"wide", wide}, {"nest", list{list{map{{"a", false}}}}}};
    EXPECT_EQ(round_trip(v), v);
}

// What the peer sends: each record of the events workload with its field names as keys, or as
// an array of its values in field order.
TEST(MsgpackWire, EventsRecordsRoundTripAsMapsAndArrays) {
    auto w = workloads::make("events");
    message m;
    for (int i = 0; i < 1000; ++i) {
        w->next(m);
        const auto& r = m.root.get<record>();
        map as_map;
        for (std::size_t f = 0; f < r.fields.size(); ++f)
            as_map.emplace_back(r.type->fields[f], r.fields[f]);
        ASSERT_EQ(round_trip(m.root, record_form::map), value(as_map));
        ASSERT_EQ(round_trip(m.root, record_form::array), value(list(r.fields)));
    }
}

TEST(MsgpackWire, ObjectsAfterEachOtherDecodeInTurn) {
    std::string out;
    put_value(out, map{{"a", 1}}, record_form::map);
    put_value(out, list{2, 3}, record_form::map);
    const auto in = bytes_of(out);
    decoder d;
    std::size_t pos = 0;
    ASSERT_EQ(d.next(in, pos), decode_status::done);
    EXPECT_EQ(to_value(d, d.root()), value(map{{"a", 1}}));
    ASSERT_EQ(d.next(in, pos), decode_status::done);
    EXPECT_EQ(to_value(d, d.root()), value(list{2, 3}));
    EXPECT_EQ(pos, in.size());
}

TEST(MsgpackWire, EveryTruncationIsIncompleteAndLeavesThePosition) {
    std::string out;
    put_value(out, map{{"ts", std::int64_t{1} << 40}, {"msg", std::string(300, 'm')}, {"x", 1.0}},
              record_form::map);
    const auto whole = bytes_of(out);
    decoder d;
    for (std::size_t n = 0; n < whole.size(); ++n) {
        const bytes prefix(whole.begin(), whole.begin() + static_cast<std::ptrdiff_t>(n));
        std::size_t pos = 0;
        ASSERT_EQ(d.next(prefix, pos), decode_status::incomplete) << n;
        EXPECT_EQ(pos, 0u);
    }
}

TEST(MsgpackWire, FormsOutsideTheSubsetAreMalformed) {
    decoder d;
    for (std::uint8_t tag : {0xc1, 0xc4, 0xca, 0xd4}) {  // never used, bin8, float32, fixext1
        const bytes in{tag, 0, 0, 0, 0};
        std::size_t pos = 0;
        EXPECT_EQ(d.next(in, pos), decode_status::malformed) << int(tag);
    }
    EXPECT_THROW(round_trip(objwire::bytes{{1, 2}}), std::invalid_argument);
}

TEST(MsgpackWire, NestingPastTheDepthLimitIsMalformed) {
    const bytes in(200, 0x91);  // arrays of one array, 200 deep
    decoder d;
    std::size_t pos = 0;
    EXPECT_EQ(d.next(in, pos), decode_status::malformed);
}

}  // namespace
}  // namespace objwire::msgpack_wire
