#include "client/cli/send_command.hpp"

#include <signal.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "client/cli/progress.hpp"
#include "client/cli/sender_flags.hpp"
#include "client/jsonl/jsonl_reader.hpp"
#include "client/jsonl/raw_lines.hpp"
#include "client/pipeline/input_file.hpp"
#include "client/pipeline/interrupt_grace.hpp"
#include "client/pipeline/message_pipeline.hpp"
#include "client/pipeline/sent_lines.hpp"
#include "client/pipeline/transient_check.hpp"

namespace objwire::client {
namespace {

struct send_flags {
    sender_flags common;
    std::vector<std::string> inputs = {"-"};
    std::string on_error = "stop";
    bool raw = false;    // --raw: each line a text record
    bool quiet = false;  // -q: no progress line, no summary
    std::string raw_type = std::string(default_raw_type);
    std::string raw_field = std::string(default_raw_field);
};

// The signal that stopped the run (0: none), the input it cancels and the connection whose
// waits it ends. All are touched by the handler, which only stores and writes to a pipe and an
// eventfd (async-signal-safe).
std::atomic<int> stop_signal{0};
std::atomic<line_blocks*> interrupted_input{nullptr};
std::atomic<connection*> interrupted_connection{nullptr};

void on_stop_signal(int sig) {
    stop_signal = sig;
    if (auto* in = interrupted_input.load()) in->cancel();
    if (auto* c = interrupted_connection.load()) c->interrupt();
}

// SIGINT and SIGTERM end the reading of the input and every wait of the connection (a
// reconnect's pause, connect and handshake, a full send window); the handler is reset on its
// first call, so a second one ends the process at once.
void install_stop_handlers(line_blocks& input, connection& c) {
    interrupted_input = &input;
    interrupted_connection = &c;
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

// "line N" of the input; "line N of FILE" when it is several files.
std::string line_text(const line_blocks& in, std::uint64_t line) {
    const auto at = in.place(line);
    return "line " + std::to_string(at.line) + (in.several_files() ? " of " + at.name : "");
}

// "FILE:LINE" of the input.
std::string place_text(const line_blocks& in, std::uint64_t line) {
    const auto at = in.place(line);
    return at.name + ":" + std::to_string(at.line);
}

// Where the stored part of the input ends, for a run that did not store all of it: the
// objects the daemon acknowledged (stored) and the input line of the last one.
void report_stored(send_run& run, const connection& c, const line_blocks& in) {
    const std::uint64_t acked = c.stats().objects_acked;
    run.lines.acked(acked);
    const std::uint64_t last = run.lines.last_stored_line();
    std::cerr << "objwire: " << counted(acked, "object") << " acknowledged as stored";
    if (last == 0)
        std::cerr << ": nothing of " << run.name << "\n";
    else
        std::cerr << ": " << in.place(last).name << " up to line " << in.place(last).line
                  << "; the first line not acknowledged is " << line_text(in, last + 1) << "\n";
}

// After a stop signal: what was sent gets a grace to be acknowledged while acknowledgements
// come (client/pipeline/interrupt_grace.hpp), unless the connection was down or waiting for
// the daemon when the signal came; then the summary says where the stored part ends. The
// shell's code for the signal (130 for SIGINT, 143 for SIGTERM), so a script sees the
// interruption.
int finish_interrupted(send_run& run, connection& c, const line_blocks& in) {
    const int sig = stop_signal.load();
    std::cerr << "objwire: " << (sig == SIGINT ? "SIGINT" : "SIGTERM") << ": stopped reading "
              << run.name;
    if (c.is_open() && !c.flush()) {
        std::cerr << "; waiting up to " << interrupt_grace::longest.count() / 1000
                  << " s for the acknowledgements in flight, while they come\n";
        using clock = interrupt_grace::clock;
        interrupt_grace grace(c.stats().objects_acked, clock::now());
        for (auto s = c.stats();
             c.is_open() && grace.waiting(s.objects_acked, s.objects_sent, clock::now());
             s = c.stats())
            if (c.poll(std::min(grace.next_wait(clock::now()), std::chrono::milliseconds(100))))
                break;
        // Everything acknowledged: the goodbye ends the stream cleanly for a rerun.
        if (c.is_open() && c.stats().objects_acked == c.stats().objects_sent) c.close();
    } else {
        std::cerr << "; " << c.last_error() << "\n";
    }
    report_stored(run, c, in);
    return 128 + sig;
}

// One line per reconnect attempt, so a log shows the outage as it happens (on a terminal the
// progress line is erased first).
void say_reconnecting(const reconnect_attempt& a) {
    std::string line = progress_line::stderr_is_terminal() ? "\r\033[K" : "";
    line += "objwire: reconnecting (attempt " + std::to_string(a.attempt) + ", in " +
            std::to_string(a.pause.count()) + " ms, " + std::to_string(a.window_left.count()) +
            " ms left of resume.retry_for): " + a.why + "\n";
    std::cerr << line << std::flush;
}

// One `send`: the input read into the connection, then how the run ended. Its callbacks run
// on the caller's thread, in input order (client/pipeline/message_pipeline.hpp).
class send_job {
  public:
    send_job(const send_flags& f, const config::client_settings& settings, line_blocks& input)
        : f_(f),
          settings_(settings),
          input_(input),
          // A named stream's input is its whole stream: a rerun sends only what is not stored
          // yet (docs/PROTOCOL.md 1.1, "Reruns").
          rerunnable_(!settings.sender_id.empty()),
          stop_at_error_(f.on_error == "stop"),
          c_(settings, "objwire send"),
          transient_(settings.transient) {
        for (const auto& input : f.inputs)
            run_.name += (run_.name.empty() ? "" : ", ") + input_name(input);
    }

    int run() {
        c_.skip_stored(rerunnable_);
        c_.on_reconnect(say_reconnecting);
        install_stop_handlers(input_, c_);
        if (int rc = open_connection(c_)) return stop_signal ? 128 + stop_signal : rc;
        say_stored_before();
        limit_input_lines();
        progress_.emplace("send", "wire", !f_.quiet && progress_line::stderr_is_terminal());
        stream();
        progress_->finish();
        if (stop_signal) return finish_interrupted(run_, c_, input_);
        const int rc = finish();
        // A signal during the last waits (close()) ended them: the summary is said, the code
        // is the signal's.
        return stop_signal ? 128 + stop_signal : rc;
    }

  private:
    void say_stored_before() const {
        if (c_.stored_objects() == 0 || f_.quiet) return;
        std::cerr << "objwire: sender id '" << c_.sender_id() << "' has "
                  << counted(c_.stored_objects(), "object") << " stored: the first "
                  << counted(c_.stored_objects(), "object")
                  << " of the input are checked against them and not sent again\n";
    }

    // A rerun reading a pipe that went quiet before it gave the stored objects again waits
    // for them (`tail -F` starts at the last 10 lines): said once, so the wait has a reason.
    void say_waiting_for_stored() {
        if (said_waiting_ || !input_.can_wait() || c_.skipped_objects() >= c_.stored_objects())
            return;
        said_waiting_ = true;
        if (progress_) progress_->clear();
        std::cerr << "objwire: waiting for input: sender id '" << c_.sender_id() << "' has "
                  << counted(c_.stored_objects(), "object") << " stored and the input gave "
                  << c_.skipped_objects()
                  << " of them so far; only what comes after them is sent (a rerun of `tail -F "
                     "FILE` starts at its last 10 lines: use `tail -n +1 -F FILE`)\n";
    }

    // A line the daemon would refuse whatever it holds is not read whole (its welcome says how
    // long): memory stays at that limit plus a block, not the line's length.
    void limit_input_lines() {
        const auto& limits = c_.server().limits;
        if (f_.raw)
            input_.limit_lines(
                limits.max_string_bytes,
                "objwired's limits.max_string_bytes: the longest text of a --raw line");
        else
            input_.limit_lines(limits.max_frame_bytes,
                               "objwired's limits.max_frame_bytes: a line's message must fit in a "
                               "frame");
    }

    void stream() {
        // Whether each transient field given matches a record: checked on the shapes the
        // reader meets (on its thread; read here once it has ended).
        std::function<void(const record_type&)> on_new_type;
        if (!transient_.empty()) on_new_type = [this](const record_type& t) { transient_.saw(t); };
        if (f_.raw && on_new_type) on_new_type(*make_record_type(f_.raw_type, {f_.raw_field}));
        auto on_message = [this](const message& m, std::size_t line) { return send(m, line); };
        auto on_bad_line = [this](const json_error& e) { return bad_line(e); };
        // The input went quiet: what it gave so far leaves now, not at its end.
        auto on_idle = [this] {
            say_waiting_for_stored();
            if (c_.flush() && !c_.is_open()) lost();
        };
        if (f_.raw)
            stream_raw_pipelined(input_, raw_line_reader(f_.raw_type, f_.raw_field), stop_at_error_,
                                 on_message, on_bad_line, on_idle, settings_.batch_linger);
        else
            stream_jsonl_pipelined(input_, stop_at_error_, on_message, on_bad_line, on_idle,
                                   settings_.batch_linger, {}, on_new_type);
    }

    // One message of the input; whether to go on reading.
    bool send(const message& m, std::size_t line) {
        if (stop_signal) return false;
        progress_->tick([&] { return progress_of(c_); });
        const std::uint64_t skipped_before = c_.skipped_objects();
        const auto ec = c_.send(m);
        if (!ec) {
            if (c_.skipped_objects() != skipped_before) return true;  // stored before
            run_.lines.add(line);
            if (run_.lines.runs() >= trim_runs_at) run_.lines.acked(c_.stats().objects_acked);
            return true;
        }
        if (ec == client_errc::input_mismatch) {
            mismatch_ = true;
            input_.cancel();
            return false;
        }
        if (!c_.is_open()) return lost();
        progress_->clear();
        std::cerr << "objwire: " << place_text(input_, line) << ": " << c_.last_error() << "\n";
        return bad(line);
    }

    bool bad_line(const json_error& e) {
        progress_->clear();
        std::cerr << "objwire: " << place_text(input_, e.line) << ":" << e.column << ": "
                  << e.message << "\n";
        return bad(e.line);
    }

    // The connection broke for good (the reason is in c_.last_error()): stop reading.
    bool lost() {
        run_.connection_failed = true;
        input_.cancel();
        return false;
    }

    // A bad line or a refused message; whether to go on.
    bool bad(std::uint64_t line) {
        ++run_.skipped;
        if (!stop_at_error_) return true;
        run_.stopped_at_line = line;
        input_.cancel();
        return false;
    }

    // After the input: the exit code, and what the user is told.
    int finish() {
        // Only a run that read its whole input knows that a name matched nothing.
        if (read_whole_input())
            for (const auto& w : transient_.warnings())
                std::cerr << "objwire: warning: " << w << "\n";
        // Another input than the stored one (or a shorter one, found at close): nothing was
        // sent.
        if (mismatch_ || (rerunnable_ && !run_.connection_failed &&
                          c_.skipped_objects() < c_.stored_objects())) {
            c_.close();
            std::cerr << "objwire: " << run_.name << ": " << c_.last_error() << "\n";
            return exit_codes::bad_input;
        }
        if (run_.connection_failed) report_connection_failure(c_, settings_);
        if (run_.connection_failed || finish_connection(c_, settings_) != exit_codes::ok) {
            report_stored(run_, c_, input_);
            return exit_codes::not_acknowledged;
        }
        if (!input_.error().empty()) {
            std::cerr << "objwire: " << input_.error() << "\n";
            report_stored(run_, c_, input_);
            return exit_codes::no_input;
        }
        report_sent();
        return finish_acknowledged();
    }

    bool read_whole_input() const {
        return !mismatch_ && !run_.connection_failed && run_.stopped_at_line == 0 &&
               input_.error().empty();
    }

    void report_sent() const {
        if (f_.quiet) return;
        const auto& s = c_.stats();
        std::cerr << "objwire: sent " << counted(s.objects_sent, "object") << " ("
                  << s.objects_acked << " acknowledged) in " << counted(s.frames, "frame") << ", "
                  << counted(s.wire_bytes_out, "byte") << ", to " << c_.server().sink << "\n";
    }

    // Everything sent was acknowledged: what was left out of the input, and why.
    int finish_acknowledged() {
        if (run_.stopped_at_line != 0) {
            const auto at = input_.place(run_.stopped_at_line);
            std::cerr << "objwire: stopped at line " << at.line << " of " << at.name
                      << " (--on-error stop)\n";
            report_stored(run_, c_, input_);
            return exit_codes::bad_input;
        }
        if (c_.skipped_objects() && !f_.quiet)
            std::cerr << "objwire: " << counted(c_.skipped_objects(), "object")
                      << " of the input were stored before under this sender id: not sent "
                         "again\n";
        if (run_.skipped == 0) return exit_codes::ok;
        run_.lines.acked(c_.stats().objects_acked);
        std::cerr << "objwire: skipped " << counted(run_.skipped, "bad line") << "; the others of "
                  << run_.name << ", up to " << line_text(input_, run_.lines.last_stored_line())
                  << ", were stored\n";
        return exit_codes::bad_input;
    }

    const send_flags& f_;
    const config::client_settings& settings_;
    line_blocks& input_;
    const bool rerunnable_;
    const bool stop_at_error_;
    connection c_;
    send_run run_;
    // Made once the connection is open, so its rate counts from the first object.
    std::optional<progress_line> progress_;
    transient_check transient_;
    bool mismatch_ = false;      // the input is not the one the sender id stored
    bool said_waiting_ = false;  // say_waiting_for_stored() spoke
};

int run_send(const send_flags& f) {
    config::client_settings settings;
    if (!load_sender_settings(f.common, settings)) return exit_codes::bad_config;
    line_blocks input;
    if (std::string error; !input.open(f.inputs, error)) {
        std::cerr << "objwire: " << error << "\n";
        return exit_codes::no_input;
    }
    send_job job(f, settings, input);
    return job.run();
}

// An empty --raw-type or --raw-field is a mistake (an unset variable in a script).
const CLI::Validator raw_name(
    [](const std::string& s) {
        return s.empty() ? std::string("must not be empty (leave the flag out for the default)")
                         : std::string();
    },
    "");

}  // namespace

subcommand add_send_command(CLI::App& app) {
    auto f = std::make_shared<send_flags>();
    auto* send = app.add_subcommand(
        "send", "send JSON lines (one object per line) to objwired as they are read");
    add_sender_flags(send, f->common);
    add_quiet_flag(send, f->quiet);
    send->add_option("input", f->inputs,
                     "files of JSON lines, or - for stdin (default): a pipe, `tail -F FILE`...; "
                     "several are sent in order as one stream, their lines one after another "
                     "(a file's last line ends with it)");
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
        "batch.linger of arriving, and memory stays bounded whatever the input's size; a line\n"
        "longer than the daemon accepts is a bad line once it passes that, never read whole.\n"
        "Exit codes: 0 every object acknowledged; 1 usage; 2 cannot connect or refused at the\n"
        "handshake; 3 the connection broke beyond --retry-for (says how many objects were\n"
        "acknowledged, up to which line); 4 bad input (FILE:LINE:COLUMN, and how much of the\n"
        "input was stored); 66 the input file is missing or cannot be read; 78 bad settings "
        "(config file, OBJWIRE_* variable, setting flag);\n"
        "130 / 143 stopped by SIGINT (Ctrl-C) / SIGTERM: reading stops, a reconnect ends at\n"
        "once, the acknowledgements of what is in flight are taken while they come (up to 5 s,\n"
        "never 500 ms without one), then the exit 3 summary (a second signal ends at once).\n"
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
