// The only translation unit that includes toml++: parses TOML text into the flat entry list
// of toml_document.hpp, and reads config files.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <sstream>
#include <system_error>
#include <type_traits>

#include <toml++/toml.h>

#include "config/toml_document.hpp"
#include "config/toml_mistakes.hpp"

namespace objwire::config::detail {
namespace {

source_pos to_pos(const toml::source_region& region) {
    return {region.begin.line, region.begin.column};
}

toml_type type_of(const toml::node& node) {
    switch (node.type()) {
        case toml::node_type::table:
            return toml_type::table;
        case toml::node_type::array:
            return toml_type::array;
        case toml::node_type::string:
            return toml_type::string;
        case toml::node_type::integer:
            return toml_type::integer;
        case toml::node_type::floating_point:
            return toml_type::floating;
        case toml::node_type::boolean:
            return toml_type::boolean;
        default:
            return toml_type::date_time;
    }
}

std::string display_of(const toml::node& node) {
    if (const auto* s = node.as_string()) return quote_toml(s->get());
    std::string out;
    node.visit([&](const auto& v) {
        using node_t = std::remove_cvref_t<decltype(v)>;
        if constexpr (toml::is_value<node_t>) {
            std::ostringstream os;
            os << v;
            out = os.str();
        }
    });
    return out;
}

// No key of either schema is deeper than `table.key`; apply.cpp reports a table at its
// first unknown level and never looks inside it. Entries deeper than this are not listed, so a
// key of 20,000 dotted parts (a 40 KB file) costs 8 entries, not 200 million path copies.
constexpr std::size_t max_listed_depth = 8;

void flatten(const toml::table& table, std::vector<std::string>& path,
             std::vector<toml_entry>& out) {
    for (const auto& [key, node] : table) {
        path.emplace_back(key.str());
        toml_entry entry;
        entry.path = path;
        entry.type = type_of(node);
        entry.key_pos = to_pos(key.source());
        entry.value_pos = to_pos(node.source());
        if (entry.key_pos.line == 0) entry.key_pos = entry.value_pos;
        if (const auto* s = node.as_string()) entry.string_value = s->get();
        if (const auto* i = node.as_integer()) entry.integer_value = i->get();
        if (const auto* b = node.as_boolean()) entry.bool_value = b->get();
        entry.display = display_of(node);
        if (const auto* array = node.as_array()) {
            for (const auto& element : *array) {
                toml_item item{type_of(element), to_pos(element.source()), {}, display_of(element)};
                if (const auto* s = element.as_string()) item.string_value = s->get();
                entry.items.push_back(std::move(item));
            }
        }
        out.push_back(std::move(entry));
        if (const auto* sub = node.as_table(); sub && path.size() < max_listed_depth)
            flatten(*sub, path, out);
        path.pop_back();
    }
}

}  // namespace

outcome<std::vector<toml_entry>> parse_toml_document(std::string_view text,
                                                     std::string_view source_name) {
    toml::table root;
    try {
        root = toml::parse(text, source_name);
    } catch (const toml::parse_error& e) {
        const auto pos = to_pos(e.source());
        const auto explained = explain_syntax_error(text, pos.line, pos.column, e.description());
        return error{std::string(source_name) + ":" + std::to_string(explained.line) + ":" +
                     std::to_string(explained.column) + ": " + explained.message};
    }
    std::vector<toml_entry> entries;
    std::vector<std::string> path;
    flatten(root, path, entries);
    return entries;
}

outcome<std::string> read_text_file(const std::filesystem::path& path) {
    const auto fail = [&](std::string_view reason) {
        return error{path.string() + ": cannot read config file: " + std::string(reason)};
    };
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) return fail("it is a directory");
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"),
                                                         &std::fclose);
    if (!file) return fail(std::strerror(errno));
    std::string text;
    char block[8192];
    std::size_t n = 0;
    while ((n = std::fread(block, 1, sizeof block, file.get())) > 0)
        text.append(block, n);
    if (std::ferror(file.get())) return fail(std::strerror(errno));
    return text;
}

std::string quote_toml(std::string_view text) {
    std::string out = "\"";
    for (const char c : text) {
        switch (c) {
            case '"':
                out += "\\\"";
                break;
            case '\\':
                out += "\\\\";
                break;
            case '\n':
                out += "\\n";
                break;
            case '\t':
                out += "\\t";
                break;
            case '\r':
                out += "\\r";
                break;
            default:
                if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
                    char buf[8];
                    std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
                    out += buf;
                } else {
                    out += c;
                }
        }
    }
    out += '"';
    return out;
}

}  // namespace objwire::config::detail
