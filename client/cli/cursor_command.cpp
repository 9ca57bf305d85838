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
    daemon_flags daemon;
    std::string name;
    std::uint64_t offset = 0;  // cursor set
};

// A refused request's exit code: no such cursor 6, an offset past the end 1 (usage).
int refused_exit(std::error_code ec) {
    if (ec == proto_errc::not_found) return exit_codes::not_found;
    if (ec == proto_errc::past_end) return exit_codes::usage;
    return exit_codes::cannot_connect;
}

int run_cursor(const cursor_flags& f, read_request op) {
    if (op != read_request::list_cursors && !valid_cursor_name(f.name)) {
        std::cerr
            << "objwire: '" << f.name
            << "' is not a cursor name (1 to 128 of A-Z a-z 0-9 . _ -, not starting with .)\n";
        return exit_codes::usage;
    }
    config::client_settings settings;
    if (!load_daemon_settings(f.daemon, settings)) return exit_codes::bad_config;
    read_options o;
    o.request = op;
    o.cursor = f.name;
    o.from = f.offset;  // set: the daemon takes any offset up to its durable end
    o.client_name = "objwire cursor";
    reader r(settings, o);
    if (r.open()) {
        std::cerr << "objwire: " << r.last_error() << "\n";
        return refused_exit(r.error());
    }
    if (op == read_request::delete_cursor) {
        std::cerr << "objwire: deleted cursor '" << f.name << "'\n";
        return exit_codes::ok;
    }
    if (op == read_request::set_cursor) {
        std::cerr << "objwire: cursor '" << f.name << "' at offset " << f.offset << "\n";
        return exit_codes::ok;
    }
    for (const auto& c : r.cursors().cursors)
        std::cout << c.name << '\t' << c.next_offset << '\n';
    std::cerr << "objwire: " << counted(r.cursors().cursors.size(), "cursor") << "\n";
    return std::cout.flush() ? exit_codes::ok : exit_codes::io_error;
}

}  // namespace

subcommand add_cursor_command(CLI::App& app) {
    auto flags = std::make_shared<cursor_flags>();
    auto* cmd = app.add_subcommand(
        "cursor", "list, move or delete the named cursors of `objwire read --cursor NAME`");
    cmd->require_subcommand(1);
    auto* list = cmd->add_subcommand(
        "list", "print each cursor as 'NAME<TAB>OFFSET' (OFFSET: where its reader continues)");
    add_daemon_flags(list, flags->daemon);
    list->footer("Example:\n  objwire cursor list --to 127.0.0.1:7878");
    auto* remove = cmd->add_subcommand("delete", "delete a cursor (exit 6 if there is none)");
    add_daemon_flags(remove, flags->daemon);
    remove->add_option("name", flags->name, "the cursor's name")->required();
    remove->footer("Example:\n  objwire cursor delete etl --to 127.0.0.1:7878");
    auto* set = cmd->add_subcommand(
        "set",
        "move a cursor (or make one) to an offset, back or forward: its next reader "
        "starts there");
    add_daemon_flags(set, flags->daemon);
    set->add_option("name", flags->name, "the cursor's name")->required();
    set->add_option("offset", flags->offset,
                    "the next offset its reader gets (at most the end of what is stored)")
        ->required();
    set->footer(
        "Exit: 0 moved, 1 usage (a bad name, an offset past the end: nothing changes, no "
        "cursor is made), 2 cannot connect or the cursor is in use by a reader.\n"
        "Example:\n  objwire cursor set etl 0 --to 127.0.0.1:7878");
    cmd->footer(
        "Example:\n  objwire read --to 127.0.0.1:7878 --cursor etl -o etl.jsonl\n"
        "  objwire cursor list --to 127.0.0.1:7878");
    return {cmd, [flags, list, set] {
                return run_cursor(*flags, list->parsed()  ? read_request::list_cursors
                                          : set->parsed() ? read_request::set_cursor
                                                          : read_request::delete_cursor);
            }};
}

}  // namespace objwire::client
