// Internal to objwire::config: the names of schema keys - finding a key by its dotted name or
// TOML path, its environment variable, printing a path - and the messages for a name that is
// no key, with a did-you-mean (the matching itself is suggest.hpp).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/schema.hpp"

namespace objwire::config::detail {

template <class A>
std::vector<std::string_view> names_of(const A& keys) {
    std::vector<std::string_view> out;
    for (const auto& k : keys)
        out.push_back(k.name);
    return out;
}

// The tables of a schema, in first-use order ("server", "limits", ...).
template <class S>
std::vector<std::string_view> sections(std::span<const key_def<S>> keys);

template <class S>
const key_def<S>* find_key(const schema<S>& sc, std::string_view name);

// The key at `path`; for a NAME key, `name` receives the user's name.
template <class S>
const key_def<S>* find_key_at(const schema<S>& sc, const std::vector<std::string>& path,
                              std::string& name);

// Whether `path` is a table on the way to a NAME key ("types.Person").
template <class S>
bool is_named_table(const schema<S>& sc, const std::vector<std::string>& path);

std::vector<std::string_view> split_name_by(std::string_view text, char separator);
std::vector<std::string_view> split_name(std::string_view name);
std::string join(const std::vector<std::string_view>& parts, std::string_view separator);

// OBJWIRE_<SECTION>_<KEY>; a NAME key's variable leaves the name out.
template <class S>
std::string env_var_for(const key_def<S>& key);

// A dotted path as the user would write it: components that are not bare keys are quoted.
std::string path_text(const std::vector<std::string>& path);

// "unknown key 'x' (did you mean 'y'?)", or the keys of its table, or the other program's.
template <class S>
std::string unknown_key_message(const schema<S>& sc, std::string_view name);
template <class S>
std::string unknown_table_message(const schema<S>& sc, std::string_view name);

}  // namespace objwire::config::detail
