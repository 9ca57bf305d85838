// Internal to objwire::config: a value for a key - from a TOML file (typed) or from a flag or
// an environment variable (text, read by the key's kind) - checked against the key and
// converted to the typed value its field takes, with the key-named message when it does not
// fit (units: config/settings.hpp's parsers).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "config/schema.hpp"
#include "config/toml_document.hpp"

namespace objwire::config::detail {

// A value to apply: from a TOML file (typed) or from a flag or env var (text, read by kind).
struct raw_value {
    toml_type type = toml_type::string;
    bool from_text = false;
    std::string string_value;
    std::int64_t integer_value = 0;
    bool bool_value = false;
    std::string display;                   // how messages show it
    std::vector<detail::toml_item> items;  // a TOML array's elements
    std::string name;                      // a NAME key's name, when known
};

raw_value from_entry(const toml_entry& e, std::string name = {});
raw_value from_text(std::string_view text);

// An optional '-' and decimal digits.
bool is_plain_integer(std::string_view text);
std::string_view type_name(toml_type t);
// How messages show a value: "string \"ten\"", "integer 5", or the text as given.
std::string got(const raw_value& v);
// key_info::kind: "string", "size", ...
std::string_view kind_name(value_kind k);

// The allowed range or values, in the key's own units.
template <class S>
std::string allowed_text(const key_def<S>& key);

// Index of the first array element that is not a non-empty string, or -1.
std::ptrdiff_t first_bad_item(const std::vector<toml_item>& items);

// Checks `v` against `key` and converts it. Errors start with the key name, no place.
template <class S>
outcome<typed_value> convert(const key_def<S>& key, const raw_value& v);

// A duration written as a bare number other than 0 (config/units.cpp): "has no unit: write
// \"5s\" or \"5ms\" ...", to follow the value as written.
std::string duration_without_unit(std::string_view number);

}  // namespace objwire::config::detail
