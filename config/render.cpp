// Effective settings printed as TOML that parses back to equal settings, each line with where
// its value came from (default, a file line, env, a flag) - `objwire config show`.
#include "config/convert.hpp"
#include "config/key_names.hpp"
#include "config/settings.hpp"
#include "config/suggest.hpp"

#include <algorithm>

#include "config/toml_document.hpp"

namespace objwire::config {
namespace {

using namespace detail;

std::string list_text(const std::vector<std::string>& items) {
    std::string out = "[";
    for (const auto& item : items)
        out += (out.size() > 1 ? ", " : "") + quote_toml(item);
    return out + "]";
}

// A value as to_toml prints it (and as default_text is written).
template <class S>
std::string toml_text(const key_def<S>& key, const typed_value& v) {
    switch (key.kind) {
        case value_kind::string:
        case value_kind::enumeration:
            return quote_toml(v.text);
        case value_kind::integer:
            return std::to_string(v.number);
        case value_kind::boolean:
            return v.flag ? "true" : "false";
        case value_kind::size: {
            const auto text = format_size(v.number);
            return is_plain_integer(text) ? text : quote_toml(text);
        }
        case value_kind::duration:
            return quote_toml(
                format_duration(std::chrono::microseconds(static_cast<std::int64_t>(v.number))));
        case value_kind::bandwidth:
            return quote_toml(format_bandwidth(v.number));
        case value_kind::host_port:
            return quote_toml(format_host_port(v.text, static_cast<std::uint16_t>(v.number)));
        case value_kind::string_list:
            return list_text(v.list);
    }
    return "";
}

struct rendered_line {
    std::string section;
    std::string text;
    std::string origin;
};

// "PATH:LINE" when the layer knows where `key` is written, else the layer's name.
template <class S>
std::string layer_origin(const settings_layer<S>& layer, std::string_view key) {
    for (const auto& l : layer.lines) {
        if (l.key == key) return std::string(layer.origin) + ":" + std::to_string(l.line);
    }
    return std::string(layer.origin);
}

// The origin of a value: the last layer whose `get` differs from the one before it.
template <class S, class Get>
std::string origin_of(std::span<const settings_layer<S>> layers, std::string_view key, Get get) {
    const S defaults{};
    std::string origin = "default";
    auto previous = get(defaults);
    for (const auto& layer : layers) {
        auto current = get(layer.settings);
        if (current != previous) origin = layer_origin(layer, key);
        previous = std::move(current);
    }
    return origin;
}

// A NAME key prints one table per name ([types.Person] transient = [...]); with no name set,
// its placeholder with an empty list, which parses back to nothing.
template <class S>
void render_named(const key_def<S>& key, const S& settings,
                  std::span<const settings_layer<S>> layers, bool with_layers,
                  std::vector<rendered_line>& lines) {
    auto parts = split_name(key.name);
    const std::string leaf(parts.back());
    parts.pop_back();
    const auto value = key.access.get(settings);
    if (value.named.empty()) {
        lines.push_back({join(parts, "."), leaf + " = []", "default"});
        return;
    }
    for (const auto& entry : value.named) {
        // Not a structured binding: clang 14 cannot capture one in a lambda.
        const auto& name = entry.first;
        const auto& items = entry.second;
        std::vector<std::string> path(parts.begin(), parts.end());
        path[key.name_component] = name;
        const std::string section = path_text(path);
        path.push_back(leaf);
        const auto items_of = [&](const S& s) {
            for (const auto& [n, list] : key.access.get(s).named) {
                if (n == name) return list;
            }
            return std::vector<std::string>{};
        };
        lines.push_back({section, leaf + " = " + list_text(items),
                         with_layers ? origin_of(layers, path_text(path), items_of) : "set"});
    }
}

template <class S>
std::string render(const schema<S>& sc, const S& settings,
                   std::span<const settings_layer<S>> layers, bool with_layers) {
    const S defaults{};
    std::vector<rendered_line> lines;
    for (const auto& key : sc.keys) {
        if (key.name_component != 0) {
            render_named(key, settings, layers, with_layers, lines);
            continue;
        }
        const auto value = key.access.get(settings);
        std::string origin = value == key.access.get(defaults) ? "default" : "set";
        if (with_layers) {
            origin = origin_of(layers, key.name, [&](const S& s) { return key.access.get(s); });
        }
        lines.push_back({std::string(section_of(key.name)),
                         std::string(leaf_of(key.name)) + " = " + toml_text(key, value), origin});
    }
    std::size_t width = 0;
    for (const auto& l : lines)
        width = std::max(width, l.text.size());
    std::string out = "# " + std::string(sc.program) + " effective settings\n";
    std::string current;
    for (const auto& l : lines) {
        if (l.section != current) {
            out += "\n[" + l.section + "]\n";
            current = l.section;
        }
        out += l.text + std::string(width - l.text.size() + 2, ' ') + "# " + l.origin + "\n";
    }
    return out;
}

}  // namespace

std::string to_toml(const daemon_settings& s) {
    return render<daemon_settings>(daemon_schema(), s, {}, false);
}

std::string to_toml(const client_settings& s) {
    return render<client_settings>(client_schema(), s, {}, false);
}

std::string to_toml(const daemon_settings& s,
                    std::span<const settings_layer<daemon_settings>> layers) {
    return render(daemon_schema(), s, layers, true);
}

std::string to_toml(const client_settings& s,
                    std::span<const settings_layer<client_settings>> layers) {
    return render(client_schema(), s, layers, true);
}

outcome<std::vector<key_line>> key_lines(std::string_view text, std::string_view source_name) {
    auto document = detail::parse_toml_document(text, source_name);
    if (!document) return document.error();
    std::vector<key_line> out;
    for (const auto& entry : *document) {
        if (entry.type != toml_type::table) {
            out.push_back({path_text(entry.path), entry.key_pos.line});
        }
    }
    return out;
}

std::vector<key_change> changed_keys(const daemon_settings& from, const daemon_settings& to) {
    std::vector<key_change> out;
    for (const auto& key : daemon_schema().keys) {
        const auto was = key.access.get(from);
        const auto now = key.access.get(to);
        if (was == now) continue;
        out.push_back({std::string(key.name), toml_text(key, was), toml_text(key, now)});
    }
    std::ranges::sort(out, {}, &key_change::key);
    return out;
}

}  // namespace objwire::config
