// Internal to objwire::config: a parsed TOML file flattened into a list of entries with their
// places, so the schema code (convert.cpp, apply.cpp) never sees toml++ and toml++ stays in
// loader.cpp.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "config/settings.hpp"

namespace objwire::config::detail {

struct source_pos {
    std::uint32_t line = 0;  // 1-based; 0 when unknown
    std::uint32_t column = 0;
};

enum class toml_type { table, array, string, integer, floating, boolean, date_time };

// One element of an array value (nested arrays and tables only by type and place).
struct toml_item {
    toml_type type = toml_type::string;
    source_pos pos;
    std::string string_value;  // type string
    std::string display;       // as TOML text
};

// One node of the document. Tables come before their contents (pre-order); the elements of
// an array are in its `items`, not listed as entries.
struct toml_entry {
    std::vector<std::string> path;  // {"server", "listen"}
    toml_type type = toml_type::table;
    source_pos key_pos;              // where the key is written
    source_pos value_pos;            // where the value starts
    std::string string_value;        // type string
    std::int64_t integer_value = 0;  // type integer
    bool bool_value = false;         // type boolean
    std::string display;             // scalar value as TOML text ("\"ten\"", "1.5", "1979-05-27")
    std::vector<toml_item> items;    // type array
};

// Syntax errors come back as "SOURCE:LINE:COLUMN: description".
outcome<std::vector<toml_entry>> parse_toml_document(std::string_view text,
                                                     std::string_view source_name);

// The whole file, or "PATH: cannot read config file: REASON".
outcome<std::string> read_text_file(const std::filesystem::path& path);

// `text` as a TOML basic string, quotes included.
std::string quote_toml(std::string_view text);

}  // namespace objwire::config::detail
