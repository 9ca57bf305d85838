// OBJWIRE_* variables that no setting reads (config/env_names.hpp).
#include "config/env_names.hpp"

#include <algorithm>

#include "config/client_file.hpp"
#include "config/settings.hpp"
#include "config/suggest.hpp"

extern char** environ;

namespace objwire::config {
namespace {

constexpr std::string_view prefix = "OBJWIRE_";

std::vector<std::string> known_names() {
    std::vector<std::string> names;
    for (const auto& keys : {daemon_keys(), client_keys()})
        for (const auto& k : keys)
            names.push_back(k.env_var);
    names.emplace_back(config_file_variable);  // names a file, not a setting
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    return names;
}

}  // namespace

std::string unknown_variable::message() const {
    std::string out = name + " names no setting";
    if (!suggestion.empty()) out += " (did you mean " + suggestion + "?)";
    return out;
}

std::vector<unknown_variable> unknown_env_variables(std::span<const std::string_view> environment) {
    const auto known = known_names();
    const std::vector<std::string_view> candidates(known.begin(), known.end());
    std::vector<unknown_variable> out;
    for (const auto entry : environment) {
        const auto name = entry.substr(0, entry.find('='));
        if (!name.starts_with(prefix)) continue;
        if (std::binary_search(known.begin(), known.end(), name)) continue;
        unknown_variable u{std::string(name), {}};
        if (const auto s = suggest(name, candidates)) u.suggestion = std::string(*s);
        out.push_back(std::move(u));
    }
    return out;
}

std::vector<std::string_view> process_environment() {
    std::vector<std::string_view> out;
    for (char** e = environ; e && *e; ++e)
        out.emplace_back(*e);
    return out;
}

}  // namespace objwire::config
