// How a subcommand that lives in its own file joins the objwire CLI: its add_*() registers it
// on the app and returns this; main.cpp runs `run` when `app` was the one parsed.
// Exit codes are the CLI's (README "Exit codes").
#pragma once

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <string>

#include "config/settings.hpp"

namespace objwire::client {

namespace exit_codes {
inline constexpr int ok = 0;
inline constexpr int usage = 1;
inline constexpr int cannot_connect = 2;
inline constexpr int not_acknowledged = 3;
inline constexpr int bad_input = 4;
// read: the daemon's journal lost some of the offsets asked for (the rest was printed)
inline constexpr int data_lost = 5;
}  // namespace exit_codes

struct subcommand {
    CLI::App* app = nullptr;
    std::function<int()> run;
};

// Client settings for a subcommand with -c/--config and --to: defaults < file < environment
// < --to. False (the reason printed) when any layer is bad.
inline bool load_client_settings(const std::string& config_file, const std::string& to,
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
    if (!to.empty()) {
        if (auto e = config::apply_client_override(s, "client.to", to, "--to")) {
            std::cerr << "objwire: " << e->message << "\n";
            return false;
        }
    }
    return true;
}

}  // namespace objwire::client
