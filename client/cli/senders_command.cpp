#include "client/cli/senders_command.hpp"

#include <iostream>
#include <memory>
#include <string>

#include <objwire/reader.hpp>
#include "client/cli/sender_table.hpp"

namespace objwire::client {
namespace {

struct senders_flags {
    daemon_flags daemon;
    bool json = false;
};

int run_senders(const senders_flags& f) {
    config::client_settings settings;
    if (!load_daemon_settings(f.daemon, settings)) return exit_codes::bad_config;
    read_options o;
    o.request = read_request::list_senders;
    o.client_name = "objwire senders";
    reader r(settings, o);
    if (r.open()) {
        std::cerr << "objwire: " << r.last_error() << "\n";
        return exit_codes::cannot_connect;
    }
    const auto& l = r.senders();
    std::cout << (f.json ? sender_json_lines(l) : sender_table(l));
    std::uint64_t objects = 0;
    for (const auto& s : l.senders)
        objects += s.objects;
    std::cerr << "objwire: " << counted(l.senders.size(), "sender") << ", "
              << counted(objects, "object") << " held\n";
    return std::cout.flush() ? exit_codes::ok : exit_codes::io_error;
}

}  // namespace

subcommand add_senders_command(CLI::App& app) {
    auto f = std::make_shared<senders_flags>();
    auto* cmd = app.add_subcommand(
        "senders",
        "list the sender ids whose objects the daemon holds: objects, first and last offset, "
        "last stored time");
    add_daemon_flags(cmd, f->daemon);
    cmd->add_flag("--json", f->json,
                  "one JSON object per sender and line: sender, objects, first_offset, "
                  "last_offset, last_time_ms, last_time");
    cmd->footer(
        "send without --sender-id makes an id up (objwire-<hex>); objects stored with no id at "
        "all show as (anonymous) (\"sender\":\"\" in --json). Needs sink.kind = \"journal\".\n"
        "Exit: 0 listed, 2 cannot connect or refused, 74 cannot write the output, 78 bad "
        "settings.\n"
        "Example:\n  objwire senders --to 127.0.0.1:7878\n"
        "  objwire senders --to 127.0.0.1:7878 --json");
    return {cmd, [f] { return run_senders(*f); }};
}

}  // namespace objwire::client
