#include "client/cli/cursor_command.hpp"

#include <iostream>
#include <memory>
#include <string>

#include <objwire/reader.hpp>
#include "client/cli/read_command.hpp"
#include "proto/errors.hpp"

namespace objwire::client {
namespace {

struct cursor_flags {
    std::string config_file;
    std::string to;
    access_flags access;  // --tls, --tls-ca, --token-file
    std::string name;
};

int run_cursor(const cursor_flags& f, cursor_op op) {
    if (op == cursor_op::remove && !valid_cursor_name(f.name)) {
        std::cerr
            << "objwire: '" << f.name
            << "' is not a cursor name (1 to 128 of A-Z a-z 0-9 . _ -, not starting with .)\n";
        return exit_codes::usage;
    }
    config::client_settings settings;
    if (!load_client_settings(f.config_file, f.to, settings) ||
        !apply_access_flags(f.access, settings))
        return exit_codes::bad_config;
    read_options o;
    o.cursor_command = op;
    o.cursor = f.name;
    o.client_name = "objwire cursor";
    reader r(settings, o);
    if (r.open()) {
        std::cerr << "objwire: " << r.last_error() << "\n";
        return r.error() == proto_errc::not_found ? exit_codes::not_found
                                                  : exit_codes::cannot_connect;
    }
    if (op == cursor_op::remove) {
        std::cerr << "objwire: deleted cursor '" << f.name << "'\n";
        return exit_codes::ok;
    }
    for (const auto& c : r.cursors().cursors)
        std::cout << c.name << '\t' << c.next_offset << '\n';
    std::cerr << "objwire: " << r.cursors().cursors.size() << " cursors\n";
    return std::cout.flush() ? exit_codes::ok : exit_codes::usage;
}

void add_connection_options(CLI::App* cmd, cursor_flags& f) {
    cmd->add_option("--to", f.to, "daemon address HOST:PORT (default 127.0.0.1:7878)");
    add_access_flags(cmd, f.access);
    cmd->add_option("-c,--config", f.config_file, "client settings file (see config/objwire.toml)");
}

}  // namespace

subcommand add_cursor_command(CLI::App& app) {
    auto flags = std::make_shared<cursor_flags>();
    auto* cmd = app.add_subcommand(
        "cursor", "list or delete the named cursors of `objwire read --cursor NAME`");
    cmd->require_subcommand(1);
    auto* list = cmd->add_subcommand(
        "list", "print each cursor as 'NAME<TAB>OFFSET' (OFFSET: where its reader continues)");
    add_connection_options(list, *flags);
    list->footer("Example:\n  objwire cursor list --to 127.0.0.1:7878");
    auto* remove = cmd->add_subcommand("delete", "delete a cursor (exit 6 if there is none)");
    add_connection_options(remove, *flags);
    remove->add_option("name", flags->name, "the cursor's name")->required();
    remove->footer("Example:\n  objwire cursor delete etl --to 127.0.0.1:7878");
    cmd->footer(
        "Example:\n  objwire read --to 127.0.0.1:7878 --cursor etl -o etl.jsonl\n"
        "  objwire cursor list --to 127.0.0.1:7878");
    return {cmd, [flags, list] {
                return run_cursor(*flags, list->parsed() ? cursor_op::list : cursor_op::remove);
            }};
}

}  // namespace objwire::client
