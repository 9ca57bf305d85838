// Names of schema keys and the messages for unknown ones (config/key_names.hpp).
#include "config/key_names.hpp"
#include "config/suggest.hpp"

#include <algorithm>
#include <cctype>

#include "config/toml_document.hpp"

namespace objwire::config::detail {

namespace {

std::vector<std::string_view> sections_of_names(const std::vector<std::string_view>& names) {
    std::vector<std::string_view> out;
    for (const auto name : names) {
        const auto section = section_of(name);
        if (std::find(out.begin(), out.end(), section) == out.end()) out.push_back(section);
    }
    return out;
}

// The user's name in `path` when it is an instance of the NAME key `key`
// ("types.Person.transient" of "types.NAME.transient"). `prefix`: `path` may be a table on
// the way to such a key ("types.Person").
template <class S>
std::optional<std::string> match_named(const key_def<S>& key, const std::vector<std::string>& path,
                                       bool prefix = false) {
    if (key.name_component == 0) return std::nullopt;
    const auto parts = split_name(key.name);
    const bool shape = prefix ? path.size() > key.name_component && path.size() < parts.size()
                              : path.size() == parts.size();
    if (!shape) return std::nullopt;
    for (std::size_t i = 0; i < path.size(); ++i) {
        if (i != key.name_component && parts[i] != path[i]) return std::nullopt;
    }
    return path[key.name_component];
}

// Key names as "did you mean" candidates: a NAME key takes the name from `wrong` when it has
// the same shape ("types.Person.transeint" -> "types.Person.transient").
template <class S>
std::vector<std::string> candidate_names(const schema<S>& sc, std::string_view wrong) {
    const auto wrong_parts = split_name(wrong);
    std::vector<std::string> out;
    for (const auto& k : sc.keys) {
        auto parts = split_name(k.name);
        if (k.name_component != 0 && parts.size() == wrong_parts.size()) {
            parts[k.name_component] = wrong_parts[k.name_component];
        }
        out.push_back(join(parts, "."));
    }
    return out;
}

std::string env_var_of(std::string_view name) {
    std::string out = "OBJWIRE_";
    for (const char c : name) {
        out += c == '.' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
    return out;
}

}  // namespace

template <class S>
std::vector<std::string_view> sections(std::span<const key_def<S>> keys) {
    return sections_of_names(names_of(keys));
}

template <class S>
const key_def<S>* find_key(const schema<S>& sc, std::string_view name) {
    for (const auto& k : sc.keys) {
        if (k.name == name) return &k;
    }
    return nullptr;
}

std::vector<std::string_view> split_name_by(std::string_view text, char separator) {
    std::vector<std::string_view> out;
    for (std::size_t start = 0;;) {
        const auto at = text.find(separator, start);
        out.push_back(text.substr(start, at - start));
        if (at == std::string_view::npos) return out;
        start = at + 1;
    }
}

std::vector<std::string_view> split_name(std::string_view name) {
    return split_name_by(name, '.');
}

// The key at `path`; for a NAME key, `name` receives the user's name.
template <class S>
const key_def<S>* find_key_at(const schema<S>& sc, const std::vector<std::string>& path,
                              std::string& name) {
    for (const auto& k : sc.keys) {
        if (k.name_component != 0) continue;
        const auto parts = split_name(k.name);
        if (std::equal(parts.begin(), parts.end(), path.begin(), path.end())) return &k;
    }
    for (const auto& k : sc.keys) {
        if (auto n = match_named(k, path)) {
            name = std::move(*n);
            return &k;
        }
    }
    return nullptr;
}

template <class S>
bool is_named_table(const schema<S>& sc, const std::vector<std::string>& path) {
    return std::any_of(sc.keys.begin(), sc.keys.end(),
                       [&](const auto& k) { return match_named(k, path, true).has_value(); });
}

std::string join(const std::vector<std::string_view>& parts, std::string_view separator) {
    std::string out;
    for (std::size_t i = 0; i < parts.size(); ++i) {
        if (i != 0) out += separator;
        out += parts[i];
    }
    return out;
}

// A NAME key's variable leaves the name out: OBJWIRE_TYPES_TRANSIENT="Person.surname", since
// variable names are upper case and type names are not.
template <class S>
std::string env_var_for(const key_def<S>& key) {
    if (key.name_component == 0) return env_var_of(key.name);
    auto parts = split_name(key.name);
    parts.erase(parts.begin() + static_cast<std::ptrdiff_t>(key.name_component));
    return env_var_of(join(parts, "."));
}

// A dotted path as the user would write it: components that are not bare keys are quoted.
std::string path_text(const std::vector<std::string>& path) {
    std::string out;
    for (std::size_t i = 0; i < path.size(); ++i) {
        if (i != 0) out += '.';
        const bool bare =
            !path[i].empty() && std::all_of(path[i].begin(), path[i].end(), [](char c) {
                return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
            });
        out += bare ? path[i] : quote_toml(path[i]);
    }
    return out;
}

// ---- did you mean -------------------------------------------------------------------------

template <class S>
std::string unknown_key_message(const schema<S>& sc, std::string_view name) {
    std::string msg = "unknown key '" + std::string(name) + "'";
    const auto candidates = candidate_names(sc, name);
    const std::vector<std::string_view> all(candidates.begin(), candidates.end());
    if (std::find(sc.other_keys.begin(), sc.other_keys.end(), name) != sc.other_keys.end()) {
        return msg + " (it is a setting of " + std::string(sc.other_program) + ", not of " +
               std::string(sc.program) + ")";
    }
    if (const auto s = suggest(name, all))
        return msg + " (did you mean '" + std::string(*s) + "'?)";
    const auto section = section_of(name);
    std::vector<std::string_view> in_section;
    for (const auto k : all) {
        if (section_of(k) == section) in_section.push_back(leaf_of(k));
    }
    if (!in_section.empty()) {
        return msg + " ([" + std::string(section) + "] has: " + join(in_section, ", ") + ")";
    }
    return msg + " (" + std::string(sc.program) +
           "'s tables are: " + join(sections(sc.keys), ", ") + ")";
}

template <class S>
std::string unknown_table_message(const schema<S>& sc, std::string_view name) {
    std::string msg = "unknown table '" + std::string(name) + "'";
    const auto own = sections(sc.keys);
    const auto others = sections_of_names(sc.other_keys);
    const std::string listing = std::string(sc.program) + "'s tables are: " + join(own, ", ");
    if (std::find(others.begin(), others.end(), name) != others.end()) {
        return msg + " (it belongs to " + std::string(sc.other_program) + "'s config; " + listing +
               ")";
    }
    auto candidates = own;
    if (name.find('.') != std::string_view::npos) candidates = names_of(sc.keys);
    if (const auto s = suggest(name, candidates)) {
        return msg + " (did you mean '" + std::string(*s) + "'?)";
    }
    return msg + " (" + listing + ")";
}

template std::vector<std::string_view> sections(std::span<const key_def<daemon_settings>>);
template std::vector<std::string_view> sections(std::span<const key_def<client_settings>>);
template const key_def<daemon_settings>* find_key(const schema<daemon_settings>&, std::string_view);
template const key_def<client_settings>* find_key(const schema<client_settings>&, std::string_view);
template const key_def<daemon_settings>* find_key_at(const schema<daemon_settings>&,
                                                     const std::vector<std::string>&, std::string&);
template const key_def<client_settings>* find_key_at(const schema<client_settings>&,
                                                     const std::vector<std::string>&, std::string&);
template bool is_named_table(const schema<daemon_settings>&, const std::vector<std::string>&);
template bool is_named_table(const schema<client_settings>&, const std::vector<std::string>&);
template std::string env_var_for(const key_def<daemon_settings>&);
template std::string env_var_for(const key_def<client_settings>&);
template std::string unknown_key_message(const schema<daemon_settings>&, std::string_view);
template std::string unknown_key_message(const schema<client_settings>&, std::string_view);
template std::string unknown_table_message(const schema<daemon_settings>&, std::string_view);
template std::string unknown_table_message(const schema<client_settings>&, std::string_view);

}  // namespace objwire::config::detail
