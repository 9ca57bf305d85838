#include "client/cli/config_command.hpp"

#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "config/client_file.hpp"
#include "config/daemon_rules.hpp"
#include "config/env_names.hpp"
#include "config/settings.hpp"

namespace objwire::client {
namespace {

namespace cfg = objwire::config;

struct config_flags {
    std::string file;
    bool daemon = false;
    bool client = false;
    std::string to;                 // show: --to, as send's
    std::vector<std::string> sets;  // show: --set KEY=VALUE
};

// The two programs' settings behind one interface, so check and show are written once.
template <class S>
struct program;

template <>
struct program<cfg::client_settings> {
    using other = cfg::daemon_settings;
    static constexpr const char* name = "objwire";
    static constexpr const char* flag = "--client";
    static auto load(const std::string& p) { return cfg::load_client_file(p); }
    // With no file named, the one every subcommand would read.
    static auto find(const std::string& flag_file) { return cfg::find_client_file(flag_file); }
    static auto keys() { return cfg::client_keys(); }
    static auto apply(cfg::client_settings& s, std::string_view key, std::string_view text,
                      std::string_view origin) {
        return cfg::apply_client_override(s, key, text, origin);
    }
    // Its files are read when a command needs them, and name themselves when they fail.
    static std::vector<cfg::error> rules(const cfg::client_settings&) { return {}; }
};

template <>
struct program<cfg::daemon_settings> {
    using other = cfg::client_settings;
    static constexpr const char* name = "objwired";
    static constexpr const char* flag = "--daemon";
    static auto load(const std::string& p) { return cfg::load_daemon_file(p); }
    // objwired reads only the file its --config names: nothing is searched for.
    static cfg::outcome<cfg::client_file> find(const std::string& flag_file) {
        return cfg::client_file{flag_file, "-c", {}};
    }
    static auto keys() { return cfg::daemon_keys(); }
    static auto apply(cfg::daemon_settings& s, std::string_view key, std::string_view text,
                      std::string_view origin) {
        return cfg::apply_daemon_override(s, key, text, origin);
    }
    // What the start refuses beyond each key (config/daemon_rules.cpp), so a file this check
    // passes does not stop objwired.
    static std::vector<cfg::error> rules(const cfg::daemon_settings& s) {
        return cfg::check_daemon_settings(s);
    }
};

// Which program a file is for: --daemon or --client, else its name (objwired*.toml is the
// daemon's, anything else the client's).
bool for_daemon(const config_flags& f) {
    if (f.daemon || f.client) return f.daemon;
    return std::filesystem::path(f.file).filename().string().find("objwired") != std::string::npos;
}

// Applies every OBJWIRE_* variable that is set, one key at a time so each can be named as
// its value's origin. `on_applied(variable)` runs after each.
template <class S, class F>
bool apply_environment(S& s, const std::vector<cfg::key_info>& keys, F&& on_applied) {
    bool good = true;
    for (const auto& key : keys) {
        const char* text = std::getenv(key.env_var.c_str());
        if (text == nullptr || (*text == '\0' && !key.empty_turns_off)) continue;
        if (auto e = program<S>::apply(s, key.name, text, key.env_var)) {
            std::cerr << e->message << "\n";
            good = false;
            continue;
        }
        on_applied(key.env_var);
    }
    return good;
}

// The settings file the search finds for S (`file` empty: none, the defaults) loaded into
// `s`; false once it said why not. hint_other: say when the file is the other program's.
// `where` (when given): which file it is and why, for `config show`.
template <class S>
bool load_found(const config_flags& f, S& s, std::string& file, bool hint_other,
                std::string* where = nullptr) {
    using P = program<S>;
    const auto found = P::find(f.file);
    if (!found) {
        std::cerr << "objwire: " << found.error().message << "\n";
        return false;
    }
    file = found->path;
    if (where)
        *where = file.empty() && found->found_by == "-c"
                     ? std::string("none (objwired reads only the file --config names)")
                     : found->describe();
    if (file.empty()) return true;
    auto loaded = P::load(file);
    if (!loaded) {
        std::cerr << loaded.error().message << "\n";
        // Checking a file against the wrong program is the likeliest mistake: say so.
        if (hint_other && program<typename P::other>::load(file))
            std::cerr << file << " is a valid " << program<typename P::other>::name
                      << " config: check it with " << program<typename P::other>::flag << "\n";
        return false;
    }
    s = std::move(*loaded);
    return true;
}

template <class S>
int check_as(const config_flags& f) {
    using P = program<S>;
    S s;
    std::string file;
    if (!load_found(f, s, file, true)) return exit_codes::bad_config;
    const auto keys = P::keys();
    std::size_t variables = 0;
    if (!apply_environment(s, keys, [&](const std::string&) { ++variables; })) {
        return exit_codes::bad_config;
    }
    const auto unknown = cfg::unknown_env_variables(cfg::process_environment());
    for (const auto& u : unknown)
        std::cerr << "objwire: " << u.message() << "\n";
    if (!unknown.empty()) return exit_codes::bad_config;
    std::vector<std::string> problems;
    for (auto& e : P::rules(s))
        problems.push_back(std::move(e.message));
    // Placed as objwired --check-config places them: FILE:LINE of the key to edit.
    if (!file.empty()) problems = cfg::place_in_file(problems, file);
    for (const auto& p : problems)
        std::cerr << (p.starts_with(file + ":") ? "" : std::string(P::name) + ": ") << p << "\n";
    if (!problems.empty()) return exit_codes::bad_config;
    std::cout << (file.empty() ? std::string("the defaults") : file) << ": ok (" << P::name
              << " settings";
    if (variables) std::cout << ", with " << variables << " OBJWIRE_* environment variables";
    std::cout << ")\n";
    return exit_codes::ok;
}

template <class S>
int show_as(const config_flags& f) {
    using P = program<S>;
    S s;
    std::vector<cfg::settings_layer<S>> layers;
    std::deque<std::string> origins;  // the layers' origin texts live here
    std::string file;
    std::string where;
    if (!load_found(f, s, file, false, &where)) return exit_codes::bad_config;
    if (!file.empty()) {
        // The file parsed, so reading it again for the key lines succeeds unless it changed.
        std::vector<cfg::key_line> lines;
        if (std::ifstream in(file); in) {
            const std::string text((std::istreambuf_iterator<char>(in)),
                                   std::istreambuf_iterator<char>());
            if (auto l = cfg::key_lines(text, file)) lines = std::move(*l);
        }
        layers.push_back({file, s, std::move(lines)});
    }
    const auto keys = P::keys();
    const bool env_ok = apply_environment(s, keys, [&](const std::string& variable) {
        layers.push_back({variable, s, {}});
    });
    if (!env_ok) return exit_codes::bad_config;
    std::vector<std::pair<std::string, std::string>> overrides;  // key, "--flag" text
    if (!f.to.empty()) overrides.emplace_back("client.to", f.to);
    for (const auto& set : f.sets) {
        const auto eq = set.find('=');
        if (eq == std::string::npos) {
            std::cerr << "objwire: --set " << set << ": write KEY=VALUE, e.g. --set "
                      << (std::is_same_v<S, cfg::client_settings> ? "batch.linger=1ms"
                                                                  : "server.log_level=debug")
                      << "\n";
            return exit_codes::usage;
        }
        overrides.emplace_back(set.substr(0, eq), set.substr(eq + 1));
    }
    for (const auto& [key, text] : overrides) {
        const auto& origin =
            origins.emplace_back(key == "client.to" && text == f.to ? "--to" : "--set " + key);
        if (auto e = P::apply(s, key, text, origin)) {
            std::cerr << "objwire: " << e->message << "\n";
            return exit_codes::bad_config;
        }
        layers.push_back({origin, s, {}});
    }
    std::cout << "# file: " << where << "\n" << cfg::to_toml(s, layers);
    return exit_codes::ok;
}

}  // namespace

subcommand add_config_command(CLI::App& app) {
    auto flags = std::make_shared<config_flags>();
    auto* config = app.add_subcommand("config", "check a config file, show effective settings");
    config->require_subcommand(1);
    config->footer(
        "Example:\n  objwire config check objwired.toml\n  objwire config show --to "
        "127.0.0.1:7878");

    auto* check = config->add_subcommand(
        "check", "validate a config file (and the OBJWIRE_* environment); exit 0, or 78 if bad");
    check->add_option("file", flags->file,
                      "the file; objwired*.toml is taken as the daemon's, anything else as the "
                      "client's (default: the file send would read, with the environment)");
    auto* daemon = check->add_flag("--daemon", flags->daemon, "check it as objwired's config");
    check->add_flag("--client", flags->client, "check it as objwire's config")->excludes(daemon);
    check->footer("Example:\n  objwire config check objwired.toml");

    auto* show = config->add_subcommand(
        "show", "print the effective settings as TOML, each with where it came from");
    show->add_option("-c,--config", flags->file, config_flag_help);
    auto* show_daemon = show->add_flag("--daemon", flags->daemon, "objwired's settings");
    show->add_option("--to", flags->to, "daemon address HOST:PORT, as for send")
        ->excludes(show_daemon);
    show->add_option("--set", flags->sets, "KEY=VALUE: any setting, as a flag would set it");
    show->footer("Example:\n  objwire config show --to 127.0.0.1:7878 --set batch.linger=1ms");

    return {config, [flags, check, show]() -> int {
                const bool daemon_side = flags->daemon;
                if (check->parsed()) {
                    return for_daemon(*flags) ? check_as<cfg::daemon_settings>(*flags)
                                              : check_as<cfg::client_settings>(*flags);
                }
                if (show->parsed()) {
                    return daemon_side ? show_as<cfg::daemon_settings>(*flags)
                                       : show_as<cfg::client_settings>(*flags);
                }
                return exit_codes::usage;
            }};
}

}  // namespace objwire::client
