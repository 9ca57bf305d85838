#include "client/send_command.hpp"

#include <iostream>
#include <memory>
#include <string>

#include "client/input_file.hpp"
#include "client/jsonl_reader.hpp"
#include "client/message_pipeline.hpp"
#include "client/progress.hpp"
#include "client/sender_flags.hpp"

namespace objwire::client {
namespace {

struct send_flags {
    sender_flags common;
    std::string input = "-";
    std::string on_error = "stop";
};

int run_send(const send_flags& f) {
    config::client_settings settings;
    if (!load_sender_settings(f.common, settings)) return exit_codes::usage;
    input_text text;
    if (std::string error; !text.open(f.input, error)) {
        std::cerr << "objwire: " << error << "\n";
        return exit_codes::bad_input;
    }
    connection c(settings, "objwire send");
    if (int rc = open_connection(c)) return rc;
    std::uint64_t skipped = 0;
    const bool stop_at_error = f.on_error == "stop";
    bool stopped = false;  // --on-error stop met a bad line or a refused message
    const std::string name = input_name(f.input);
    progress_line progress("send");
    // Reports a bad line or a refused message; whether to go on.
    auto skip = [&] {
        ++skipped;
        stopped = stop_at_error;
        return !stopped;
    };
    // The reader parses on a thread of its own (client/message_pipeline.hpp); its messages and
    // bad lines arrive here in input order, so the reports and their order are one thread's.
    read_jsonl_pipelined(
        text.view(), stop_at_error,
        [&](const message& m, std::size_t line) {
            progress.tick([&] { return progress_of(c); });
            if (!c.send(m)) return true;
            progress.clear();
            std::cerr << "objwire: " << name << ":" << line << ": " << c.last_error() << "\n";
            return skip();
        },
        [&](const json_error& e) {
            progress.clear();
            std::cerr << "objwire: " << name << ":" << e.line << ":" << e.column << ": "
                      << e.message << "\n";
            return skip();
        });
    if (stopped) {
        finish_connection(c, settings);
        return exit_codes::bad_input;
    }
    progress.finish();
    int rc = finish_connection(c, settings);
    const auto& s = c.stats();
    std::cerr << "objwire: sent " << s.objects_sent << " objects (" << s.objects_acked
              << " acknowledged) in " << s.frames << " frames, " << s.wire_bytes_out
              << " bytes, to " << c.server().sink << "\n";
    if (skipped) std::cerr << "objwire: skipped " << skipped << " bad lines\n";
    if (rc == exit_codes::ok && skipped) return exit_codes::bad_input;
    return rc;
}

}  // namespace

subcommand add_send_command(CLI::App& app) {
    auto f = std::make_shared<send_flags>();
    auto* send = app.add_subcommand("send", "send JSON lines (one object per line) to objwired");
    add_sender_flags(send, f->common);
    send->add_option("input", f->input, "file of JSON lines, or - for stdin (default)");
    send->add_option("--on-error", f->on_error, "stop|skip: what to do with a bad line")
        ->check(CLI::IsMember({"stop", "skip"}));
    send->footer(
        "Example:\n  objwire gen --workload person -n 1000 -o people.jsonl\n"
        "  objwire send people.jsonl --to 127.0.0.1:7878");
    return {send, [f] { return run_send(*f); }};
}

}  // namespace objwire::client
