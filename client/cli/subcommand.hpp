// How a subcommand that lives in its own file joins the objwire CLI: its add_*() registers it
// on the app and returns this; main.cpp runs `run` when `app` was the one parsed.
// Exit codes are the CLI's (docs/CLI.md, "Exit codes").
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <utility>

#include "config/exit_code.hpp"
#include "config/settings.hpp"
#include "proto/util/counted.hpp"

namespace objwire::client {

namespace exit_codes {
inline constexpr int ok = 0;
inline constexpr int usage = 1;
inline constexpr int cannot_connect = 2;
inline constexpr int not_acknowledged = 3;
inline constexpr int bad_input = 4;
// read: the daemon's journal lost some of the offsets asked for (the rest was printed)
inline constexpr int data_lost = 5;
// read, cursor delete: the sender id or cursor named does not exist on the daemon
inline constexpr int not_found = 6;
// sysexits.h EX_NOINPUT: an input file that is missing or cannot be read
inline constexpr int no_input = 66;
// sysexits.h EX_CANTCREAT: an output file that cannot be created
inline constexpr int cannot_create = 73;
// sysexits.h EX_IOERR: writing an output failed (a full disk, a closed descriptor)
inline constexpr int io_error = 74;
// settings that cannot be used: a config file, an OBJWIRE_* variable or a setting's flag
inline constexpr int bad_config = config::bad_config_exit;
}  // namespace exit_codes

// The help of every subcommand's -c/--config (config/client_file.hpp says the search).
inline constexpr const char* config_flag_help =
    "client settings file (default: the first found of $OBJWIRE_CONFIG, "
    "~/.config/objwire/objwire.toml, /etc/objwire/objwire.toml)";

// Warns on stderr of each OBJWIRE_* variable that no setting reads, with the nearest name
// (config/env_names.hpp): a misspelt one would otherwise be ignored without a word.
void warn_unknown_variables();

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

// Client settings for a subcommand: defaults < file < environment < flags. The file is
// -c/--config, else the first found of $OBJWIRE_CONFIG, ~/.config/objwire/objwire.toml and
// /etc/objwire/objwire.toml (config/client_file.hpp).
// False (the reason printed) when any layer is bad: the subcommand exits bad_config.
bool load_client_settings(const std::string& config_file, std::span<const setting_flag> flags,
                          config::client_settings& s);

// The same for a subcommand whose only setting flag is --to.
inline bool load_client_settings(const std::string& config_file, const std::string& to,
                                 config::client_settings& s) {
    const setting_flag flags[] = {{to, "client.to", "--to"}};
    return load_client_settings(config_file, flags, s);
}

// --tls, --tls-ca and --token-file, for a subcommand that talks to the daemon as `send` does.
struct access_flags {
    bool tls = false;
    std::string tls_ca;
    std::string token_file;
};

inline void add_access_flags(CLI::App* cmd, access_flags& f) {
    cmd->add_flag("--tls", f.tls, "talk TLS to the daemon (config: tls.enabled)");
    cmd->add_option("--tls-ca", f.tls_ca,
                    "PEM CA file the daemon's certificate must chain to (config: tls.ca_file)");
    cmd->add_option("--token-file", f.token_file,
                    "file holding the daemon's shared token (config: auth.token_file)");
}

// -q/--quiet for a subcommand that streams (send, read): no progress line and no summary;
// errors and warnings are still said.
inline void add_quiet_flag(CLI::App* cmd, bool& quiet) {
    cmd->add_flag("-q,--quiet", quiet,
                  "print nothing on stderr but errors and warnings: no progress line, no summary");
}

// The flags of a subcommand that only asks the daemon something (stats, cursor, senders):
// --to, the access flags and -c/--config.
struct daemon_flags {
    std::string config_file;
    std::string to;
    access_flags access;
};
void add_daemon_flags(CLI::App* cmd, daemon_flags& f);
// Their settings: load_client_settings, then apply_access_flags.
bool load_daemon_settings(const daemon_flags& f, config::client_settings& s);

// After load_client_settings: the flags given override the keys they name. False (the reason
// printed) when a value is bad.
inline bool apply_access_flags(const access_flags& f, config::client_settings& s) {
    const std::pair<std::string, const char*> given[] = {{f.tls ? "true" : "", "tls.enabled"},
                                                         {f.tls_ca, "tls.ca_file"},
                                                         {f.token_file, "auth.token_file"}};
    const char* flag_of[] = {"--tls", "--tls-ca", "--token-file"};
    for (std::size_t i = 0; i < std::size(given); ++i) {
        if (given[i].first.empty()) continue;
        if (auto e =
                config::apply_client_override(s, given[i].second, given[i].first, flag_of[i])) {
            std::cerr << "objwire: " << e->message << "\n";
            return false;
        }
    }
    return true;
}

}  // namespace objwire::client
