#include "client/cli/subcommand.hpp"

#include <cstdlib>
#include <iostream>

namespace objwire::client {

bool load_client_settings(const std::string& config_file, std::span<const setting_flag> flags,
                          config::client_settings& s) {
    if (!config_file.empty()) {
        auto loaded = config::load_client_file(config_file);
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

}  // namespace objwire::client
