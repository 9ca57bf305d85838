// TOML syntax errors in objwire's words (config/toml_mistakes.hpp).
#include "config/toml_mistakes.hpp"

#include <algorithm>
#include <array>
#include <vector>

namespace objwire::config::detail {
namespace {

std::vector<std::string_view> split_lines(std::string_view text) {
    std::vector<std::string_view> out;
    while (!text.empty()) {
        const auto nl = text.find('\n');
        auto line = text.substr(0, nl);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        out.push_back(line);
        if (nl == std::string_view::npos) break;
        text.remove_prefix(nl + 1);
    }
    return out;
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
        s.remove_suffix(1);
    return s;
}

// Where `c` first occurs outside a quoted string, or npos.
std::size_t find_unquoted(std::string_view line, char c) {
    char quote = 0;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char ch = line[i];
        if (quote != 0) {
            if (ch == '\\' && quote == '"') {
                ++i;
            } else if (ch == quote) {
                quote = 0;
            }
        } else if (ch == '"' || ch == '\'') {
            quote = ch;
        } else if (ch == c) {
            return i;
        }
    }
    return std::string_view::npos;
}

std::string_view without_comment(std::string_view line) {
    return trim(line.substr(0, find_unquoted(line, '#')));
}

// "[server]" -> "server"; "" for a line that is no table header.
std::string_view header_name(std::string_view line) {
    line = without_comment(line);
    if (line.size() < 2 || line.front() != '[' || line.back() != ']') return {};
    return trim(line.substr(line.starts_with("[[") ? 2 : 1,
                            line.size() - (line.starts_with("[[") ? 4 : 2)));
}

// The table the keys of line `index` (0-based) belong to.
std::string_view table_at(const std::vector<std::string_view>& lines, std::size_t index) {
    std::string_view table;
    for (std::size_t i = 0; i < index && i < lines.size(); ++i)
        if (const auto name = header_name(lines[i]); !name.empty()) table = name;
    return table;
}

std::string full_name(std::string_view table, std::string_view key) {
    return table.empty() ? std::string(key) : std::string(table) + "." + std::string(key);
}

std::string quoted(std::string_view text) {
    return "'" + std::string(text) + "'";
}

std::uint32_t column_of(std::string_view line, std::string_view part) {
    return static_cast<std::uint32_t>(part.data() - line.data()) + 1;
}

// One `key = value` line, as written.
struct assignment {
    std::string_view key;    // trimmed
    std::string_view value;  // trimmed, comment and all
    std::string name;        // the full dotted key
};

std::optional<assignment> assignment_at(const std::vector<std::string_view>& lines,
                                        std::size_t index, char equals = '=') {
    const auto line = lines[index];
    const auto at = find_unquoted(line, equals);
    if (at == std::string_view::npos) return std::nullopt;
    const auto key = trim(line.substr(0, at));
    if (key.empty() || key.front() == '[') return std::nullopt;
    return assignment{key, trim(line.substr(at + 1)), full_name(table_at(lines, index), key)};
}

// The first line before `index` that sets the same full key, or npos.
std::size_t earlier_setting(const std::vector<std::string_view>& lines, std::size_t index,
                            const std::string& name) {
    for (std::size_t i = 0; i < index; ++i) {
        if (const auto a = assignment_at(lines, i); a && a->name == name) return i;
    }
    return std::string_view::npos;
}

bool is_thousands_number(std::string_view v) {
    if (v.empty() || v.find(',') == std::string_view::npos) return false;
    return std::all_of(v.begin(), v.end(),
                       [](char c) { return (c >= '0' && c <= '9') || c == ','; });
}

// A value written without the quotes it needs (or a boolean spelt otherwise): the message.
std::string bare_value_message(const assignment& a, std::string_view value) {
    const std::string head = quoted(a.name) + " = " + std::string(value) + " is not a TOML value: ";
    const std::string key(a.key);
    static constexpr std::array<std::string_view, 8> truthy{"True", "TRUE", "yes", "Yes",
                                                            "YES",  "on",   "On",  "ON"};
    static constexpr std::array<std::string_view, 8> falsy{"False", "FALSE", "no",  "No",
                                                           "NO",    "off",   "Off", "OFF"};
    const auto in = [&](const auto& words) {
        return std::find(words.begin(), words.end(), value) != words.end();
    };
    if (in(truthy)) return head + "booleans are true or false, lowercase: " + key + " = true";
    if (in(falsy)) return head + "booleans are true or false, lowercase: " + key + " = false";
    if (is_thousands_number(value)) {
        std::string digits(value);
        digits.erase(std::remove(digits.begin(), digits.end(), ','), digits.end());
        return head + "numbers have no ',': " + key + " = " + digits;
    }
    std::string escaped;
    for (const char c : value) {
        if (c == '"' || c == '\\') escaped += '\\';
        escaped += c;
    }
    const bool has_unit = !value.empty() && value.front() >= '0' && value.front() <= '9';
    return head +
           (has_unit ? "a value with a unit or other text is a string, quoted: "
                     : "strings are quoted: ") +
           key + " = \"" + escaped + "\"";
}

// Whether a string value starting at value[0] (a quote) is closed on its line.
bool string_closed(std::string_view value) {
    const char quote = value.front();
    for (std::size_t i = 1; i < value.size(); ++i) {
        if (value[i] == '\\' && quote == '"') {
            ++i;
        } else if (value[i] == quote) {
            return true;
        }
    }
    return false;
}

std::optional<explained_error> explain_assignment(const std::vector<std::string_view>& lines,
                                                  std::size_t index, std::string_view what) {
    const auto line = lines[index];
    const auto a = assignment_at(lines, index);
    const auto n = static_cast<std::uint32_t>(index + 1);
    if (!a) {
        // `listen: "a"`, as in YAML or JSON.
        if (const auto c = assignment_at(lines, index, ':'); c && !c->value.empty()) {
            return explained_error{
                n, column_of(line, c->key),
                quoted(c->name) + " is set with ':': TOML sets a key with '=': " +
                    std::string(c->key) + " = " + std::string(without_comment(c->value))};
        }
        return std::nullopt;
    }
    const auto column =
        a->value.empty() ? static_cast<std::uint32_t>(line.size() + 1) : column_of(line, a->value);
    const auto say = [&](std::string message) {
        return explained_error{n, column, std::move(message)};
    };
    if (a->key.find_first_of(" \t") != std::string_view::npos && a->key.front() != '"' &&
        a->key.front() != '\'') {
        std::string fixed(a->key);
        std::replace_if(
            fixed.begin(), fixed.end(), [](char c) { return c == ' ' || c == '\t'; }, '_');
        return explained_error{
            n, column_of(line, a->key),
            quoted(a->key) + " is not a key: keys have no spaces (did you mean '" + fixed + "'?)"};
    }
    if (what.find("cannot redefine existing") != std::string_view::npos) {
        const auto first = earlier_setting(lines, index, a->name);
        return explained_error{n, column_of(line, a->key),
                               quoted(a->name) + " is set twice" +
                                   (first == std::string_view::npos
                                        ? std::string()
                                        : " (first on line " + std::to_string(first + 1) + ")") +
                                   ": a key is set once; delete one of the lines"};
    }
    const auto value = without_comment(a->value);
    if (value.empty()) return say(quoted(a->name) + " has no value after '='");
    const char first = value.front();
    if (first == '"' || first == '\'') {
        if (value.starts_with("\"\"\"") || value.starts_with("'''")) return std::nullopt;
        if (!string_closed(a->value)) {
            return say(quoted(a->name) + ": the string is not closed: end it with " +
                       std::string(1, first) + " on the same line: " + std::string(a->key) + " = " +
                       std::string(a->value) + std::string(1, first));
        }
        if (what.find("unknown escape") != std::string_view::npos) {
            return say(quoted(a->name) + " = " + std::string(value) +
                       ": '\\' starts an escape sequence in \"...\": write '\\\\', or use single "
                       "quotes, which take text as it is: " +
                       std::string(a->key) + " = '" +
                       std::string(value.substr(1, value.size() - (string_closed(value) ? 2 : 1))) +
                       "'");
        }
        return say(quoted(a->name) + " = " + std::string(value) +
                   ": only a comment (# ...) may follow a value on its line; put the next key on "
                   "a line of its own");
    }
    if (first == '[') {
        return say(quoted(a->name) +
                   ": the array is not closed, or an element is not a value: write it as [\"a\", "
                   "\"b\"], strings quoted, closed with ]");
    }
    if (first == '{') {
        return say(quoted(a->name) +
                   ": the inline table is not closed on its line: write it as { key = \"value\" "
                   "}, or as a [table] of its own");
    }
    return say(bare_value_message(*a, value));
}

}  // namespace

explained_error explain_syntax_error(std::string_view text, std::uint32_t line,
                                     std::uint32_t column, std::string_view description) {
    const auto lines = split_lines(text);
    explained_error fallback{line, column, std::string(description)};
    if (line == 0 || line > lines.size()) return fallback;
    const std::size_t index = line - 1;
    const auto here = trim(lines[index]);
    // What the parser was reading: "Error while parsing key-value pair: ..." -> the rest.
    const auto colon = description.find(": ");
    const auto what = colon == std::string_view::npos ? description : description.substr(colon + 2);
    if (here.starts_with('[')) {
        const auto name = header_name(here);
        if (name.empty()) {
            const auto open = trim(without_comment(here).substr(here.starts_with("[[") ? 2 : 1));
            return {line, 1,
                    "the table header is not closed: write [" + std::string(open) +
                        "] on a line of its own"};
        }
        if (what.find("cannot redefine existing table") != std::string_view::npos) {
            std::size_t first = std::string_view::npos;
            for (std::size_t i = 0; i < index && first == std::string_view::npos; ++i)
                if (header_name(lines[i]) == name) first = i;
            return {line, 1,
                    "[" + std::string(name) + "] is written twice" +
                        (first == std::string_view::npos
                             ? std::string()
                             : " (first on line " + std::to_string(first + 1) + ")") +
                        ": put all its keys under one [" + std::string(name) + "]"};
        }
        return fallback;
    }
    if (auto explained = explain_assignment(lines, index, what)) return *explained;
    // No rule: the parser's words, with the key when the line names one.
    if (const auto a = assignment_at(lines, index))
        fallback.message = quoted(a->name) + ": " + std::string(description);
    return fallback;
}

}  // namespace objwire::config::detail
