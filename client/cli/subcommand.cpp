#include "client/cli/subcommand.hpp"

#include "config/client_file.hpp"
#include "config/env_names.hpp"

#include <cstdlib>
#include <iostream>

namespace objwire::client {

bool load_client_settings(const std::string& config_file, std::span<const setting_flag> flags,
                          config::client_settings& s) {
    const auto file = config::find_client_file(config_file);
    if (!file) {
        std::cerr << "objwire: " << file.error().message << "\n";
        return false;
    }
    if (!file->path.empty()) {
        auto loaded = config::load_client_file(file->path);
        if (!loaded) {
            std::cerr << "objwire: " << loaded.error().message << "\n";
            return false;
        }
        s = std::move(*loaded);
    }
    if (auto e = config::apply_client_env(s, [](const char* n) { return std::getenv(n); })) {
        std::cerr << "objwire: " << e->message << "\n";
        return false;
    }
    for (const auto& [text, key, flag] : flags) {
        if (text.empty()) continue;
        if (auto e = config::apply_client_override(s, key, text, flag)) {
            std::cerr << "objwire: " << e->message << "\n";
            return false;
        }
    }
    return true;
}

void warn_unknown_variables() {
    for (const auto& u : config::unknown_env_variables(config::process_environment()))
        std::cerr << "objwire: warning: " << u.message() << "\n";
}

void add_daemon_flags(CLI::App* cmd, daemon_flags& f) {
    cmd->add_option("--to", f.to, "daemon address HOST:PORT (default 127.0.0.1:7878)");
    add_access_flags(cmd, f.access);
    cmd->add_option("-c,--config", f.config_file, config_flag_help);
}

bool load_daemon_settings(const daemon_flags& f, config::client_settings& s) {
    return load_client_settings(f.config_file, f.to, s) && apply_access_flags(f.access, s);
}

}  // namespace objwire::client
