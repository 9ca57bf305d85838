#include "client/cli/send_command.hpp"

#include <signal.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <iostream>
#include <memory>
#include <string>

#include "client/cli/progress.hpp"
#include "client/cli/sender_flags.hpp"
#include "client/jsonl/jsonl_reader.hpp"
#include "client/jsonl/raw_lines.hpp"
#include "client/pipeline/input_file.hpp"
#include "client/pipeline/message_pipeline.hpp"
#include "client/pipeline/sent_lines.hpp"
#include "client/pipeline/transient_check.hpp"

namespace objwire::client {
namespace {

struct send_flags {
    sender_flags common;
    std::string input = "-";
    std::string on_error = "stop";
    bool raw = false;  // --raw: each line a text record
    std::string raw_type = std::string(default_raw_type);
    std::string raw_field = std::string(default_raw_field);
};

// After SIGINT/SIGTERM: how long the acknowledgements of what was sent are waited for.
constexpr auto interrupt_grace = std::chrono::seconds(5);

// The signal that stopped the run (0: none), and the input it cancels. Both are touched by the
// handler, which only stores and writes to a pipe (async-signal-safe).
std::atomic<int> stop_signal{0};
std::atomic<line_blocks*> interrupted_input{nullptr};

void on_stop_signal(int sig) {
    stop_signal = sig;
    if (auto* in = interrupted_input.load()) in->cancel();
}

// SIGINT and SIGTERM end the reading of the input; the handler is reset on its first call,
// so a second one ends the process at once.
void install_stop_handlers(line_blocks& input) {
    interrupted_input = &input;
    struct sigaction sa = {};
    sa.sa_handler = on_stop_signal;
    sa.sa_flags = SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
}

// Entries of sent_lines past which the acknowledged ones are dropped (each is a few words).
constexpr std::size_t trim_runs_at = 4096;

// One run of `send`: what happened, for the report at the end.
struct send_run {
    std::string name;  // the input as the user calls it
    std::uint64_t skipped = 0;
    std::uint64_t stopped_at_line = 0;  // --on-error stop: the bad line
    bool connection_failed = false;     // the connection is gone and could not be resumed
    sent_lines lines;
};

// Where the stored part of the input ends, for a run that did not store all of it: the
// objects the daemon acknowledged (stored) and the input line of the last one.
void report_stored(send_run& run, const connection& c) {
    const std::uint64_t acked = c.stats().objects_acked;
    run.lines.acked(acked);
    const std::uint64_t last = run.lines.last_stored_line();
    std::cerr << "objwire: " << counted(acked, "object") << " acknowledged as stored";
    if (last == 0)
        std::cerr << ": nothing of " << run.name << "\n";
    else
        std::cerr << ": " << run.name << " up to line " << last
                  << "; the first line not acknowledged is line " << last + 1 << "\n";
}

// After a stop signal: what was sent gets interrupt_grace to be acknowledged, then the
// summary says where the stored part ends. The shell's code for the signal (130 for SIGINT,
// 143 for SIGTERM), so a script sees the interruption.
int finish_interrupted(send_run& run, connection& c) {
    const int sig = stop_signal.load();
    std::cerr << "objwire: " << (sig == SIGINT ? "SIGINT" : "SIGTERM") << ": stopped reading "
              << run.name << "; waiting up to " << interrupt_grace.count()
              << " s for the acknowledgements in flight\n";
    const auto until = std::chrono::steady_clock::now() + interrupt_grace;
    if (c.is_open() && !c.flush()) {
        while (c.is_open() && c.stats().objects_acked < c.stats().objects_sent &&
               std::chrono::steady_clock::now() < until)
            if (c.poll(std::chrono::milliseconds(100))) break;
        // Everything acknowledged: the goodbye ends the stream cleanly for a rerun.
        if (c.is_open() && c.stats().objects_acked == c.stats().objects_sent) c.close();
    }
    report_stored(run, c);
    return 128 + sig;
}

int run_send(const send_flags& f) {
    config::client_settings settings;
    if (!load_sender_settings(f.common, settings)) return exit_codes::bad_config;
    line_blocks input;
    if (std::string error; !input.open(f.input, error)) {
        std::cerr << "objwire: " << error << "\n";
        return exit_codes::no_input;
    }
    // A named stream's input is its whole stream: a rerun sends only what is not stored yet
    // (docs/PROTOCOL.md 1.1, "Reruns").
    const bool rerunnable = !settings.sender_id.empty();
    connection c(settings, "objwire send");
    c.skip_stored(rerunnable);
    if (int rc = open_connection(c)) return rc;
    if (c.stored_objects() > 0)
        std::cerr << "objwire: sender id '" << c.sender_id() << "' has "
                  << counted(c.stored_objects(), "object") << " stored: the first "
                  << counted(c.stored_objects(), "object")
                  << " of the input are checked against them and not sent again\n";
    bool mismatch = false;  // the input is not the one the sender id stored
    send_run run;
    run.name = input_name(f.input);
    const bool stop_at_error = f.on_error == "stop";
    progress_line progress("send");
    install_stop_handlers(input);
    // Whether each transient field given matches a record: checked on the shapes the reader
    // meets (on its thread; read here once it has ended).
    transient_check transient(settings.transient);
    std::function<void(const record_type&)> on_new_type;
    if (!transient.empty()) on_new_type = [&](const record_type& t) { transient.saw(t); };
    if (f.raw && on_new_type) on_new_type(*make_record_type(f.raw_type, {f.raw_field}));
    // The connection broke for good (the reason is in c.last_error()): stop reading.
    auto lost = [&] {
        run.connection_failed = true;
        input.cancel();
        return false;
    };
    // A bad line or a refused message; whether to go on.
    auto bad = [&](std::uint64_t line) {
        ++run.skipped;
        if (!stop_at_error) return true;
        run.stopped_at_line = line;
        input.cancel();
        return false;
    };
    // The reader parses on a thread of its own (client/pipeline/message_pipeline.hpp); its messages
    // and bad lines arrive here in input order, so the reports and their order are one thread's.
    auto on_message = [&](const message& m, std::size_t line) {
        if (stop_signal) return false;
        progress.tick([&] { return progress_of(c); });
        const std::uint64_t skipped_before = c.skipped_objects();
        const auto ec = c.send(m);
        if (!ec) {
            if (c.skipped_objects() != skipped_before) return true;  // stored before
            run.lines.add(line);
            if (run.lines.runs() >= trim_runs_at) run.lines.acked(c.stats().objects_acked);
            return true;
        }
        if (ec == client_errc::input_mismatch) {
            mismatch = true;
            input.cancel();
            return false;
        }
        if (!c.is_open()) return lost();
        progress.clear();
        std::cerr << "objwire: " << run.name << ":" << line << ": " << c.last_error() << "\n";
        return bad(line);
    };
    auto on_bad_line = [&](const json_error& e) {
        progress.clear();
        std::cerr << "objwire: " << run.name << ":" << e.line << ":" << e.column << ": "
                  << e.message << "\n";
        return bad(e.line);
    };
    // The input went quiet: what it gave so far leaves now, not at its end.
    auto on_idle = [&] {
        if (c.flush() && !c.is_open()) lost();
    };
    if (f.raw)
        stream_raw_pipelined(input, raw_line_reader(f.raw_type, f.raw_field), stop_at_error,
                             on_message, on_bad_line, on_idle, settings.batch_linger);
    else
        stream_jsonl_pipelined(input, stop_at_error, on_message, on_bad_line, on_idle,
                               settings.batch_linger, {}, on_new_type);
    progress.finish();
    if (stop_signal) return finish_interrupted(run, c);
    // Only a run that read its whole input knows that a name matched nothing.
    const bool read_all =
        !mismatch && !run.connection_failed && run.stopped_at_line == 0 && input.error().empty();
    if (read_all)
        for (const auto& w : transient.warnings())
            std::cerr << "objwire: warning: " << w << "\n";
    // Another input than the stored one (or a shorter one, found at close): nothing was sent.
    if (mismatch ||
        (rerunnable && !run.connection_failed && c.skipped_objects() < c.stored_objects())) {
        c.close();
        std::cerr << "objwire: " << run.name << ": " << c.last_error() << "\n";
        return exit_codes::bad_input;
    }
    if (run.connection_failed) {
        report_connection_failure(c, settings);
        report_stored(run, c);
        return exit_codes::not_acknowledged;
    }
    if (finish_connection(c, settings) != exit_codes::ok) {
        report_stored(run, c);
        return exit_codes::not_acknowledged;
    }
    if (!input.error().empty()) {
        std::cerr << "objwire: " << input.error() << "\n";
        report_stored(run, c);
        return exit_codes::no_input;
    }
    const auto& s = c.stats();
    std::cerr << "objwire: sent " << counted(s.objects_sent, "object") << " (" << s.objects_acked
              << " acknowledged) in " << counted(s.frames, "frame") << ", "
              << counted(s.wire_bytes_out, "byte") << ", to " << c.server().sink << "\n";
    if (run.stopped_at_line != 0) {
        std::cerr << "objwire: stopped at line " << run.stopped_at_line << " of " << run.name
                  << " (--on-error stop)\n";
        report_stored(run, c);
        return exit_codes::bad_input;
    }
    if (c.skipped_objects())
        std::cerr << "objwire: " << counted(c.skipped_objects(), "object")
                  << " of the input were stored before under this sender id: not sent "
                     "again\n";
    if (run.skipped) {
        run.lines.acked(s.objects_acked);
        std::cerr << "objwire: skipped " << counted(run.skipped, "bad line") << "; the others of "
                  << run.name << ", up to line " << run.lines.last_stored_line()
                  << ", were stored\n";
        return exit_codes::bad_input;
    }
    return exit_codes::ok;
}

// An empty --raw-type or --raw-field is a mistake (an unset variable in a script).
const CLI::Validator raw_name(
    [](const std::string& s) {
        return s.empty() ? std::string("must not be empty (leave the flag out for the default)")
                         : std::string();
    },
    "TEXT");

}  // namespace

subcommand add_send_command(CLI::App& app) {
    auto f = std::make_shared<send_flags>();
    auto* send = app.add_subcommand(
        "send", "send JSON lines (one object per line) to objwired as they are read");
    add_sender_flags(send, f->common);
    send->add_option("input", f->input,
                     "file of JSON lines, or - for stdin (default): a pipe, `tail -F FILE`...");
    send->add_option("--on-error", f->on_error,
                     "stop|skip: at a bad line, stop there (default) or skip it and send the "
                     "rest; exit 4 either way, saying how much was stored")
        ->check(CLI::IsMember({"stop", "skip"}));
    auto* raw = send->add_flag(
        "--raw", f->raw,
        "send each input line, without its newline, as a record of one string field, "
        "{\"$type\":\"line\",\"text\":\"...\"} (empty lines and a \\r before the newline "
        "included); a line that is not UTF-8 is a bad line (see --on-error). `read --raw` "
        "prints the lines back byte for byte");
    send->add_option("--raw-type", f->raw_type, "with --raw: the record type (default 'line')")
        ->needs(raw)
        ->check(raw_name);
    send->add_option("--raw-field", f->raw_field,
                     "with --raw: the name of the string field (default 'text')")
        ->needs(raw)
        ->check(raw_name);
    send->footer(
        "The input is read as it comes (a file, a pipe, tail -F FILE): each line leaves within\n"
        "batch.linger of arriving, and memory stays bounded whatever the input's size.\n"
        "Exit codes: 0 every object acknowledged; 1 usage; 2 cannot connect or refused at the\n"
        "handshake; 3 the connection broke beyond --retry-for (says how many objects were\n"
        "acknowledged, up to which line); 4 bad input (FILE:LINE:COLUMN, and how much of the\n"
        "input was stored); 66 the input file is missing or cannot be read; 78 bad settings "
        "(config file, OBJWIRE_* variable, setting flag);\n"
        "130 / 143 stopped by SIGINT (Ctrl-C) / SIGTERM: reading stops, the objects in flight\n"
        "get 5 s to be acknowledged, then the exit 3 summary (a second signal ends at once).\n"
        "With --sender-id ID (or client.sender_id) the input is the whole stream ID: a rerun\n"
        "of the same command stores each input object exactly once in all. The daemon says\n"
        "how many objects ID has stored (N); send checks that the first N objects of the\n"
        "input are the ones stored (a digest of them, kept with ID's stored objects) and sends\n"
        "only the objects after them - after an interrupted run, the rest; after the input\n"
        "grew by appending, the new lines. An input that is not the one stored under ID\n"
        "(another file, an edited or shorter one) is refused before any of it is sent\n"
        "(exit 4). Without a sender id every run is a new stream and sends everything.\n\n"
        "Example:\n  objwire gen --workload person -n 1000 -o people.jsonl\n"
        "  objwire send people.jsonl --to 127.0.0.1:7878\n"
        "  objwire send --raw objwire.toml --to 127.0.0.1:7878");
    return {send, [f] { return run_send(*f); }};
}

}  // namespace objwire::client
