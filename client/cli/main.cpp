// objwire: the command line. Each subcommand lives in its own *_command.cpp and joins here
// (client/cli/subcommand.hpp); the exit codes are docs/CLI.md's "Exit codes".
#include <CLI/CLI.hpp>
#include <iostream>

#include <objwire/version.hpp>
#include "client/cli/bench_command.hpp"
#include "client/cli/codec_command.hpp"
#include "client/cli/config_command.hpp"
#include "client/cli/cursor_command.hpp"
#include "client/cli/gen_command.hpp"
#include "client/cli/parse_error_text.hpp"
#include "client/cli/read_command.hpp"
#include "client/cli/send_command.hpp"
#include "client/cli/senders_command.hpp"
#include "client/cli/stats_command.hpp"
#include "client/cli/subcommand.hpp"
#include "client/lib/descriptor_limit.hpp"

int main(int argc, char** argv) {
    namespace client = objwire::client;
    CLI::App app{"objwire - send objects to objwired, read them back, benchmark the link",
                 "objwire"};
    app.set_version_flag("--version", objwire::version_text("objwire"));
    app.require_subcommand(1);
    const client::subcommand commands[] = {
        client::add_send_command(app),   client::add_bench_command(app),
        client::add_gen_command(app),    client::add_config_command(app),
        client::add_encode_command(app), client::add_decode_command(app),
        client::add_read_command(app),   client::add_stats_command(app),
        client::add_cursor_command(app), client::add_senders_command(app)};
    try {
        app.parse(argc, argv);
    } catch (const CLI::Success& e) {
        return app.exit(e) == 0 ? client::exit_codes::ok : client::exit_codes::usage;
    } catch (const CLI::ParseError& e) {
        std::cerr << client::parse_error_text(e, app) << "\n";
        return client::exit_codes::usage;
    }
    // `config check` refuses a misspelt OBJWIRE_* variable itself; every other command warns.
    if (!app.get_subcommand("config")->got_subcommand("check")) client::warn_unknown_variables();
    // bench --connections N holds N connections, each with a socket and its own event loop:
    // more descriptors than a shell's usual soft limit; the hard limit is what the user allows.
    client::raise_descriptor_limit();
    for (const auto& command : commands) {
        if (command.app->parsed()) return command.run();
    }
    return client::exit_codes::usage;
}
