// `objwire read --format` / --envelope lines, and `send --raw` lines as text records: the
// rules without a daemon (client/jsonl/line_format.hpp, client/jsonl/raw_lines.hpp).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "client/jsonl/line_format.hpp"
#include "client/jsonl/raw_lines.hpp"

namespace objwire::client {
namespace {

message point() {
    return message(make_record(make_record_type("Point", {"x", "y"}), {1, 2}));
}

std::string line_of(std::string_view spec, const message& m) {
    line_format f;
    std::string error;
    EXPECT_TRUE(f.parse(spec, error)) << error;
    std::string out;
    f.append(out, {7, "sender\t\"x\"", 1700000000123, m});
    return out;
}

TEST(line_format, every_field) {
    const message p = point();
    EXPECT_EQ(line_of("%o|%s|%T|%t|%j", p),
              "7|sender\t\"x\"|1700000000123|Point|{\"$type\":\"Point\",\"x\":1,\"y\":2}\n");
    EXPECT_EQ(line_of("%t.", message(value(map{{"a", 1}}))), ".\n");  // not a record
    EXPECT_EQ(line_of("", p), "\n");
}

TEST(line_format, escapes_and_percent) {
    EXPECT_EQ(line_of("a%%b\\tc\\\\d\\ne%o", point()), "a%b\tc\\d\ne7\n");
}

TEST(line_format, a_shared_root_record_names_its_type) {
    message m(value(object_ref{0}), {make_record(make_record_type("Node", {"v"}), {1})});
    EXPECT_EQ(line_of("%t", m), "Node\n");
}

TEST(line_format, bad_specs_name_what_is_wrong) {
    const std::vector<std::pair<std::string, std::string>> bad = {
        {"%x", "unknown field %x"}, {"%o\\q", "unknown escape \\q"}, {"%o%", "lone '%'"},
        {"\\", "lone '\\'"},        {"%O", "unknown field %O"},
    };
    for (const auto& [spec, says] : bad) {
        line_format f;
        std::string error;
        EXPECT_FALSE(f.parse(spec, error)) << spec;
        EXPECT_NE(error.find(says), std::string::npos) << spec << ": " << error;
    }
}

TEST(line_format, envelope_escapes_the_sender) {
    std::string out;
    line_format::envelope().append(out, {3, "a\"b", 42, point()});
    EXPECT_EQ(out,
              "{\"offset\":3,\"sender\":\"a\\\"b\",\"time\":42,\"object\":"
              "{\"$type\":\"Point\",\"x\":1,\"y\":2}}\n");
}

TEST(raw_text, only_string_fields_of_the_type) {
    const auto t = make_record_type("line", {"text"});
    EXPECT_EQ(*raw_text(message(make_record(t, {"hi"})), "line", "text"), "hi");
    EXPECT_EQ(raw_text(message(make_record(t, {"hi"})), "other", "text"), nullptr);
    EXPECT_EQ(raw_text(message(make_record(t, {"hi"})), "line", "body"), nullptr);
    EXPECT_EQ(raw_text(message(make_record(t, {1})), "line", "text"), nullptr);
    EXPECT_EQ(raw_text(message(value("hi")), "line", "text"), nullptr);
}

// Every line a text record as it is; the bad one an error at its first bad byte.
TEST(raw_line_reader, lines_as_text_and_bad_utf8) {
    raw_line_reader r("line", "text");
    const std::string text = "a\tb\n\nc\r\nbad \xC3(x\n\xE2\x82\xAC end";
    r.continue_with(text, false);
    std::vector<std::string> got;
    message m;
    std::vector<json_error> errors;
    for (;;) {
        if (r.next(m)) {
            got.push_back(*raw_text(m, "line", "text"));
            EXPECT_EQ(r.line(), got.size() + errors.size());
        } else if (r.error()) {
            errors.push_back(*r.error());
        } else {
            break;
        }
    }
    EXPECT_EQ(got, (std::vector<std::string>{"a\tb", "", "c\r", "\xE2\x82\xAC end"}));
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_EQ(errors[0].line, 4u);
    EXPECT_EQ(errors[0].column, 5u);
    EXPECT_NE(errors[0].message.find("byte 0xC3"), std::string::npos) << errors[0].message;
    EXPECT_EQ(r.offset(), text.size());
}

TEST(raw_line_reader, first_invalid_byte) {
    EXPECT_EQ(first_invalid_utf8("abc"), 3u);
    EXPECT_EQ(first_invalid_utf8("ab\xFF"), 2u);
    EXPECT_EQ(first_invalid_utf8("\xE2\x82\xAC\xED\xA0\x80"), 3u);  // a surrogate
    EXPECT_EQ(first_invalid_utf8("\xF0\x9F\x98"), 0u);              // truncated
}

}  // namespace
}  // namespace objwire::client
