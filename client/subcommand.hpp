// How a subcommand that lives in its own file joins the objwire CLI: its add_*() registers it
// on the app and returns this; main.cpp runs `run` when `app` was the one parsed.
// Exit codes are the CLI's (README "Exit codes").
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <span>
#include <string>

#include "config/settings.hpp"

namespace objwire::client {

namespace exit_codes {
inline constexpr int ok = 0;
inline constexpr int usage = 1;
inline constexpr int cannot_connect = 2;
inline constexpr int not_acknowledged = 3;
inline constexpr int bad_input = 4;
}  // namespace exit_codes

struct subcommand {
    CLI::App* app = nullptr;
    std::function<int()> run;
};

// A flag that sets a settings key: its text (empty: not given), the key and the flag's name
// (for messages).
struct setting_flag {
    const std::string& text;
    const char* key;
    const char* flag;
};

// Client settings for a subcommand: defaults < file (-c/--config) < environment < flags.
// False (the reason printed) when any layer is bad.
bool load_client_settings(const std::string& config_file, std::span<const setting_flag> flags,
                          config::client_settings& s);

// The same for a subcommand whose only setting flag is --to.
inline bool load_client_settings(const std::string& config_file, const std::string& to,
                                 config::client_settings& s) {
    const setting_flag flags[] = {{to, "client.to", "--to"}};
    return load_client_settings(config_file, flags, s);
}

}  // namespace objwire::client
