// The exact text the JSON writer produces for each kind of value.
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <string>

#include "json_test_support.hpp"

namespace objwire {
namespace {

std::string json_of(value v) {
    return to_json(message{std::move(v), {}});
}

TEST(json_writer, scalars) {
    EXPECT_EQ(json_of(nullptr), "null");
    EXPECT_EQ(json_of(true), "true");
    EXPECT_EQ(json_of(false), "false");
    EXPECT_EQ(json_of(0), "0");
    EXPECT_EQ(json_of(-42), "-42");
    EXPECT_EQ(json_of(std::numeric_limits<std::int64_t>::max()), "9223372036854775807");
    EXPECT_EQ(json_of(std::numeric_limits<std::int64_t>::min()), "-9223372036854775808");
    EXPECT_EQ(json_of("Heinz"), R"("Heinz")");
    EXPECT_EQ(json_of(""), R"("")");
}

TEST(json_writer, record) {
    auto person = make_record_type("Person", {"firstName", "surname", "age"});
    EXPECT_EQ(json_of(make_record(person, {"Heinz", "Kabutz", 42})),
              R"({"$type":"Person","firstName":"Heinz","surname":"Kabutz","age":42})");
    auto empty = make_record_type("Empty", {});
    EXPECT_EQ(json_of(make_record(empty, {})), R"({"$type":"Empty"})");
}

TEST(json_writer, record_with_too_few_values_writes_null) {
    auto t = make_record_type("T", {"a", "b"});
    EXPECT_EQ(json_of(record{t, {1}}), R"({"$type":"T","a":1,"b":null})");
}

TEST(json_writer, records_nested_through_many_types) {
    // More distinct types than the writer caches, nested so that every level is still being
    // written while the deeper ones are: the outer records must keep their own field names.
    std::vector<record_type_ptr> types;
    for (int i = 0; i < 12; ++i)
        types.push_back(make_record_type("T" + std::to_string(i),
                                         {"f" + std::to_string(i), "g" + std::to_string(i)}));
    std::string expected = "0";
    value v = 0;
    for (int round = 0; round < 2; ++round) {
        for (int i = 0; i < 12; ++i) {
            v = make_record(types[i], {v, i});
            expected = R"({"$type":"T)" + std::to_string(i) + R"(","f)" + std::to_string(i) +
                       R"(":)" + expected + R"(,"g)" + std::to_string(i) + R"(":)" +
                       std::to_string(i) + "}";
        }
    }
    EXPECT_EQ(json_of(v), expected);
    EXPECT_EQ(json_of(v), expected);  // again, with the cache full
}

TEST(json_writer, map_keeps_key_order) {
    EXPECT_EQ(json_of(map{{"z", 1}, {"a", "x"}, {"m", nullptr}}), R"({"z":1,"a":"x","m":null})");
    EXPECT_EQ(json_of(map{}), "{}");
}

TEST(json_writer, nested_list) {
    EXPECT_EQ(json_of(list{1, list{2, list{3, list{}}}, nullptr, true, map{{"k", list{}}}}),
              R"([1,[2,[3,[]]],null,true,{"k":[]}])");
    EXPECT_EQ(json_of(list{}), "[]");
}

bytes bytes_of(std::string_view s) {
    return bytes{{s.begin(), s.end()}};
}

TEST(json_writer, bytes_are_base64_with_padding) {
    EXPECT_EQ(json_of(bytes{}), R"({"$bytes":""})");
    EXPECT_EQ(json_of(bytes_of("f")), R"({"$bytes":"Zg=="})");
    EXPECT_EQ(json_of(bytes_of("fo")), R"({"$bytes":"Zm8="})");
    EXPECT_EQ(json_of(bytes_of("foo")), R"({"$bytes":"Zm9v"})");
    EXPECT_EQ(json_of(bytes_of("foobar")), R"({"$bytes":"Zm9vYmFy"})");
    EXPECT_EQ(json_of(bytes{{0x00, 0xff, 0xfe, 0x3e, 0x3f}}), R"({"$bytes":"AP/+Pj8="})");
}

TEST(json_writer, string_escapes) {
    EXPECT_EQ(json_of("a\"b\\c"), R"("a\"b\\c")");
    EXPECT_EQ(json_of("line\nnext\ttab\rcr"), R"("line\nnext\ttab\rcr")");
    EXPECT_EQ(json_of(std::string("\x00\x01\x1f\x7f", 4)), R"("\u0000\u0001\u001f)"
                                                           "\x7f\"");
    // Not escaped: '/', non-ASCII UTF-8.
    EXPECT_EQ(json_of("a/b é € 😀"), "\"a/b é € 😀\"");
}

// The reference the fast escaper must agree with: byte by byte.
std::string slow_escape(std::string_view s) {
    std::string out = "\"";
    for (char ch : s) {
        auto c = static_cast<unsigned char>(ch);
        if (c == '"') {
            out += "\\\"";
        } else if (c == '\\') {
            out += "\\\\";
        } else if (c == '\n') {
            out += "\\n";
        } else if (c == '\r') {
            out += "\\r";
        } else if (c == '\t') {
            out += "\\t";
        } else if (c < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            out += buf;
        } else {
            out += ch;
        }
    }
    return out + "\"";
}

TEST(json_writer, escapes_at_every_position_of_every_length) {
    // The escaper scans 8 bytes at a time: put each special byte at each offset.
    for (char special : {'"', '\\', '\n', '\x01', '\x1f', ' ', '\x7f', '\x80'}) {
        for (std::size_t len = 1; len <= 24; ++len) {
            for (std::size_t at = 0; at < len; ++at) {
                std::string s(len, 'x');
                s[at] = special;
                ASSERT_EQ(json_of(s), slow_escape(s))
                    << "byte " << int(static_cast<unsigned char>(special)) << " at " << at << " of "
                    << len;
            }
        }
    }
}

TEST(json_writer, doubles_read_back_as_doubles) {
    EXPECT_EQ(json_of(1.0), "1.0");
    EXPECT_EQ(json_of(0.1), "0.1");
    EXPECT_EQ(json_of(1e300), "1e+300");
    EXPECT_EQ(json_of(-0.0), "-0.0");
    EXPECT_EQ(json_of(0.0), "0.0");
    EXPECT_EQ(json_of(124.925), "124.925");
    EXPECT_EQ(json_of(-3.5), "-3.5");
    EXPECT_EQ(json_of(1e16), "1e+16");
    EXPECT_EQ(json_of(2.5e-8), "2.5e-08");
    EXPECT_EQ(json_of(123456.0), "123456.0");
    EXPECT_EQ(json_of(0.30000000000000004), "0.30000000000000004");
    EXPECT_EQ(json_of(5e-324), "5e-324");
    EXPECT_EQ(json_of(1.7976931348623157e308), "1.7976931348623157e+308");
}

TEST(json_writer, nan_and_infinities_are_markers) {
    EXPECT_EQ(json_of(std::numeric_limits<double>::quiet_NaN()), R"({"$float":"nan"})");
    EXPECT_EQ(json_of(-std::numeric_limits<double>::quiet_NaN()), R"({"$float":"nan"})");
    EXPECT_EQ(json_of(std::numeric_limits<double>::infinity()), R"({"$float":"inf"})");
    EXPECT_EQ(json_of(-std::numeric_limits<double>::infinity()), R"({"$float":"-inf"})");
}

// The writer has a fast path for values with up to three decimals; it must print exactly
// what std::to_chars prints (plus ".0" for integral values).
std::string to_chars_text(double d) {
    char buf[64];
    auto end = std::to_chars(buf, buf + sizeof buf, d).ptr;
    std::string s(buf, end);
    if (s.find_first_of(".e") == std::string::npos) s += ".0";
    return s;
}

TEST(json_writer, doubles_match_to_chars) {
    std::mt19937_64 rng(7);
    std::uniform_int_distribution<std::int64_t> milli(-20'000'000'000'000, 20'000'000'000'000);
    std::uniform_int_distribution<int> scale(0, 4);
    for (int i = 0; i < 200'000; ++i) {
        static constexpr double divisors[] = {1.0, 10.0, 100.0, 1000.0, 10000.0};
        double d = static_cast<double>(milli(rng) >> (i % 40)) / divisors[scale(rng)];
        ASSERT_EQ(json_of(d), to_chars_text(d)) << "value " << d;
        // Neighbours of a milli value are not milli values: the slow path takes them.
        double up = std::nextafter(d, 1e300);
        ASSERT_EQ(json_of(up), to_chars_text(up));
    }
    for (int i = 0; i < 200'000; ++i) {
        std::uint64_t bits = rng();
        double d;
        std::memcpy(&d, &bits, sizeof d);
        if (!std::isfinite(d)) continue;
        ASSERT_EQ(json_of(d), to_chars_text(d));
    }
    for (double d : {0.001, -0.001, 0.01, 0.5, 999.999, 8589934591.999, 8589934592.5, 1e-3,
                     4503599627370.497, 0.0005, 1000.001})
        EXPECT_EQ(json_of(d), to_chars_text(d)) << d;
}

TEST(json_writer, dollar_keys_are_doubled) {
    EXPECT_EQ(json_of(map{{"$id", 1}, {"$$x", 2}, {"a$", 3}, {"$", 4}, {"", 5}}),
              R"({"$$id":1,"$$$x":2,"a$":3,"$$":4,"":5})");
    auto t = make_record_type("$T", {"$type", "x"});
    // The type name is a value, not a key: it stays as it is.
    EXPECT_EQ(json_of(make_record(t, {1, 2})), R"({"$type":"$T","$$type":1,"x":2})");
}

TEST(json_writer, keys_are_escaped) {
    EXPECT_EQ(json_of(map{{"a\"b", 1}, {"new\nline", 2}}), R"({"a\"b":1,"new\nline":2})");
    auto t = make_record_type("T\"", {"f\\"});
    EXPECT_EQ(json_of(make_record(t, {1})), R"({"$type":"T\"","f\\":1})");
}

// A Trip whose `back` is itself and whose stops reference shared Points; the objects are
// stored out of encoder order to check the renumbering.
message trip_graph() {
    auto point = make_record_type("Point", {"x", "y"});
    auto trip = make_record_type("Trip", {"id", "stops", "back"});
    message m;
    m.objects.push_back(make_record(point, {3, 4}));  // 0: second point met
    m.objects.push_back(make_record(point, {1, 2}));  // 1: first point met
    m.objects.push_back(make_record(
        trip, {7, list{object_ref{1}, object_ref{0}, object_ref{1}}, object_ref{2}}));  // 2
    m.objects.push_back(make_record(point, {9, 9}));  // 3: never referenced
    m.root = object_ref{2};
    return m;
}

TEST(json_writer, shared_objects_and_cycle) {
    EXPECT_EQ(to_json(trip_graph()),
              R"({"$id":0,"$type":"Trip","id":7,"stops":[{"$id":1,"$type":"Point","x":1,"y":2},)"
              R"({"$id":2,"$type":"Point","x":3,"y":4},{"$ref":1}],"back":{"$ref":0}})");
}

TEST(json_writer, objects_of_other_kinds) {
    message m;
    m.objects = {map{{"k", 1}}, map{}, list{1, object_ref{0}}, "s", object_ref{2}};
    m.root = list{object_ref{0}, object_ref{1}, object_ref{2}, object_ref{3},
                  object_ref{4}, object_ref{3}, object_ref{9}, object_ref{9}};
    EXPECT_EQ(to_json(m), R"([{"$id":0,"k":1},{"$id":1},{"$id":2,"$value":[1,{"$ref":0}]},)"
                          R"({"$id":3,"$value":"s"},{"$id":4,"$value":{"$ref":2}},{"$ref":3},)"
                          R"({"$id":5,"$value":null},{"$ref":5}])");
}

TEST(json_writer, appends_to_the_callers_string) {
    std::string out = "x";
    append_json(message{list{1, 2}, {}}, out);
    append_json(message{"y", {}}, out);
    EXPECT_EQ(out, R"(x[1,2]"y")");
}

TEST(json_writer, long_output_grows_correctly) {
    std::string big(100'000, 'a');
    big[50'000] = '\n';
    list l;
    for (int i = 0; i < 1000; ++i)
        l.emplace_back(i);
    l.emplace_back(big);
    std::string out(5, '-');
    append_json(message{l, {}}, out);
    std::string expected = "-----[";
    for (int i = 0; i < 1000; ++i)
        expected += std::to_string(i) + ",";
    expected += slow_escape(big) + "]";
    EXPECT_EQ(out, expected);
}

}  // namespace
}  // namespace objwire
