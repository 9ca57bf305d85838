#include "client/jsonl/jsonl_diagnostics.hpp"

namespace objwire::jsonl_detail {
namespace {

// Length of the valid UTF-8 sequence at p (1..4), or 0 if it is not one.
std::size_t utf8_sequence_length(const unsigned char* p, const unsigned char* end) {
    unsigned char c = p[0];
    if (c < 0x80) return 1;
    std::size_t n;
    unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        if (c == 0xE0) lo = 0xA0;  // overlong
        if (c == 0xED) hi = 0x9F;  // surrogates
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        if (c == 0xF0) lo = 0x90;  // overlong
        if (c == 0xF4) hi = 0x8F;  // past U+10FFFF
    } else {
        return 0;
    }
    if (static_cast<std::size_t>(end - p) < n) return 0;
    if (p[1] < lo || p[1] > hi) return 0;
    for (std::size_t i = 2; i < n; ++i)
        if ((p[i] & 0xC0) != 0x80) return 0;
    return n;
}

// Offset of the first byte that does not start valid UTF-8, or npos.
std::size_t find_invalid_utf8(std::string_view s) {
    auto* b = reinterpret_cast<const unsigned char*>(s.data());
    auto* e = b + s.size();
    for (auto* p = b; p < e;) {
        std::size_t n = utf8_sequence_length(p, e);
        if (n == 0) return static_cast<std::size_t>(p - b);
        p += n;
    }
    return std::string_view::npos;
}

// Offset of the opening quote of a string that is never closed, or npos.
std::size_t find_unclosed_string(std::string_view s) {
    std::size_t open = std::string_view::npos;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (open == std::string_view::npos) {
            if (s[i] == '"') open = i;
        } else if (s[i] == '\\') {
            ++i;
        } else if (s[i] == '"') {
            open = std::string_view::npos;
        }
    }
    return open;
}

// Offset of the first control character inside a string, or npos.
std::size_t find_unescaped_control(std::string_view s) {
    bool in_string = false;
    for (std::size_t i = 0; i < s.size(); ++i) {
        auto c = static_cast<unsigned char>(s[i]);
        if (!in_string) {
            in_string = c == '"';
        } else if (c == '\\') {
            ++i;
        } else if (c == '"') {
            in_string = false;
        } else if (c < 0x20) {
            return i;
        }
    }
    return std::string_view::npos;
}

// Offset just past the first JSON value in `s` by bracket and quote counting, or npos if it
// never ends; only for locating errors, so it need not validate anything.
std::size_t root_value_end(std::string_view s) {
    auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
    std::size_t i = 0, n = s.size();
    while (i < n && is_space(s[i]))
        ++i;
    if (i == n) return std::string_view::npos;
    if (s[i] != '{' && s[i] != '[' && s[i] != '"') {  // a number or literal
        while (i < n && !is_space(s[i]) &&
               std::string_view(",:[]{}\"").find(s[i]) == std::string_view::npos)
            ++i;
        return i;
    }
    int depth = 0;
    bool in_string = false;
    for (; i < n; ++i) {
        char c = s[i];
        if (in_string) {
            if (c == '\\') {
                ++i;
            } else if (c == '"') {
                in_string = false;
                if (depth == 0) return i + 1;
            }
        } else if (c == '"') {
            in_string = true;
        } else if (c == '{' || c == '[') {
            ++depth;
        } else if ((c == '}' || c == ']') && --depth == 0) {
            return i + 1;
        }
    }
    return std::string_view::npos;
}

std::string hex_byte(unsigned char c) {
    static constexpr char hex[] = "0123456789ABCDEF";
    return {'0', 'x', hex[c >> 4], hex[c & 15]};
}

}  // namespace

std::optional<line_error> locate_line_error(simdjson::error_code e, std::string_view line) {
    constexpr auto npos = std::string_view::npos;
    std::size_t i;
    switch (e) {
        case simdjson::INCOMPLETE_ARRAY_OR_OBJECT:
        case simdjson::TRAILING_CONTENT:
            // simdjson says this for both a cut-off line and text after the value.
            i = root_value_end(line);
            while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
                ++i;
            if (i < line.size()) return line_error{i, trailing_text_message()};
            return line_error{line.size(),
                              "truncated JSON: the line ends before every object and array is "
                              "closed"};
        case simdjson::UTF8_ERROR:
            i = find_invalid_utf8(line);
            if (i == npos) return line_error{npos, "invalid UTF-8"};
            return line_error{i, "invalid UTF-8: byte " +
                                     hex_byte(static_cast<unsigned char>(line[i])) +
                                     " does not start a valid UTF-8 sequence (the text must be "
                                     "UTF-8 encoded)"};
        case simdjson::UNCLOSED_STRING:
            return line_error{find_unclosed_string(line),
                              "truncated JSON: this string is never closed (the line ends inside "
                              "it)"};
        case simdjson::UNESCAPED_CHARS:
            i = find_unescaped_control(line);
            if (i == npos) return line_error{npos, "unescaped control character"};
            return line_error{i, "control character " +
                                     hex_byte(static_cast<unsigned char>(line[i])) +
                                     " inside a string must be escaped (\\n, \\t or \\u00XX)"};
        default:
            return std::nullopt;
    }
}

std::string token_error_message(simdjson::error_code e) {
    switch (e) {
        case simdjson::TAPE_ERROR:
        case simdjson::INCORRECT_TYPE:
            return "invalid JSON: unexpected character, or a missing ',' ':' '}' or ']'";
        case simdjson::NUMBER_ERROR:
            return "invalid JSON number";
        case simdjson::T_ATOM_ERROR:
        case simdjson::F_ATOM_ERROR:
        case simdjson::N_ATOM_ERROR:
            return "invalid JSON literal (expected true, false or null)";
        case simdjson::STRING_ERROR:
            return "invalid JSON string (bad escape sequence or lone surrogate)";
        default:
            return std::string("invalid JSON: ") + simdjson::error_message(e);
    }
}

std::string trailing_text_message() {
    return "unexpected text after the JSON value (a line holds exactly one value; put the next "
           "one on its own line)";
}

// The reader's own bound, and the limit that applies when sending, which is usually lower.
std::string too_deep_message(std::size_t max_depth) {
    return "JSON nested deeper than " + std::to_string(max_depth) +
           " levels of arrays and objects (the JSON reader's bound; objwired accepts values "
           "nested at most limits.max_depth levels, 64 by default)";
}

std::string integer_out_of_range_message(std::string_view digits) {
    return "integer " + std::string(digits) +
           " is out of range: integers must fit in int64 "
           "(-9223372036854775808..9223372036854775807); write it as a string, or with a '.' to "
           "make it a double";
}

const char* json_type_name(simdjson::ondemand::json_type t) {
    namespace od = simdjson::ondemand;
    switch (t) {
        case od::json_type::array:
            return "an array";
        case od::json_type::object:
            return "an object";
        case od::json_type::number:
            return "a number";
        case od::json_type::string:
            return "a string";
        case od::json_type::boolean:
            return "a boolean";
        case od::json_type::null:
            return "null";
    }
    return "a value";
}

}  // namespace objwire::jsonl_detail
