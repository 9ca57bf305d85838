// Reading JSON lines a block at a time (texts over 64 KiB): every line must give what reading
// it alone gives - the same message, or the same error at the same line and column - wherever
// it falls in a block, whatever lines come before and after it.
#include <cstddef>
#include <cstdlib>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "json_test_support.hpp"

namespace objwire {
namespace {

using test::same_message;

// What reading one line alone gives: a message, an error, or nothing (a blank line).
struct alone {
    std::optional<message> got;
    std::optional<json_error> error;
};

alone read_alone(const std::string& line, std::size_t number) {
    jsonl_reader r(line, number);
    message m;
    alone a;
    if (r.next(m))
        a.got = m;
    else if (r.error())
        a.error = r.error();
    return a;
}

// Reads `lines` joined by "\n" (with a final newline or not) in one reader and checks each
// line's result, the line numbers and offset() against reading the lines one by one.
void expect_same_as_alone(const std::vector<std::string>& lines, bool final_newline) {
    std::string text;
    std::vector<std::size_t> ends;  // offset() after each line
    for (std::size_t i = 0; i < lines.size(); ++i) {
        text += lines[i];
        if (i + 1 < lines.size() || final_newline) text += '\n';
        ends.push_back(text.size());
    }
    jsonl_reader r(text);
    message m;
    std::size_t checked = 0;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const alone want = read_alone(lines[i], i + 1);
        if (!want.got && !want.error) continue;
        const bool ok = r.next(m);
        ASSERT_EQ(ok, want.got.has_value())
            << "line " << i + 1 << ": " << lines[i].substr(0, 80)
            << (r.error() ? " -> " + r.error()->message : std::string());
        EXPECT_EQ(r.offset(), ends[i]) << "line " << i + 1;
        if (ok) {
            EXPECT_EQ(r.line(), i + 1);
            EXPECT_TRUE(same_message(m, *want.got)) << "line " << i + 1;
        } else {
            ASSERT_TRUE(r.error()) << "line " << i + 1;
            EXPECT_EQ(r.error()->line, want.error->line);
            EXPECT_EQ(r.error()->column, want.error->column) << "line " << i + 1;
            EXPECT_EQ(r.error()->message, want.error->message) << "line " << i + 1;
        }
        ++checked;
    }
    EXPECT_FALSE(r.next(m));
    EXPECT_FALSE(r.error());
    EXPECT_GT(checked, 0u);
}

std::string event(std::size_t i) {
    return R"({"$type":"Event","ts":)" + std::to_string(1700000000000000 + i * 97) +
           R"(,"level":"INFO","host":"host-)" + std::to_string(i % 300) + R"(","msg":"message )" +
           std::string(i % 37, 'x') + R"(","latency_ms":)" + std::to_string(i % 1000) + "." +
           std::to_string(i % 7) + "}";
}

// Lines that a block must not take as they come (or that test what it takes): each is
// checked at many places in the blocks.
const std::vector<std::string> odd_lines = {
    R"({"$type":"Event","level":"WARN","ts":1})",                   // keys in another order
    R"({"$type":"Event","ts":2,"level":"INFO"})",                   // a prefix of the shape
    R"({"$type":"Event","ts":1,"ts":2})",                           // a field twice
    R"({"a":1,"a":2})",                                             // a map keeps both
    R"([9223372036854775807,-9223372036854775808,0,-0,1e3,-1.5])",  // int64 limits
    R"({"n":9223372036854775808})",                                 // out of range
    R"([-9223372036854775809])",
    "{\"s\":\"caf\xC3\xA9 \\u00e9 \\\"q\\\" \\n\"}",  // escapes, UTF-8
    R"({"a":1} {"b":2})",                             // two values on a line
    R"([1][2])",
    R"({"a":1}x)",
    R"({"a":1} {"b":)",  // and a cut-off one
    R"({"a":)",          // a value over two lines
    R"(1})",
    "   \t ",  // blank
    "\r",
    R"(  {"padded":true}  )",
    "{\"crlf\":1}\r",
    "42",  // scalars at the root
    R"("text")",
    "null",
    "1 2",
    R"({"$id":0,"$type":"Node","next":{"$ref":1}})",  // a forward $ref
    R"({"$ref":5})",                                  // unknown $ref
    R"({"$type":"T","$$x":1,"y":{"$type":"T","$$x":{"$float":"nan"}}})",
    R"({"$bytes":"Zm9v"})",
    R"({"$foo":1})",
    R"([1,2,)",
    R"({"deep":[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]})",
};

// Lines stage 1 rejects: their whole block is read line by line, so they are placed apart.
const std::vector<std::string> stage1_errors = {
    "{\"s\":\"bad \xFF byte\"}",  // invalid UTF-8
    "{\"s\":\"tab\there\"}",      // an unescaped control character
    R"({"s":"never closed)",
};

TEST(jsonl_blocks, every_line_as_read_alone) {
    std::vector<std::string> lines;
    // ~600 KiB: odd lines land at every kind of place in the 64 KiB blocks, between runs of
    // ordinary events of varying lengths.
    for (std::size_t i = 0; lines.size() < 4000; ++i) {
        lines.push_back(event(i));
        if (i % 3 == 0) lines.push_back(odd_lines[(i / 3) % odd_lines.size()]);
        if (i % 1000 == 999) lines.push_back(stage1_errors[(i / 1000) % stage1_errors.size()]);
    }
    expect_same_as_alone(lines, true);
    lines.push_back(event(1));  // a last line without a newline, and a cut-off last line
    expect_same_as_alone(lines, false);
    lines.back() = R"({"$type":"Event","ts":)";
    expect_same_as_alone(lines, false);
}

TEST(jsonl_blocks, lines_longer_than_a_block) {
    const std::string big = R"({"big":")" + std::string(70 * 1024, 'b') + R"("})";
    std::vector<std::string> lines;
    for (std::size_t i = 0; i < 1500; ++i) {
        lines.push_back(event(i));
        if (i % 500 == 7) lines.push_back(big);
    }
    expect_same_as_alone(lines, true);
}

TEST(jsonl_blocks, a_line_across_the_end_of_a_block) {
    // Lines of one length that does not divide 64 KiB, so block ends fall inside lines and the
    // reader must cut each block at the last whole line; also with a bad line at each cut.
    for (std::size_t pad : {0u, 1u, 63u, 64u, 65u}) {
        std::vector<std::string> lines;
        std::size_t size = 0;
        for (std::size_t i = 0; size < 3 * 64 * 1024; ++i) {
            lines.push_back(R"({"i":)" + std::to_string(i) + R"(,"p":")" + std::string(pad, 'p') +
                            R"("})");
            size += lines.back().size() + 1;
            if (size % (64 * 1024) < 80) lines.push_back(R"({"cut":)");
        }
        expect_same_as_alone(lines, true);
    }
}

TEST(jsonl_blocks, odd_last_line_of_a_block) {
    // Each odd line as the last whole line of the first 64 KiB block: simdjson drops a value
    // cut off at the end of its input from the stream, which must not hide it.
    for (const auto& odd : odd_lines) {
        std::vector<std::string> lines;
        std::size_t size = 0;
        while (size + odd.size() + 1 + 100 <= 64 * 1024) {
            lines.push_back(event(lines.size()));
            size += lines.back().size() + 1;
        }
        lines.push_back(R"({"fill":")" + std::string(64 * 1024 - size - odd.size() - 12, 'f') +
                        R"("})");
        lines.push_back(odd);  // ends at most 1 byte before 64 KiB
        lines.push_back(R"({"next":")" + std::string(300, 'n') + R"("})");
        lines.push_back(event(1));
        expect_same_as_alone(lines, true);
    }
}

TEST(jsonl_blocks, byte_order_mark_and_blank_runs) {
    // The mark at the start of the text is skipped (its line goes alone; elsewhere it is an
    // error, as jsonl_reader.byte_order_mark_is_skipped checks); runs of blank lines, CRLF and
    // indented lines between blocks' lines keep their numbers.
    std::vector<std::string> lines = {"\xEF\xBB\xBF" + event(0)};
    for (std::size_t i = 1; i < 3000; ++i) {
        lines.push_back(i % 7 == 0 ? "  " + event(i) + "\r" : event(i));
        if (i % 11 == 0)
            for (int b = 0; b < 5; ++b)
                lines.push_back(b % 2 ? "" : " \t\r");
    }
    expect_same_as_alone(lines, true);
}

TEST(jsonl_blocks, records_of_one_shape_share_their_type_across_blocks) {
    std::string text;
    for (std::size_t i = 0; i < 2000; ++i)
        text += event(i) + "\n";
    jsonl_reader r(text);
    message m;
    record_type_ptr first;
    std::size_t n = 0;
    while (r.next(m)) {
        const auto& type = m.root.get<record>().type;
        if (!first) first = type;
        EXPECT_EQ(type.get(), first.get()) << "line " << r.line();
        ++n;
    }
    EXPECT_FALSE(r.error());
    EXPECT_EQ(n, 2000u);
}

// Numbers are read without simdjson when they are short: integers, and decimals without an
// exponent whose digits make at most 2^53 (one division by a power of ten). Each must be the
// correctly rounded value, as strtod and simdjson give; the rest go to simdjson.
TEST(jsonl_blocks, numbers_read_without_simdjson_are_exact) {
    std::mt19937_64 rng(7);
    std::vector<std::string> texts = {"0.1",
                                      "-0.0",
                                      "0.0",
                                      "1.5",
                                      "9007199254740992.0",
                                      "9007199254740993.0",
                                      "900719925474099.35",
                                      "123456789012345678.9",
                                      "0.1234567890123456789",
                                      "1.7976931348623157",
                                      "4.9406564584124654",
                                      "-2.5"};
    for (int i = 0; i < 20000; ++i) {
        const int int_digits = 1 + static_cast<int>(rng() % 12);
        const int frac_digits = 1 + static_cast<int>(rng() % 12);
        std::string t = (rng() % 4 == 0) ? "-" : "";
        t += std::to_string(1 + rng() % 9);
        for (int d = 1; d < int_digits; ++d)
            t += static_cast<char>('0' + rng() % 10);
        t += '.';
        for (int d = 0; d < frac_digits; ++d)
            t += static_cast<char>('0' + rng() % 10);
        texts.push_back(t);
    }
    // Lines of 1000 numbers (~15 KB): most are read from a block, the last ones alone.
    std::string text;
    for (std::size_t i = 0; i < texts.size(); ++i)
        text += (i % 1000 == 0 ? "[" : "") + texts[i] + (i % 1000 == 999 ? "]\n" : ",");
    text += "0]\n[9223372036854775807,-123]\n";
    jsonl_reader r(text);
    message m;
    std::size_t at = 0;
    while (at < texts.size()) {
        ASSERT_TRUE(r.next(m)) << r.error()->message;
        for (const auto& e : m.root.get<list>()) {
            if (at == texts.size()) break;  // the closing 0
            const double want = std::strtod(texts[at].c_str(), nullptr);
            ASSERT_TRUE(test::same_value(e, want)) << texts[at];
            ++at;
        }
    }
    ASSERT_TRUE(r.next(m));
    EXPECT_TRUE(
        test::same_message(m, {list{std::int64_t{9223372036854775807}, std::int64_t{-123}}, {}}));
    EXPECT_FALSE(r.next(m));
    EXPECT_FALSE(r.error());
}

}  // namespace
}  // namespace objwire
