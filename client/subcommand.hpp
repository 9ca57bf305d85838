// How a subcommand that lives in its own file joins the objwire CLI: its add_*() registers it
// on the app and returns this; main.cpp runs `run` when `app` was the one parsed.
// Exit codes are the CLI's (README "Exit codes").
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

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

}  // namespace objwire::client
