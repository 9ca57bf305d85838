// Settings built from their sources: a TOML document (every error with its file:line:column),
// one override from a flag, and the OBJWIRE_* environment. Each value goes through the key's
// conversion (config/convert.hpp); nothing is ignored.
#include "config/convert.hpp"
#include "config/key_names.hpp"
#include "config/settings.hpp"

#include <algorithm>

#include "config/toml_document.hpp"

namespace objwire::config {
namespace {

using namespace detail;

struct placed_error {
    source_pos pos;
    std::string message;
};

error combine(std::string_view source, std::vector<placed_error> errors) {
    std::stable_sort(errors.begin(), errors.end(), [](const auto& a, const auto& b) {
        return std::pair(a.pos.line, a.pos.column) < std::pair(b.pos.line, b.pos.column);
    });
    constexpr std::size_t shown = 20;
    std::string out;
    for (std::size_t i = 0; i < errors.size() && i < shown; ++i) {
        if (i != 0) out += '\n';
        out += std::string(source) + ":" + std::to_string(errors[i].pos.line) + ":" +
               std::to_string(errors[i].pos.column) + ": " + errors[i].message;
    }
    if (errors.size() > shown) {
        out += "\n" + std::string(source) + ": " + std::to_string(errors.size() - shown) +
               " more errors";
    }
    return error{out};
}

// ---- the operations, once for both programs ------------------------------------------

// `elsewhere`: a table whose contents another parser reads (\"auth.users\"), or "".
template <class S>
outcome<S> parse_toml(const schema<S>& sc, std::string_view text, std::string_view source,
                      std::string_view elsewhere = {}) {
    auto document = detail::parse_toml_document(text, source);
    if (!document) return document.error();
    S settings;
    std::vector<placed_error> errors;
    std::vector<std::string> reported;  // tables whose contents are not looked at
    if (!elsewhere.empty()) reported.emplace_back(elsewhere);
    const auto section_names = sections(sc.keys);
    for (const auto& entry : *document) {
        const std::string name = path_text(entry.path);
        const bool inside_reported =
            std::any_of(reported.begin(), reported.end(), [&](const std::string& r) {
                return name.size() > r.size() && name.starts_with(r) && name[r.size()] == '.';
            });
        if (inside_reported || (!elsewhere.empty() && name == elsewhere)) continue;
        const bool is_table = entry.type == toml_type::table;
        std::string user_name;  // NAME of a key like types.NAME.transient
        if (const auto* key = find_key_at(sc, entry.path, user_name)) {
            if (is_table) reported.push_back(name);
            auto value = convert(*key, from_entry(entry, user_name));
            if (!value) {
                // A bad array element is pointed at, not the array.
                const auto bad = first_bad_item(entry.items);
                const bool at_item = key->kind == value_kind::string_list &&
                                     entry.type == toml_type::array && bad >= 0;
                errors.push_back(
                    {at_item ? entry.items[static_cast<std::size_t>(bad)].pos : entry.value_pos,
                     value.error().message});
                continue;
            }
            key->access.set(settings, *value);
            continue;
        }
        if (is_named_table(sc, entry.path)) {
            if (!is_table) {
                errors.push_back({entry.value_pos, "'" + name + "' must be a table ([" + name +
                                                       "]), got " + got(from_entry(entry))});
            }
            continue;
        }
        const bool is_section =
            std::find(section_names.begin(), section_names.end(), name) != section_names.end();
        if (is_section && is_table) continue;
        if (is_section) {
            errors.push_back({entry.value_pos, "'" + name + "' must be a table ([" + name +
                                                   "]), got " + got(from_entry(entry))});
        } else if (is_table) {
            reported.push_back(name);
            errors.push_back({entry.key_pos, unknown_table_message(sc, name)});
        } else {
            errors.push_back({entry.key_pos, unknown_key_message(sc, name)});
        }
    }
    if (!errors.empty()) return combine(source, std::move(errors));
    return settings;
}

template <class S>
std::optional<error> apply_override(const schema<S>& sc, S& settings, std::string_view key_name,
                                    std::string_view text, std::string_view origin) {
    const std::string prefix = std::string(origin) + ": ";
    const auto* key = find_key(sc, key_name);
    auto raw = from_text(text);
    if (key == nullptr) {
        const auto parts = split_name(key_name);
        key = find_key_at(sc, std::vector<std::string>(parts.begin(), parts.end()), raw.name);
    }
    if (key == nullptr) return error{prefix + unknown_key_message(sc, key_name)};
    auto value = convert(*key, raw);
    if (!value) return error{prefix + value.error().message};
    key->access.set(settings, *value);
    return std::nullopt;
}

template <class S>
std::optional<error> apply_env(const schema<S>& sc, S& settings, const getenv_function& getenv_fn) {
    std::string messages;
    for (const auto& key : sc.keys) {
        const std::string var = env_var_for(key);
        const char* text = getenv_fn(var.c_str());
        if (text == nullptr || (*text == '\0' && !empty_turns_off(key))) continue;
        if (auto e = apply_override(sc, settings, key.name, text, var)) {
            if (!messages.empty()) messages += '\n';
            messages += e->message;
        }
    }
    if (messages.empty()) return std::nullopt;
    return error{messages};
}

}  // namespace

outcome<daemon_settings> parse_daemon_toml(std::string_view text, std::string_view source_name) {
    auto settings = parse_toml(daemon_schema(), text, source_name, "auth.users");
    if (!settings) return settings;
    auto users = parse_auth_users(text, source_name);
    if (!users) return users.error();
    settings->auth_users = std::move(*users);
    return settings;
}

outcome<client_settings> parse_client_toml(std::string_view text, std::string_view source_name) {
    return parse_toml(client_schema(), text, source_name);
}

outcome<daemon_settings> load_daemon_file(const std::filesystem::path& path) {
    auto text = detail::read_text_file(path);
    if (!text) return text.error();
    return parse_daemon_toml(*text, path.string());
}

outcome<client_settings> load_client_file(const std::filesystem::path& path) {
    auto text = detail::read_text_file(path);
    if (!text) return text.error();
    return parse_client_toml(*text, path.string());
}

std::optional<error> apply_daemon_override(daemon_settings& s, std::string_view key,
                                           std::string_view text, std::string_view origin) {
    return apply_override(daemon_schema(), s, key, text, origin);
}

std::optional<error> apply_client_override(client_settings& s, std::string_view key,
                                           std::string_view text, std::string_view origin) {
    return apply_override(client_schema(), s, key, text, origin);
}

bool copy_key(daemon_settings& to, const daemon_settings& from, std::string_view key) {
    const auto* def = detail::find_key(daemon_schema(), key);
    if (def == nullptr) return false;
    def->access.set(to, def->access.get(from));
    return true;
}

std::optional<error> apply_daemon_env(daemon_settings& s, const getenv_function& getenv_fn) {
    return apply_env(daemon_schema(), s, getenv_fn);
}

std::optional<error> apply_client_env(client_settings& s, const getenv_function& getenv_fn) {
    return apply_env(client_schema(), s, getenv_fn);
}

}  // namespace objwire::config
