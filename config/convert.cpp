// Values checked against their key and converted (config/convert.hpp).
#include "config/convert.hpp"
#include "config/key_names.hpp"
#include "config/suggest.hpp"

#include <algorithm>
#include <array>
#include <limits>

namespace objwire::config::detail {

raw_value from_entry(const toml_entry& e, std::string name) {
    return {e.type,       false,     e.string_value, e.integer_value,
            e.bool_value, e.display, e.items,        std::move(name)};
}

bool is_plain_integer(std::string_view text) {
    if (!text.empty() && text.front() == '-') text.remove_prefix(1);
    return !text.empty() &&
           std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

raw_value from_text(std::string_view text) {
    raw_value v;
    v.from_text = true;
    v.string_value = std::string(text);
    v.display = is_plain_integer(text) ? std::string(text) : quote_toml(text);
    return v;
}

std::string_view type_name(toml_type t) {
    switch (t) {
        case toml_type::table:
            return "table";
        case toml_type::array:
            return "array";
        case toml_type::string:
            return "string";
        case toml_type::integer:
            return "integer";
        case toml_type::floating:
            return "float";
        case toml_type::boolean:
            return "boolean";
        case toml_type::date_time:
            return "date/time";
    }
    return "value";
}

std::string got(const raw_value& v) {
    if (v.from_text) return v.display;
    std::string out(type_name(v.type));
    if (!v.display.empty()) out += " " + v.display;
    return out;
}

std::string_view kind_name(value_kind k) {
    switch (k) {
        case value_kind::string:
            return "string";
        case value_kind::integer:
            return "int";
        case value_kind::boolean:
            return "bool";
        case value_kind::size:
            return "size";
        case value_kind::duration:
            return "duration";
        case value_kind::bandwidth:
            return "bandwidth";
        case value_kind::host_port:
            return "host_port";
        case value_kind::enumeration:
            return "enum";
        case value_kind::string_list:
            return "string_list";
    }
    return "value";
}

template <class S>
std::string expected_text(const key_def<S>& key) {
    switch (key.kind) {
        case value_kind::string:
            return "a string";
        case value_kind::integer:
            return "an integer";
        case value_kind::boolean:
            return "a boolean (true or false)";
        case value_kind::size:
            return "a size (an integer number of bytes or a string like \"64KiB\")";
        case value_kind::duration:
            return "a duration (a string like \"250ms\" or \"5s\", or 0)";
        case value_kind::bandwidth:
            return "a bandwidth (integer bits per second or a string like \"100Mbit\")";
        case value_kind::host_port:
            return "a string \"HOST:PORT\" (e.g. \"127.0.0.1:7878\" or \"[::1]:7878\")";
        case value_kind::enumeration: {
            std::vector<std::string_view> choices(key.choices.begin(), key.choices.end());
            return "one of the strings " + join(choices, ", ");
        }
        case value_kind::string_list:
            return "an array of strings like [\"a\", \"b\"]";
    }
    return "a value";
}

// The allowed range or values, in the key's own units.
template <class S>
std::string allowed_text(const key_def<S>& key) {
    const auto range = [&](auto format) { return format(key.min) + ".." + format(key.max); };
    switch (key.kind) {
        case value_kind::integer:
            return range([](std::uint64_t n) { return std::to_string(n); });
        case value_kind::size:
            return range([](std::uint64_t n) { return format_size(n); });
        case value_kind::duration:
            return range([](std::uint64_t n) {
                if (n == 0) return std::string("0");
                return format_duration(std::chrono::microseconds(static_cast<std::int64_t>(n)));
            });
        case value_kind::bandwidth:
            return range([](std::uint64_t n) { return format_bandwidth(n); });
        case value_kind::host_port:
            return "HOST:PORT, port " + range([](std::uint64_t n) { return std::to_string(n); });
        case value_kind::enumeration: {
            std::vector<std::string_view> choices(key.choices.begin(), key.choices.end());
            return join(choices, "|");
        }
        case value_kind::boolean:
            return "true|false";
        case value_kind::string:
        case value_kind::string_list:
            return std::string(key.check_doc);
    }
    return "";
}

std::optional<std::int64_t> parse_int64(std::string_view text) {
    if (!is_plain_integer(text)) return std::nullopt;
    const bool negative = text.front() == '-';
    if (negative) text.remove_prefix(1);
    std::uint64_t n = 0;
    for (const char c : text) {
        const auto digit = static_cast<std::uint64_t>(c - '0');
        if (n > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) return std::nullopt;
        n = n * 10 + digit;
    }
    const auto limit = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    if (n > limit + (negative ? 1 : 0)) return std::nullopt;
    return negative ? static_cast<std::int64_t>(0 - n) : static_cast<std::int64_t>(n);
}

// Index of the first array element that is not a non-empty string, or -1.
std::ptrdiff_t first_bad_item(const std::vector<detail::toml_item>& items) {
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (items[i].type != toml_type::string || items[i].string_value.empty()) {
            return static_cast<std::ptrdiff_t>(i);
        }
    }
    return -1;
}

std::string_view trim_spaces(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
        s.remove_suffix(1);
    return s;
}

namespace {

template <class S>
error wrong_type(const key_def<S>& key, const raw_value& v, const std::string& name) {
    return error{name + " must be " + expected_text(key) + ", got " + got(v)};
}

template <class S>
error out_of_range(const key_def<S>& key, const raw_value& v, const std::string& name) {
    std::string msg =
        name + " = " + v.display + " is out of range (allowed " + allowed_text(key) + ")";
    if (key.kind == value_kind::size && v.type == toml_type::string) {
        if (const auto note = decimal_size_note(v.string_value); !note.empty()) msg += ": " + note;
    }
    return error{msg};
}

using list_items = std::vector<std::pair<std::string, std::string>>;  // (NAME, item)

// The items of a list given as text (env, flags): "a,b" for one name's list, or
// "Name.item,Name.item" for a NAME key given without its name.
template <class S>
outcome<list_items> list_items_from_text(const key_def<S>& key, const raw_value& v,
                                         const std::string& name) {
    list_items items;
    const bool qualified = key.name_component != 0 && v.name.empty();
    for (const auto part_view : split_name_by(v.string_value, ',')) {
        const auto part = trim_spaces(part_view);
        const auto dot = part.rfind('.');
        if (!qualified) {
            if (part.empty()) return error{name + " = " + v.display + " has an empty item"};
            items.emplace_back(v.name, part);
        } else if (dot == std::string_view::npos || dot == 0 || dot + 1 == part.size()) {
            return error{name + ": \"" + std::string(part) +
                         "\" must be TYPE.FIELD, e.g. \"Person.surname\" (several separated "
                         "by commas)"};
        } else {
            items.emplace_back(part.substr(0, dot), part.substr(dot + 1));
        }
    }
    return items;
}

template <class S>
outcome<list_items> list_items_from_array(const key_def<S>& key, const raw_value& v,
                                          const std::string& name) {
    if (v.type != toml_type::array) return wrong_type(key, v, name);
    if (const auto bad = first_bad_item(v.items); bad >= 0) {
        const auto& item = v.items[static_cast<std::size_t>(bad)];
        return error{name + ": element " + std::to_string(bad + 1) +
                     (item.type == toml_type::string
                          ? " is empty; write a field name"
                          : " must be a string (a field name), got " +
                                std::string(type_name(item.type)) + " " + item.display)};
    }
    list_items items;
    for (const auto& item : v.items)
        items.emplace_back(v.name, item.string_value);
    return items;
}

// A NAME key's items, grouped by NAME in the order each first appears; `own_name` (a key given
// with its name) has an entry even when its list is empty.
std::vector<std::pair<std::string, std::vector<std::string>>> group_by_name(
    list_items items, const std::string& own_name) {
    std::vector<std::pair<std::string, std::vector<std::string>>> named;
    if (!own_name.empty()) named.emplace_back(own_name, std::vector<std::string>{});
    for (auto& entry : items) {
        // Not a structured binding: clang 14 cannot capture one in a lambda.
        const auto& owner = entry.first;
        auto at = std::find_if(named.begin(), named.end(),
                               [&](const auto& e) { return e.first == owner; });
        if (at == named.end()) at = named.insert(named.end(), {owner, {}});
        at->second.push_back(std::move(entry.second));
    }
    return named;
}

// A string list from a TOML array, or from text (list_items_from_text).
template <class S>
outcome<typed_value> convert_list(const key_def<S>& key, const raw_value& v, std::string name) {
    if (key.name_component != 0 && !v.name.empty()) {
        auto parts = split_name(key.name);
        parts[key.name_component] = v.name;
        name = "'" + join(parts, ".") + "'";
    }
    auto items =
        v.from_text ? list_items_from_text(key, v, name) : list_items_from_array(key, v, name);
    if (!items) return items.error();
    if (key.check != nullptr) {
        for (const auto& entry : *items)
            if (auto why = key.check(entry.second); !why.empty()) return error{name + ": " + why};
    }
    typed_value out;
    if (key.name_component != 0) {
        out.named = group_by_name(std::move(*items), v.name);
        return out;
    }
    for (auto& entry : *items)
        out.list.push_back(std::move(entry.second));
    return out;
}

template <class S>
outcome<typed_value> convert_string(const key_def<S>& key, const raw_value& v,
                                    const std::string& name) {
    if (v.type != toml_type::string) return wrong_type(key, v, name);
    typed_value out;
    out.text = v.string_value;
    if (key.check != nullptr) {
        if (auto why = key.check(out.text); !why.empty())
            return error{name + " = " + v.display + " " + why};
    }
    return out;
}

template <class S>
outcome<typed_value> convert_enumeration(const key_def<S>& key, const raw_value& v,
                                         const std::string& name) {
    if (v.type != toml_type::string) return wrong_type(key, v, name);
    typed_value out;
    for (const auto choice : key.choices) {
        if (choice == v.string_value) {
            out.text = v.string_value;
            return out;
        }
    }
    std::vector<std::string_view> choices(key.choices.begin(), key.choices.end());
    std::string msg = name + " = " + v.display + " is not one of " + join(choices, ", ");
    if (const auto s = suggest(v.string_value, choices))
        msg += " (did you mean '" + std::string(*s) + "'?)";
    return error{msg};
}

// A TOML boolean, or as text one of true/1/yes/on or false/0/no/off.
template <class S>
outcome<typed_value> convert_boolean(const key_def<S>& key, const raw_value& v,
                                     const std::string& name) {
    typed_value out;
    if (v.type == toml_type::boolean && !v.from_text) {
        out.flag = v.bool_value;
        return out;
    }
    if (!v.from_text) return wrong_type(key, v, name);
    static constexpr std::array<std::string_view, 4> yes{"true", "1", "yes", "on"};
    static constexpr std::array<std::string_view, 4> no{"false", "0", "no", "off"};
    if (std::find(yes.begin(), yes.end(), v.string_value) != yes.end()) {
        out.flag = true;
    } else if (std::find(no.begin(), no.end(), v.string_value) == no.end()) {
        return wrong_type(key, v, name);
    }
    return out;
}

template <class S>
outcome<typed_value> convert_host_port(const key_def<S>& key, const raw_value& v,
                                       const std::string& name) {
    if (v.type != toml_type::string) return wrong_type(key, v, name);
    auto hp = parse_host_port(v.string_value);
    if (!hp) return error{name + ": " + hp.error().message};
    if (hp->port < key.min || hp->port > key.max) return out_of_range(key, v, name);
    typed_value out;
    out.text = hp->host;
    out.number = hp->port;
    return out;
}

// A bare number: a TOML integer, or an integer key's text. In the key's plain unit.
template <class S>
outcome<std::uint64_t> bare_number(const key_def<S>& key, const raw_value& v,
                                   const std::string& name) {
    std::int64_t signed_number = 0;
    if (v.type == toml_type::integer && !v.from_text) {
        signed_number = v.integer_value;
    } else if (const auto n = parse_int64(v.string_value)) {
        signed_number = *n;
    } else {
        return wrong_type(key, v, name);
    }
    if (signed_number < 0) return out_of_range(key, v, name);
    const auto number = static_cast<std::uint64_t>(signed_number);
    // A bare number could mean any unit (5 ms or 5 s?): only 0 means the same in all.
    if (key.kind == value_kind::duration && number != 0)
        return error{name + " = " + v.display + " " + duration_without_unit(v.display)};
    return number;
}

// Text with an optional unit, for a size, bandwidth or duration key.
template <class S>
outcome<std::uint64_t> number_with_unit(const key_def<S>& key, const raw_value& v,
                                        const std::string& name) {
    outcome<std::uint64_t> parsed = std::uint64_t{0};
    if (key.kind == value_kind::size) {
        parsed = parse_size(v.string_value);
    } else if (key.kind == value_kind::bandwidth) {
        parsed = parse_bandwidth(v.string_value);
    } else if (const auto d = parse_duration(v.string_value)) {
        parsed = static_cast<std::uint64_t>(d->count());
    } else {
        parsed = d.error();
    }
    if (!parsed) return error{name + ": " + parsed.error().message};
    return parsed;
}

// Numbers: a TOML integer in the key's plain unit, or text with an optional unit; then the
// key's range and (durations) resolution.
template <class S>
outcome<typed_value> convert_number(const key_def<S>& key, const raw_value& v,
                                    const std::string& name) {
    const bool is_integer = v.type == toml_type::integer && !v.from_text;
    outcome<std::uint64_t> number = std::uint64_t{0};
    if (is_integer || (v.from_text && key.kind == value_kind::integer))
        number = bare_number(key, v, name);
    else if (v.type == toml_type::string && key.kind != value_kind::integer)
        number = number_with_unit(key, v, name);
    else
        return wrong_type(key, v, name);
    if (!number) return number.error();
    if (*number < key.min || *number > key.max) return out_of_range(key, v, name);
    if (key.kind == value_kind::duration && *number % key.resolution != 0) {
        return error{
            name + " = " + v.display + " is finer than this setting's resolution (" +
            format_duration(std::chrono::microseconds(static_cast<std::int64_t>(key.resolution))) +
            ")"};
    }
    typed_value out;
    out.number = *number;
    return out;
}

}  // namespace

// Checks `v` against `key` and converts it. Errors start with the key name, no place.
template <class S>
outcome<typed_value> convert(const key_def<S>& key, const raw_value& v) {
    const std::string name = "'" + std::string(key.name) + "'";
    switch (key.kind) {
        case value_kind::string:
            return convert_string(key, v, name);
        case value_kind::enumeration:
            return convert_enumeration(key, v, name);
        case value_kind::boolean:
            return convert_boolean(key, v, name);
        case value_kind::host_port:
            return convert_host_port(key, v, name);
        case value_kind::string_list:
            return convert_list(key, v, name);
        case value_kind::integer:
        case value_kind::size:
        case value_kind::duration:
        case value_kind::bandwidth:
            break;
    }
    return convert_number(key, v, name);
}

template std::string allowed_text(const key_def<daemon_settings>&);
template std::string allowed_text(const key_def<client_settings>&);
template outcome<typed_value> convert(const key_def<daemon_settings>&, const raw_value&);
template outcome<typed_value> convert(const key_def<client_settings>&, const raw_value&);

}  // namespace objwire::config::detail
