// Reading JSON lines: every kind of value, type interning, lines and blank lines, and each
// error with its line, column and message.
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "json_test_support.hpp"

namespace objwire {
namespace {

using test::read_one;
using test::same_message;
using test::same_value;

TEST(jsonl_reader, scalars_at_the_root) {
    EXPECT_TRUE(same_message(read_one("42"), {42, {}}));
    EXPECT_TRUE(same_message(read_one("-7"), {-7, {}}));
    EXPECT_TRUE(same_message(read_one("1.5"), {1.5, {}}));
    EXPECT_TRUE(same_message(read_one("1e3"), {1000.0, {}}));
    EXPECT_TRUE(same_message(read_one("-0.0"), {-0.0, {}}));
    EXPECT_TRUE(same_message(read_one(R"("hi\n\u00e9")"), {"hi\n\xc3\xa9", {}}));
    EXPECT_TRUE(same_message(read_one("true"), {true, {}}));
    EXPECT_TRUE(same_message(read_one("false"), {false, {}}));
    EXPECT_TRUE(same_message(read_one("null"), {nullptr, {}}));
    EXPECT_TRUE(same_message(read_one("  [1, 2]  "), {list{1, 2}, {}}));
}

TEST(jsonl_reader, integers_and_doubles) {
    EXPECT_TRUE(same_message(read_one("[9223372036854775807,-9223372036854775808,0,-0]"),
                             {list{std::numeric_limits<std::int64_t>::max(),
                                   std::numeric_limits<std::int64_t>::min(), 0, 0},
                              {}}));
    EXPECT_TRUE(
        same_message(read_one("[1.0,1E2,2e-3,-1.25]"), {list{1.0, 100.0, 0.002, -1.25}, {}}));
    // Long mantissas take simdjson's slow path (get_number() loses them in 3.0.1).
    EXPECT_TRUE(same_message(read_one("[1311284235852771584.0,12345678901234567890.5,1e22]"),
                             {list{1311284235852771584.0, 12345678901234567890.5, 1e22}, {}}));
}

TEST(jsonl_reader, record_map_bytes_float_markers) {
    message m =
        read_one(R"({"$type":"Person","firstName":"Heinz","surname":"Kabutz","age":42,)"
                 R"("tags":{"b":{"$bytes":"Zm9v"},"n":{"$float":"nan"},"i":{"$float":"inf"},)"
                 R"("j":{"$float":"-inf"},"$$id":"escaped","e":{}}})");
    auto person = make_record_type("Person", {"firstName", "surname", "age", "tags"});
    map tags{{"b", bytes{{'f', 'o', 'o'}}},
             {"n", std::numeric_limits<double>::quiet_NaN()},
             {"i", std::numeric_limits<double>::infinity()},
             {"j", -std::numeric_limits<double>::infinity()},
             {"$id", "escaped"},
             {"e", map{}}};
    EXPECT_TRUE(same_message(m, {make_record(person, {"Heinz", "Kabutz", 42, tags}), {}}));
}

TEST(jsonl_reader, dollar_escaped_record_fields) {
    message m = read_one(R"({"$type":"T","$$type":1,"$$$x":2,"$$":3})");
    auto t = make_record_type("T", {"$type", "$$x", "$"});
    EXPECT_TRUE(same_message(m, {make_record(t, {1, 2, 3}), {}}));
}

TEST(jsonl_reader, a_known_dollar_field_still_needs_doubling) {
    // After a record with the field "$x" (written "$$x"), a plain "$x" key in the next
    // record of that type is still an unknown marker, not the field.
    jsonl_reader r("{\"$type\":\"T\",\"$$x\":1}\n{\"$type\":\"T\",\"$x\":1}\n");
    message m;
    ASSERT_TRUE(r.next(m));
    EXPECT_TRUE(same_message(m, {make_record(make_record_type("T", {"$x"}), {1}), {}}));
    EXPECT_FALSE(r.next(m));
    ASSERT_TRUE(r.error());
    EXPECT_EQ(r.error()->column, 14u);
    EXPECT_NE(r.error()->message.find("unknown marker \"$x\""), std::string::npos);
}

TEST(jsonl_reader, records_of_one_shape_share_their_type) {
    jsonl_reader r(R"({"$type":"P","x":1,"y":2}
{"$type":"P","x":3,"y":4}
{"$type":"P","y":5,"x":6}
{"$type":"P","x":7}
{"$type":"P","x":8,"y":9,"z":10}
[{"$type":"P","x":1,"y":2},{"$type":"Q","x":1,"y":2}]
{"$type":"P","x":3,"y":4})");
    message m;
    std::vector<record_type_ptr> types;
    while (r.next(m)) {
        if (auto* rec = m.root.get_if<record>()) {
            types.push_back(rec->type);
        } else {
            for (const auto& e : m.root.get<list>())
                types.push_back(e.get<record>().type);
        }
    }
    ASSERT_FALSE(r.error()) << r.error()->message;
    ASSERT_EQ(types.size(), 8u);
    EXPECT_EQ(types[0].get(), types[1].get());
    EXPECT_EQ(*types[2], (record_type{"P", {"y", "x"}}));
    EXPECT_EQ(*types[3], (record_type{"P", {"x"}}));
    EXPECT_EQ(*types[4], (record_type{"P", {"x", "y", "z"}}));
    EXPECT_EQ(types[5].get(), types[0].get());  // back to the first shape: the same descriptor
    EXPECT_EQ(*types[6], (record_type{"Q", {"x", "y"}}));
    EXPECT_EQ(types[7].get(), types[0].get());
}

// The next record of a type is matched key by key against the last shape's raw names (16 bytes
// at a time for names under 16 bytes, memcmp beyond): a key that is a prefix or an extension
// of the expected name, or differs only in its last bytes, must start a new shape.
TEST(jsonl_reader, raw_key_matching_at_name_length_boundaries) {
    const std::string n15 = "abcdefghijklmno";  // 15 bytes: the name and its quote fill 16
    const std::string n16 = n15 + "p";
    const std::string n17 = n16 + "q";
    auto line = [](const std::string& a, const std::string& b) {
        return R"({"$type":"K",")" + a + R"(":1,")" + b + R"(":2})" + "\n";
    };
    const std::vector<std::pair<std::string, std::string>> shapes = {{n15, "x"},
                                                                     {n15, "x"},
                                                                     {"abcdefghijklmn", "x"},
                                                                     {n15, "x"},
                                                                     {n16, "x"},
                                                                     {n16, "x"},
                                                                     {"abcdefghijklmnoq", "x"},
                                                                     {n17, "x"},
                                                                     {n17, "x"},
                                                                     {n16, "xy"},
                                                                     {n16, "x"},
                                                                     {"abcdefgh", "x"},
                                                                     {"abcdefgi", "x"},
                                                                     {"abcdefgh", "x"}};
    std::string text;
    for (const auto& [a, b] : shapes)
        text += line(a, b);
    jsonl_reader r(text);
    message m;
    for (std::size_t i = 0; i < shapes.size(); ++i) {
        ASSERT_TRUE(r.next(m)) << "line " << i + 1 << ": " << r.error()->message;
        const auto& rec = m.root.get<record>();
        EXPECT_EQ(*rec.type, (record_type{"K", {shapes[i].first, shapes[i].second}}))
            << "line " << i + 1;
        EXPECT_TRUE(same_value(m.root, make_record(rec.type, {1, 2}))) << "line " << i + 1;
    }
    EXPECT_FALSE(r.next(m));
    EXPECT_FALSE(r.error());
}

TEST(jsonl_reader, nested_records_of_different_types) {
    message m = read_one(
        R"({"$type":"A","a":{"$type":"B","b":{"$type":"A","a":null}},"c":{"$type":"B","b":1}})");
    auto a = make_record_type("A", {"a"});
    auto a2 = make_record_type("A", {"a", "c"});
    auto b = make_record_type("B", {"b"});
    EXPECT_TRUE(same_message(
        m,
        {make_record(a2, {make_record(b, {make_record(a, {nullptr})}), make_record(b, {1})}), {}}));
}

TEST(jsonl_reader, nested_record_of_the_same_name_and_another_shape) {
    // The inner A changes what the reader remembers as "the last A" while the outer A, read
    // on the fast path, is still open: the outer must keep its own shape.
    jsonl_reader r(R"({"$type":"A","x":1,"z":0}
{"$type":"A","x":{"$type":"A","y":2},"z":3}
{"$type":"A","x":{"$type":"A","y":{"$type":"A","x":4,"z":5}}})");
    auto xz = make_record_type("A", {"x", "z"});
    auto x = make_record_type("A", {"x"});
    auto y = make_record_type("A", {"y"});
    message m;
    ASSERT_TRUE(r.next(m));
    ASSERT_TRUE(r.next(m));
    EXPECT_TRUE(same_message(m, {make_record(xz, {make_record(y, {2}), 3}), {}}));
    ASSERT_TRUE(r.next(m));
    EXPECT_TRUE(same_message(m, {make_record(x, {make_record(y, {make_record(xz, {4, 5})})}), {}}));
}

TEST(jsonl_reader, shared_objects_and_cycles) {
    message m =
        read_one(R"({"$id":0,"$type":"Trip","id":7,"stops":[{"$id":1,"$type":"Point","x":1,"y":2},)"
                 R"({"$id":2,"$type":"Point","x":3,"y":4},{"$ref":1}],"back":{"$ref":0}})");
    auto point = make_record_type("Point", {"x", "y"});
    auto trip = make_record_type("Trip", {"id", "stops", "back"});
    message expected;
    expected.root = object_ref{0};
    expected.objects = {
        make_record(trip, {7, list{object_ref{1}, object_ref{2}, object_ref{1}}, object_ref{0}}),
        make_record(point, {1, 2}), make_record(point, {3, 4})};
    EXPECT_TRUE(same_message(m, expected));
}

TEST(jsonl_reader, ids_need_not_be_canonical_and_refs_may_point_forward) {
    message m = read_one(R"({"a":{"$ref":70000},"b":{"$id":5,"$value":[{"$ref":5}]},)"
                         R"("c":{"$id":70000,"k":{"$ref":5}}})");
    message expected;
    // Renumbered in encoder order: the object 70000 is met first (through a's $ref).
    expected.root = map{{"a", object_ref{0}}, {"b", object_ref{1}}, {"c", object_ref{0}}};
    expected.objects = {map{{"k", object_ref{1}}}, list{object_ref{1}}};
    EXPECT_TRUE(same_message(m, expected));
}

// "$id" may be any key of its object: the message is the one with "$id" first, read alone or
// from a block of lines.
TEST(jsonl_reader, id_anywhere_among_the_keys_reads_as_id_first) {
    const std::pair<std::string, std::string> cases[] = {
        {R"({"$type":"Node","$id":1,"v":1,"next":{"$ref":1}})",
         R"({"$id":1,"$type":"Node","v":1,"next":{"$ref":1}})"},
        {R"({"$type":"Node","v":1,"next":{"$ref":1},"$id":1})",
         R"({"$id":1,"$type":"Node","v":1,"next":{"$ref":1}})"},
        {R"({"a":1,"$id":3})", R"({"$id":3,"a":1})"},
        // Objects nested before the "$id" would otherwise be numbered first.
        {R"({"$type":"T","c":{"$type":"T","c":{"$ref":1},"$id":2},"$id":1})",
         R"({"$id":1,"$type":"T","c":{"$id":2,"$type":"T","c":{"$ref":1}}})"},
        {R"({"$value":[1,{"$ref":0}],"$id":0})", R"({"$id":0,"$value":[1,{"$ref":0}]})"},
        {R"({"$bytes":"AQI=","$id":0})", R"({"$id":0,"$bytes":"AQI="})"},
        {R"({"$float":"nan","$id":4})", R"({"$id":4,"$float":"nan"})"},
        {R"([{"$type":"P","x":1,"$id":7},{"$ref":7},{"y":{"$ref":8},"$id":8}])",
         R"([{"$id":7,"$type":"P","x":1},{"$ref":7},{"$id":8,"y":{"$ref":8}}])"},
    };
    for (const auto& [late, first] : cases) {
        EXPECT_TRUE(same_message(read_one(late), read_one(first))) << late;
        // Both again, many times, so that most lines come from a block.
        std::string text;
        for (int i = 0; i < 20; ++i)
            text += late + "\n" + first + "\n";
        jsonl_reader r(text);
        message a, b;
        for (int i = 0; i < 20; ++i) {
            ASSERT_TRUE(r.next(a)) << late;
            ASSERT_TRUE(r.next(b)) << first;
            EXPECT_TRUE(same_message(a, b)) << late << " line " << r.line();
        }
    }
}

TEST(jsonl_reader, crlf_blank_lines_and_line_numbers) {
    std::string text = "\r\n1\r\n\n   \n\t \r\n[2]\n\n\"three\"\r\n\n";
    jsonl_reader r(text, 10);
    message m;
    std::vector<std::pair<std::size_t, message>> got;
    while (r.next(m))
        got.emplace_back(r.line(), m);
    EXPECT_FALSE(r.error());
    ASSERT_EQ(got.size(), 3u);
    EXPECT_EQ(got[0].first, 11u);
    EXPECT_TRUE(same_message(got[0].second, {1, {}}));
    EXPECT_EQ(got[1].first, 15u);
    EXPECT_TRUE(same_message(got[1].second, {list{2}, {}}));
    EXPECT_EQ(got[2].first, 17u);
    EXPECT_TRUE(same_message(got[2].second, {"three", {}}));
    EXPECT_FALSE(r.next(m));  // stays at the end
}

// offset(): where the last line read ends, its newline included (blank lines skipped on the
// way count); the end of the text after the last line, with or without a final newline.
TEST(jsonl_reader, offset_is_the_end_of_the_last_line_read) {
    const std::string text = "1\r\n\n  \n[2]\n{\"a\":\n\"x\"";
    jsonl_reader r(text);
    message m;
    EXPECT_EQ(r.offset(), 0u);
    ASSERT_TRUE(r.next(m));
    EXPECT_EQ(r.offset(), 3u);  // "1\r\n"
    ASSERT_TRUE(r.next(m));
    EXPECT_EQ(r.offset(), 11u);  // and "\n", "  \n", "[2]\n"
    EXPECT_FALSE(r.next(m));
    ASSERT_TRUE(r.error());
    EXPECT_EQ(r.offset(), 17u);  // the bad line "{\"a\":\n"
    ASSERT_TRUE(r.next(m));
    EXPECT_EQ(r.offset(), text.size());  // "\"x\"" without a newline
    EXPECT_FALSE(r.next(m));
    EXPECT_EQ(r.offset(), text.size());
}

TEST(jsonl_reader, byte_order_mark_is_skipped) {
    jsonl_reader r("\xEF\xBB\xBF{\"a\":1}\n\xEF\xBB\xBF{}");
    message m;
    ASSERT_TRUE(r.next(m));
    EXPECT_TRUE(same_message(m, {map{{"a", 1}}, {}}));
    EXPECT_FALSE(r.next(m));  // only at the start of the text
    ASSERT_TRUE(r.error());
    EXPECT_EQ(r.error()->line, 2u);
    EXPECT_EQ(r.error()->column, 1u);
}

TEST(jsonl_reader, empty_text) {
    message m;
    jsonl_reader empty("");
    EXPECT_FALSE(empty.next(m));
    EXPECT_FALSE(empty.error());
    jsonl_reader blank("\n\r\n  \n");
    EXPECT_FALSE(blank.next(m));
    EXPECT_FALSE(blank.error());
}

TEST(jsonl_reader, lines_near_the_end_of_the_buffer) {
    // The last lines have no padding after them and are parsed from a copy; lines of every
    // length around the padding size, with and without a final newline.
    for (std::size_t len = 1; len < 150; ++len) {
        for (bool final_newline : {false, true}) {
            std::string s(len, 'x');
            std::string text = "\"" + s + "\"\n[\"" + s + "\"]" + (final_newline ? "\n" : "");
            jsonl_reader r(text);
            message m;
            ASSERT_TRUE(r.next(m));
            ASSERT_TRUE(same_message(m, {s, {}}));
            ASSERT_TRUE(r.next(m));
            ASSERT_TRUE(same_message(m, {list{s}, {}})) << len;
            ASSERT_FALSE(r.next(m));
            ASSERT_FALSE(r.error());
        }
    }
}

TEST(jsonl_reader, reuses_the_message_without_leaking_old_contents) {
    // Each line into the same message: shorter lists, maps, records and fewer objects than
    // the line before must not keep stale entries.
    std::vector<std::string> lines = {
        R"({"$type":"T","a":[1,2,3],"b":{"x":1,"y":2},"c":{"$id":0,"$value":"s"},"d":{"$id":1}})",
        R"({"$type":"T","a":[4],"b":{"z":3}})",
        R"({"$type":"T","a":"now a string","b":5,"c":{"$id":9,"$value":[1]}})",
        R"([1,{"$id":0,"$type":"U","u":{"$ref":0}}])",
        R"("plain")",
        R"({"k":{"$bytes":"AAEC"}})",
        R"({"k":{"$bytes":""}})",
    };
    std::string text;
    for (const auto& l : lines)
        text += l + "\n";
    jsonl_reader r(text);
    message m;
    for (const auto& l : lines) {
        ASSERT_TRUE(r.next(m)) << r.error()->message;
        EXPECT_TRUE(same_message(m, test::read_one(l))) << l;
    }
    EXPECT_FALSE(r.next(m));
}

// --- errors ---

struct bad_line {
    const char* text;
    std::size_t column;
    const char* says;  // a part of the message
};

void expect_error(const bad_line& b) {
    // The bad line is line 2, between good ones: the error names it, and next() continues
    // with line 3.
    std::string text = std::string("[\"before\"]\n") + b.text + "\n[\"after\"]\n";
    jsonl_reader r(text);
    message m;
    ASSERT_TRUE(r.next(m));
    EXPECT_FALSE(r.next(m)) << b.text;
    ASSERT_TRUE(r.error()) << b.text;
    EXPECT_EQ(r.error()->line, 2u) << b.text;
    EXPECT_EQ(r.error()->column, b.column) << b.text << ": " << r.error()->message;
    EXPECT_NE(r.error()->message.find(b.says), std::string::npos)
        << b.text << ": " << r.error()->message;
    EXPECT_EQ(r.line(), 2u);
    ASSERT_TRUE(r.next(m)) << b.text;
    EXPECT_FALSE(r.error());
    EXPECT_EQ(r.line(), 3u);
    EXPECT_TRUE(same_message(m, {list{"after"}, {}}));
    EXPECT_FALSE(r.next(m));
    EXPECT_FALSE(r.error());
}

TEST(jsonl_reader_errors, truncated_json) {
    expect_error({R"({"a":[1,2)", 10, "truncated JSON"});
    expect_error({R"({"a":"abc)", 6, "string is never closed"});
    expect_error({R"({"a":)", 6, "truncated JSON"});
}

TEST(jsonl_reader_errors, bad_syntax) {
    expect_error({R"({"a" 1})", 6, "invalid JSON"});
    expect_error({R"([1,,2])", 4, "invalid JSON"});
    expect_error({R"({"a":tru})", 6, "invalid JSON"});
    expect_error({R"({"a":01})", 6, "invalid JSON number"});
    expect_error({R"({"a":"\q"})", 6, "invalid JSON string"});
    expect_error({"{\"a\":\"x\ty\"}", 8, "control character 0x09"});
}

TEST(jsonl_reader_errors, text_after_the_value) {
    expect_error({R"({"a":1}})", 8, "unexpected text after the JSON value"});
    expect_error({R"({} x)", 4, "unexpected text after the JSON value"});
    expect_error({R"([1] [2])", 5, "unexpected text after the JSON value"});
    expect_error({R"(1 2)", 3, "unexpected text after the JSON value"});
}

TEST(jsonl_reader_errors, invalid_utf8) {
    expect_error({"{\"a\":\"x\xff\"}", 8, "invalid UTF-8: byte 0xFF"});
    expect_error({"[\"\xc3\"]", 3, "invalid UTF-8: byte 0xC3"});
    expect_error({"[\"\xed\xa0\x80\"]", 3, "invalid UTF-8"});  // an encoded surrogate
}

TEST(jsonl_reader_errors, unknown_ref) {
    expect_error(
        {R"({"a":{"$ref":7}})", 14, "unknown $ref 7 (no object with \"$id\": 7 in this line)"});
    expect_error({R"({"$ref":"x"})", 9, "\"$ref\" must be an integer"});
    expect_error({R"({"$ref":0,"a":1})", 11, "\"$ref\" must be the only key"});
}

TEST(jsonl_reader_errors, duplicate_id) {
    expect_error({R"([{"$id":1},{"$id":1}])", 19, "duplicate \"$id\": 1"});
    expect_error({R"({"$id":-1})", 8, "\"$id\" must be an integer from 0"});
    expect_error({R"({"$id":1,"a":1,"$id":2})", 16, "\"$id\" is given twice in one object"});
    expect_error({R"({"$ref":0,"$id":1})", 11, "\"$ref\" must be the only key"});
}

TEST(jsonl_reader_errors, bad_base64) {
    expect_error({R"({"$bytes":"ab!d"})", 14, "not valid base64 (unexpected character '!')"});
    expect_error({R"({"$bytes":"abc"})", 15, "not valid base64 (length 3"});
    expect_error({R"({"$bytes":"a=bc"})", 13, "not valid base64"});
    expect_error({R"({"$bytes":5})", 11, "\"$bytes\" must be a string"});
}

TEST(jsonl_reader_errors, integer_out_of_range) {
    expect_error(
        {R"({"n":9223372036854775808})", 6, "integer 9223372036854775808 is out of range"});
    expect_error({R"([-9223372036854775809])", 2, "must fit in int64"});
    expect_error({R"([123456789012345678901234567890])", 2, "must fit in int64"});
    expect_error({"18446744073709551616", 1, "must fit in int64"});
}

TEST(jsonl_reader_errors, markers) {
    expect_error({R"({"$type":5})", 10, "\"$type\" must be a string"});
    expect_error({R"({"a":1,"$type":"X"})", 8, "\"$type\" must be the first key"});
    expect_error({R"({"$foo":1})", 2, "unknown marker \"$foo\""});
    expect_error({R"({"$float":"NaN"})", 11, "\"$float\" must be \"nan\", \"inf\" or \"-inf\""});
    expect_error({R"({"$value":1})", 2, "\"$value\" is only allowed in an object with \"$id\""});
    expect_error({R"({"a":1,"$value":2,"$id":0})", 8, "\"$value\" must be the only key"});
    expect_error({R"({"$type":"T","a":1,"a":2})", 2, "has the field \"a\" twice"});
}

TEST(jsonl_reader_errors, several_errors_in_a_row_and_line_numbers) {
    jsonl_reader r("[1\n\n{\"$ref\":3}\n7\n", 100);
    message m;
    EXPECT_FALSE(r.next(m));
    ASSERT_TRUE(r.error());
    EXPECT_EQ(r.error()->line, 100u);
    EXPECT_FALSE(r.next(m));
    ASSERT_TRUE(r.error());
    EXPECT_EQ(r.error()->line, 102u);
    EXPECT_EQ(r.error()->column, 9u);
    ASSERT_TRUE(r.next(m));
    EXPECT_EQ(r.line(), 103u);
    EXPECT_TRUE(same_message(m, {7, {}}));
    EXPECT_FALSE(r.next(m));
    EXPECT_FALSE(r.error());
}

TEST(jsonl_reader_errors, too_deep) {
    auto nested = [](std::size_t depth) {
        return std::string(depth, '[') + std::string(depth, ']');
    };
    message m = read_one(nested(1024));
    EXPECT_EQ(m.root.type(), value::kind::list);
    expect_error({nested(1025).c_str(), 1025, "nested deeper than 1024 levels"});
    // It names the limit that applies when sending, and its key.
    expect_error({nested(1025).c_str(), 1025, "at most limits.max_depth levels, 64 by default"});
    // Far deeper than the stack would survive if the parse did not stop.
    expect_error({nested(1'000'000).c_str(), 1025, "nested deeper than 1024 levels"});
}

}  // namespace
}  // namespace objwire
