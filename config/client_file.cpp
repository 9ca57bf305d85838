// The search for objwire's settings file (config/client_file.hpp).
#include "config/client_file.hpp"

#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace objwire::config {
namespace {

std::string variable(const getenv_function& getenv_fn, std::string_view name) {
    const char* value = getenv_fn(std::string(name).c_str());
    return value == nullptr ? std::string() : std::string(value);
}

// The XDG base directory rule: $XDG_CONFIG_HOME when it is an absolute path, else
// $HOME/.config; a relative one is ignored, as the specification says.
std::vector<std::string> default_places(const getenv_function& getenv_fn) {
    std::vector<std::string> out;
    const auto xdg = variable(getenv_fn, "XDG_CONFIG_HOME");
    const auto home = variable(getenv_fn, "HOME");
    if (!xdg.empty() && xdg.front() == '/') {
        out.push_back(xdg + "/objwire/objwire.toml");
    } else if (!home.empty()) {
        out.push_back(home + "/.config/objwire/objwire.toml");
    }
    out.emplace_back(system_client_file);
    return out;
}

}  // namespace

outcome<client_file> choose_client_file(std::string_view flag_file,
                                        const getenv_function& getenv_fn,
                                        const exists_function& exists) {
    if (!flag_file.empty()) return client_file{std::string(flag_file), "-c", {}};
    const auto named = variable(getenv_fn, config_file_variable);
    if (!named.empty()) {
        if (!exists(named)) {
            return error{std::string(config_file_variable) + "=" + named +
                         ": no such file (it names objwire's settings file; unset it to use "
                         "~/.config/objwire/objwire.toml or " +
                         std::string(system_client_file) + ")"};
        }
        return client_file{named, "$" + std::string(config_file_variable), {}};
    }
    client_file chosen;
    chosen.found_by = "search";
    chosen.searched = default_places(getenv_fn);
    for (const auto& place : chosen.searched) {
        if (!exists(place)) continue;
        chosen.path = place;
        break;
    }
    return chosen;
}

std::string client_file::describe() const {
    std::string places;
    for (const auto& p : searched)
        places += (places.empty() ? "" : ", ") + p;
    if (found_by != "search") return path + " (named by " + found_by + ")";
    if (path.empty()) return "none, the built-in defaults (none of " + places + " exists)";
    return path + " (the first found of " + places + ")";
}

outcome<client_file> find_client_file(std::string_view flag_file) {
    return choose_client_file(
        flag_file, [](const char* name) { return std::getenv(name); },
        [](const std::string& path) {
            std::error_code ec;
            return std::filesystem::exists(path, ec);
        });
}

}  // namespace objwire::config
