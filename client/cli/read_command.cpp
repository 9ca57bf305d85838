#include "client/cli/read_command.hpp"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <charconv>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include <objwire/connection.hpp>
#include <objwire/reader.hpp>
#include "client/cli/parse_error_text.hpp"
#include "client/cli/progress.hpp"
#include "client/cli/start_time.hpp"
#include "client/jsonl/line_format.hpp"
#include "client/jsonl/raw_lines.hpp"
#include "config/settings.hpp"
#include "proto/errors.hpp"
#include "proto/json_writer.hpp"

namespace objwire::client {
namespace {

constexpr std::size_t write_chunk = 1 << 20;
// A cursor reader acknowledges what it wrote at most this often (and at its end).
constexpr auto ack_interval = std::chrono::milliseconds(500);

std::atomic<bool> stop_requested{false};

struct read_flags {
    std::string config_file;
    std::string to;
    access_flags access;  // --tls, --tls-ca, --token-file
    std::string from = "0";
    std::string since;  // --since: a duration back from now
    bool follow = false;
    std::string sender;
    std::string cursor;
    std::string offsets;
    std::string output = "-";
    bool from_given = false;  // --from on the command line, not the default
    std::uint64_t count = 0;  // --count: stop after this many objects (0: no limit)
    std::string format;       // --format: a line of fields per object
    bool envelope = false;    // --envelope: the object and where it is stored, as JSON
    bool raw = false;         // --raw: the text of `send --raw` records
    bool quiet = false;       // -q: no progress line, no summary
    std::string raw_type = std::string(default_raw_type);
    std::string raw_field = std::string(default_raw_field);
};

// --from: an offset, `end`, or -N (the last N objects). False for anything else.
bool parse_from(const std::string& text, read_options& o) {
    if (text == "end") {
        o.at_end = true;
        return true;
    }
    if (text.starts_with('@')) {
        const auto t = parse_start_time(std::string_view(text).substr(1));
        o.since_ms = t.value_or(0);
        return t && *t != 0;
    }
    const bool last = !text.empty() && text.front() == '-';
    const char* begin = text.data() + (last ? 1 : 0);
    const char* end = text.data() + text.size();
    std::uint64_t v = 0;
    auto [p, ec] = std::from_chars(begin, end, v);
    if (ec != std::errc() || p != end || begin == end) return false;
    if (last && v == 0) return false;
    (last ? o.last : o.from) = v;
    return true;
}

// The descriptor a path names that the process already holds: "-", /dev/stdout, /dev/stderr,
// /dev/fd/N. Opening those by name would reopen the file behind them, and truncate it (what
// `2>file` created and the shell's other writes share); they are written as inherited.
int inherited_fd(const std::string& path) {
    if (path == "-" || path == "/dev/stdout") return STDOUT_FILENO;
    if (path == "/dev/stderr") return STDERR_FILENO;
    for (const std::string_view prefix : {"/dev/fd/", "/proc/self/fd/"}) {
        if (!path.starts_with(prefix)) continue;
        int fd = -1;
        const char* end = path.data() + path.size();
        auto [p, ec] = std::from_chars(path.data() + prefix.size(), end, fd);
        if (ec == std::errc() && p == end && ::fcntl(fd, F_GETFD) >= 0) return fd;
    }
    return -1;
}

// One output file written in large writes; flush() makes everything added so far written out.
class buffered_file {
  public:
    // False (said on stderr) when the file cannot be created.
    bool open(const std::string& path) {
        path_ = path;
        const int fd = inherited_fd(path);
        if (fd == STDOUT_FILENO)
            file_ = stdout;
        else if (fd >= 0)
            file_ = ::fdopen(::fcntl(fd, F_DUPFD_CLOEXEC, 3), "wb");
        else
            file_ = std::fopen(path.c_str(), "wb");
        if (!file_)
            std::cerr << "objwire: cannot create '" << path << "': " << std::strerror(errno)
                      << "\n";
        return file_ != nullptr;
    }
    bool is_open() const { return file_ != nullptr; }
    std::string& buffer() { return buf_; }
    bool full() const { return buf_.size() >= write_chunk; }
    bool flush() {
        const bool good =
            buf_.empty() || (std::fwrite(buf_.data(), 1, buf_.size(), file_) == buf_.size() &&
                             std::fflush(file_) == 0);
        buf_.clear();
        if (!good && errno == EPIPE) closed_ = true;
        if (!good && !closed_) report();
        return good;
    }
    // Whether whoever reads the output closed it (EPIPE, or poll() says so while idle): the
    // end of the read they asked for, as `head -5` does, not an error.
    bool closed() const { return closed_; }
    bool check_closed() {
        if (!file_ || closed_) return closed_;
        pollfd p{::fileno(file_), 0, 0};
        if (::poll(&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLHUP)) != 0) closed_ = true;
        return closed_;
    }
    bool close() {
        bool good = !file_ || flush();
        if (file_ && file_ != stdout && std::fclose(file_) != 0) good = false, report();
        file_ = nullptr;
        return good;
    }
    ~buffered_file() {
        if (file_ && file_ != stdout) std::fclose(file_);
    }

  private:
    void report() const {
        std::cerr << "objwire: cannot write '" << path_ << "': " << std::strerror(errno) << "\n";
    }
    std::string path_;
    std::FILE* file_ = nullptr;
    std::string buf_;
    bool closed_ = false;
};

// What each object becomes on the output: a JSON line, a --format or --envelope line, or the
// text of a `send --raw` record (other objects are left out and counted).
struct object_form {
    std::optional<line_format> format;
    bool raw = false;
    std::string raw_type, raw_field;
};

// The objects as JSON lines (or in `form`) and, with --offsets, a line "OFFSET<TAB>SENDER" per
// object in a file of its own, so the objects stay what `send` accepts. The offsets are written
// after the objects they describe: the last offset line always names an object already written
// out.
class read_output {
  public:
    explicit read_output(object_form form) : form_(std::move(form)) {}
    int open(const std::string& objects, const std::string& offsets) {
        if (!offsets.empty() && inherited_fd(offsets) == STDOUT_FILENO &&
            inherited_fd(objects) == STDOUT_FILENO) {
            std::cerr << "objwire: --offsets " << offsets
                      << " is the objects' output too: give -o FILE, or --offsets /dev/stderr\n";
            return exit_codes::usage;
        }
        return objects_.open(objects) && (offsets.empty() || offsets_.open(offsets))
                   ? exit_codes::ok
                   : exit_codes::cannot_create;
    }
    bool add(const stored_message& m) {
        next_ = m.offset + 1;
        if (!append_object(m)) return !objects_.full() || flush();
        if (offsets_.is_open()) {
            auto& b = offsets_.buffer();
            b += std::to_string(m.offset);
            b.push_back('\t');
            b += m.sender_id;
            b.push_back('\n');
        }
        return !objects_.full() || flush();
    }
    bool flush() {
        const bool good = objects_.flush() && offsets_.flush();
        if (good) written_ = next_;
        return good;
    }
    bool close() {
        const bool good = flush();
        return objects_.close() && offsets_.close() && good;
    }
    // The offset after the last object added, and after the last one written out.
    std::uint64_t next() const { return next_; }
    std::uint64_t written() const { return written_; }
    void start_at(std::uint64_t offset) { next_ = written_ = offset; }
    bool closed() const { return objects_.closed() || offsets_.closed(); }
    // Looks whether an output's reader is gone without writing to it: a follower waiting
    // for new objects hears of a closed pipe at once, not with the next object.
    bool check_closed() { return objects_.check_closed() || offsets_.check_closed(); }
    // --raw: the objects left out, not being text records.
    std::uint64_t not_raw() const { return not_raw_; }

  private:
    // False for an object --raw leaves out.
    bool append_object(const stored_message& m) {
        auto& b = objects_.buffer();
        if (form_.raw) {
            const std::string* text = raw_text(m.value, form_.raw_type, form_.raw_field);
            if (!text) return ++not_raw_, false;
            b += *text;
            b.push_back('\n');
        } else if (form_.format) {
            form_.format->append(b, {m.offset, m.sender_id.str(), m.time_ms, m.value});
        } else {
            append_json(m.value, b);
            b.push_back('\n');
        }
        return true;
    }
    object_form form_;
    std::uint64_t not_raw_ = 0;
    buffered_file objects_;
    buffered_file offsets_;
    std::uint64_t next_ = 0;
    std::uint64_t written_ = 0;
};

// Written to by the stop handler, so the reader's wait between reconnections ends at once
// (read_options::stop_fd is its read end).
int stop_pipe[2] = {-1, -1};

void on_stop_signal(int) {
    stop_requested = true;
    if (stop_pipe[1] >= 0 && ::write(stop_pipe[1], "s", 1) < 0) return;  // full: already woken
}

// SIGINT and SIGTERM end the read cleanly: what was received is written out and a cursor
// stored at its end. A closed output is a failed write (EPIPE), not a SIGPIPE death, so that
// a cursor is stored there too and the exit is quiet.
void install_stop_handlers() {
    if (stop_pipe[0] < 0 && ::pipe2(stop_pipe, O_CLOEXEC | O_NONBLOCK) != 0)
        stop_pipe[0] = stop_pipe[1] = -1;  // the reader then looks at the flag every 200 ms
    struct sigaction sa = {};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
    std::signal(SIGPIPE, SIG_IGN);
}

// Defaults < file < environment < --to, as for the other subcommands.
bool load(const read_flags& f, config::client_settings& s) {
    return load_client_settings(f.config_file, f.to, s) && apply_access_flags(f.access, s);
}

// The gaps the daemon reported, each told once on stderr as it arrives (the reader lists a gap
// once, even when a reconnection hears of it again).
class gap_report {
  public:
    void tell(const reader& r) {
        for (; told_ < r.gaps().size(); ++told_) {
            const auto& g = r.gaps()[told_];
            if (g.end <= end_) continue;
            ++ranges_;
            end_ = g.end;
            std::cerr << "objwire: gap: offsets " << g.first << " to " << g.end - 1
                      << " are lost (damaged, or deleted by retention, in the daemon's journal); "
                         "reading goes on at "
                      << g.end << "\n";
        }
    }
    std::uint64_t ranges() const { return ranges_; }

  private:
    std::size_t told_ = 0;
    std::uint64_t end_ = 0;
    std::uint64_t ranges_ = 0;
};

// A start past what is stored is no error - a follower waits for it - but it is said, since
// nothing else would be.
void tell_past_end(const reader& r, const read_flags& f) {
    const std::uint64_t end = r.server().journal_end_offset;
    if (r.offsets_count_blocks() || r.start() <= end) return;
    std::cerr << "objwire: offset " << r.start()
              << " is past the end of what is stored (the next offset is " << end << ")"
              << (f.follow ? ": waiting for it\n" : ": nothing to read\n");
}

// --from places a new cursor; an existing one moves only by `objwire cursor set`, so that a
// --from left in a script never silently rewinds or skips a consumer. Usage when it exists.
int check_cursor_from(const read_flags& f, const config::client_settings& s) {
    read_options o;
    o.request = read_request::list_cursors;
    reader r(s, o);
    if (r.open()) return exit_codes::ok;  // the read itself reports the failure
    for (const auto& c : r.cursors().cursors) {
        if (c.name != f.cursor) continue;
        std::cerr << "objwire: cursor '" << f.cursor << "' exists (at offset " << c.next_offset
                  << "): --from places only a new cursor; leave it out to continue there, or "
                     "move the cursor with `objwire cursor set "
                  << f.cursor << " " << f.from << "`\n";
        return exit_codes::usage;
    }
    return exit_codes::ok;
}

int refused(const reader& r) {
    std::cerr << "objwire: " << r.last_error() << "\n";
    if (r.error() == proto_errc::past_end) return exit_codes::usage;  // a new cursor's --from
    return r.error() == proto_errc::not_found ? exit_codes::not_found : exit_codes::cannot_connect;
}

// --format, --envelope or --raw; usage for a format with an unknown field or escape.
int output_form(const read_flags& f, object_form& form) {
    form.raw = f.raw;
    form.raw_type = f.raw_type;
    form.raw_field = f.raw_field;
    if (f.envelope) form.format = line_format::envelope();
    if (f.format.empty()) return exit_codes::ok;
    std::string error;
    if (!form.format.emplace().parse(f.format, error)) {
        std::cerr << "objwire: " << error << "\n";
        return exit_codes::usage;
    }
    return exit_codes::ok;
}

// One `objwire read` once its flags are checked: one reader (a follower reconnects inside it
// after a lost daemon, include/objwire/reader.hpp), the objects written out, a cursor told what
// was written, and the summary at the end.
class read_run {
  public:
    read_run(const read_flags& f, config::client_settings settings, read_options options,
             read_output& out)
        : f_(f),
          settings_(std::move(settings)),
          options_(std::move(options)),
          out_(out),
          // On a terminal, unless the objects themselves go there.
          progress_("read", "in",
                    !f.quiet && progress_line::stderr_is_terminal() &&
                        (f.output != "-" || !::isatty(1))) {
        options_.on_wait = [this] {
            if (out_.check_closed()) stop_requested = true;
            maybe_ack();
        };
        options_.on_reconnect = [](const std::string& why, std::uint64_t at) {
            std::cerr << "objwire: " << why << "; reconnecting at offset " << at << "\n";
        };
    }
    read_run(const read_run&) = delete;
    read_run& operator=(const read_run&) = delete;

    int run();

  private:
    // Writes out what the reader hands out until it ends; an exit code when a write failed.
    std::optional<int> copy_objects(reader& r);
    // The reader ended: its failure, a cursor's last position, or the summary.
    int after_end(reader& r);
    // A cursor hears what was written out, at most every ack_interval, while objects arrive
    // and once the reader waits.
    void maybe_ack();
    // A write failed: an output closed by its reader ends the read quietly (at what was
    // written out, for a cursor); any other failure was reported.
    int write_failed(reader& r);
    int summary(const reader& r);

    const read_flags& f_;
    config::client_settings settings_;
    read_options options_;
    read_output& out_;
    progress_line progress_;
    std::uint64_t objects_ = 0;
    reader* current_ = nullptr;
    std::chrono::steady_clock::time_point last_ack_ = std::chrono::steady_clock::now();
    std::uint64_t acked_ = 0;
    gap_report gaps_;
};

void read_run::maybe_ack() {
    const auto now = std::chrono::steady_clock::now();
    if (f_.cursor.empty() || out_.written() == acked_ || now - last_ack_ < ack_interval) return;
    if (!current_->ack(out_.written())) acked_ = out_.written();
    last_ack_ = now;
}

int read_run::write_failed(reader& r) {
    if (!out_.closed()) return exit_codes::io_error;
    progress_.finish();
    if (!f_.cursor.empty()) r.finish_cursor(out_.written());
    return exit_codes::ok;
}

std::optional<int> read_run::copy_objects(reader& r) {
    stored_message m;
    while (r.next(m)) {
        gaps_.tell(r);
        ++objects_;
        progress_.tick([&] {
            return progress_sample{objects_, r.stats().wire_bytes_in, objects_, false};
        });
        if (!out_.add(m)) return write_failed(r);
        if (f_.count != 0 && objects_ >= f_.count) break;
        if (r.ready() != 0) continue;
        // About to wait for the daemon: what came is written out, and a cursor hears so.
        if ((f_.follow || !f_.cursor.empty()) && !out_.flush()) return write_failed(r);
        maybe_ack();
    }
    gaps_.tell(r);
    if (!out_.flush()) return write_failed(r);
    return std::nullopt;
}

int read_run::after_end(reader& r) {
    const bool counted_out = f_.count != 0 && objects_ >= f_.count;
    if (r.error() && !counted_out) {
        out_.close();
        if (r.error() == proto_errc::not_found) return refused(r);
        std::cerr << "objwire: " << r.last_error() << " (after " << counted(objects_, "object")
                  << ")\n";
        return exit_codes::cannot_connect;
    }
    // A stop during a reconnection's wait has no connection to store the cursor through.
    if (!f_.cursor.empty() && r.is_open() && r.finish_cursor(out_.written())) {
        std::cerr << "objwire: " << r.last_error() << " (cursor '" << f_.cursor
                  << "' may repeat objects after its last stored position)\n";
        out_.close();
        return exit_codes::cannot_connect;
    }
    return summary(r);
}

int read_run::run() {
    reader r(settings_, options_);
    current_ = &r;
    if (r.open()) return refused(r);
    out_.start_at(r.start());
    acked_ = out_.written();
    tell_past_end(r, f_);
    if (auto rc = copy_objects(r)) return *rc;
    return after_end(r);
}

int read_run::summary(const reader& r) {
    progress_.finish();
    if (!out_.close() && !out_.closed()) return exit_codes::io_error;
    if (out_.closed()) return exit_codes::ok;
    if (!f_.quiet)
        std::cerr << "objwire: read " << counted(objects_, "object") << " in "
                  << counted(r.stats().blocks, "block") << " from " << r.server().sink
                  << (f_.cursor.empty() ? ""
                                        : "; cursor '" + f_.cursor + "' at offset " +
                                              std::to_string(out_.written()))
                  << "\n";
    if (out_.not_raw() != 0)
        std::cerr << "objwire: --raw left out " << counted(out_.not_raw(), "object")
                  << " that are not '" << f_.raw_type << "' records with a string field '"
                  << f_.raw_field << "'\n";
    if (gaps_.ranges() != 0) {
        std::cerr << "objwire: " << gaps_.ranges()
                  << " range(s) of offsets were lost in the journal (see above)\n";
        return exit_codes::data_lost;
    }
    return exit_codes::ok;
}

// Where and what to read, from the flags alone: 0, or exit_codes::usage (said on stderr).
int parse_read_options(const read_flags& f, read_options& options) {
    if (!parse_from(f.from, options)) {
        std::cerr << "objwire: --from takes an offset, 'end' (only new objects), -N (the last "
                     "N objects) or @TIME (2026-12-01T10:00:00Z, or milliseconds since 1970), "
                     "not '"
                  << f.from << "'\n";
        return exit_codes::usage;
    }
    if (!f.since.empty()) {
        const auto now = std::chrono::duration_cast<std::chrono::milliseconds>(
            std::chrono::system_clock::now().time_since_epoch());
        const auto t = parse_since(f.since, static_cast<std::uint64_t>(now.count()));
        if (!t) {
            std::cerr << "objwire: --since takes a duration back from now (90s, 10m, 2h, 1d), "
                         "not '"
                      << f.since << "'\n";
            return exit_codes::usage;
        }
        options.since_ms = *t;
    }
    if (!f.cursor.empty() && !valid_cursor_name(f.cursor)) {
        std::cerr << "objwire: --cursor '" << f.cursor
                  << "': a cursor name is 1 to 128 of A-Z a-z 0-9 . _ - (not starting with .)\n";
        return exit_codes::usage;
    }
    options.follow = f.follow;
    options.reconnect = true;  // a follower outlives a daemon restart
    options.sender = f.sender;
    options.cursor = f.cursor;
    return 0;
}

int run_read(const read_flags& f) {
    read_options options;
    if (int rc = parse_read_options(f, options)) return rc;
    config::client_settings settings;
    if (!load(f, settings)) return exit_codes::bad_config;
    if (!f.cursor.empty() && f.from_given)
        if (int rc = check_cursor_from(f, settings)) return rc;
    object_form form;
    if (int rc = output_form(f, form)) return rc;
    read_output out(std::move(form));
    if (int rc = out.open(f.output, f.offsets)) return rc;
    install_stop_handlers();
    options.stop = &stop_requested;
    options.stop_fd = stop_pipe[0];
    return read_run(f, std::move(settings), std::move(options), out).run();
}

}  // namespace

// An empty --sender or --cursor is a mistake (an unset variable in a script), not "all".
const CLI::Validator non_empty(
    [](const std::string& s) {
        return s.empty() ? std::string("must not be empty (leave the flag out instead)")
                         : std::string();
    },
    "");

subcommand add_read_command(CLI::App& app) {
    auto flags = std::make_shared<read_flags>();
    auto* cmd = app.add_subcommand(
        "read", "print the daemon's stored objects as JSON lines (what `send` accepts)");
    cmd->add_option("--to", flags->to, "daemon address HOST:PORT (default 127.0.0.1:7878)");
    add_access_flags(cmd, flags->access);
    cmd->add_option("-c,--config", flags->config_file, config_flag_help);
    auto* from = cmd->add_option(
        "--from", flags->from,
        "where to start: an offset (of a journal; a stream sequence, one per block, "
        "of a NATS stream), 'end' (only objects stored from now on) or -N (the last "
        "N objects, of --sender if given) or @TIME (the first object stored at or "
        "after 2026-12-01T10:00:00Z, an offset +01:00 or milliseconds since 1970). "
        "Default 0: everything still stored. Past the end: said on stderr (a follower "
        "waits for it). With --cursor: only for a new cursor (an existing one: exit 1; "
        "see `cursor set`)");
    auto* since = cmd->add_option("--since", flags->since,
                                  "start at the first object stored within this long back from now "
                                  "(90s, 10m, 2h, 1d), instead of --from")
                      ->check(non_empty);
    cmd->add_flag("--follow", flags->follow,
                  "after the stored objects, wait and print new ones as they are stored; when "
                  "the daemon restarts, reconnect (with backoff, for resume.retry_for) and go "
                  "on at the next offset");
    cmd->add_option("--sender", flags->sender,
                    "only the objects of this sender id (an id that stored nothing: exit 6)")
        ->check(non_empty);
    cmd->add_option("--cursor", flags->cursor,
                    "a named cursor kept by the daemon: start where the last reader with this "
                    "name acknowledged (a new cursor starts at --from), and move it as objects "
                    "are written out. A killed reader repeats at most the last half second; "
                    "SIGINT, SIGTERM or the end of the stream store the exact position")
        ->check(non_empty);
    cmd->add_option("--offsets", flags->offsets,
                    "also write 'OFFSET<TAB>SENDER' per object to this file, line N for the Nth "
                    "object, so the objects stay re-sendable. -, /dev/stdout, /dev/stderr and "
                    "/dev/fd/N are written as inherited, never reopened or truncated (e.g. "
                    "--offsets /dev/stderr 2>>log)");
    cmd->add_option("--count", flags->count,
                    "stop after this many objects (with --follow too; a cursor then stands after "
                    "the last one printed)")
        ->check(one_or_more);
    auto* format =
        cmd->add_option(
               "--format", flags->format,
               "print a line per object built from fields: %o offset, %s sender id, %T stored time "
               "(ms since the epoch), %t record type, %j the object as one line of JSON, %% a '%'; "
               "escapes \\t tab, \\n newline, \\\\ backslash; a newline ends each object's line. "
               "E.g. --format '%o\\t%t\\t%j'. An unknown field: exit 1")
            ->check(non_empty);
    auto* envelope =
        cmd->add_flag("--envelope", flags->envelope,
                      "print one JSON object per line: "
                      "{\"offset\":N,\"sender\":\"ID\",\"time\":MS,\"object\":OBJECT}");
    auto* raw = cmd->add_flag(
        "--raw", flags->raw,
        "print the text of `send --raw` records, one per line, byte for byte as they were "
        "sent; other objects are left out (counted on stderr)");
    cmd->add_option("--raw-type", flags->raw_type,
                    "with --raw: the record type to print (default 'line')")
        ->needs(raw);
    cmd->add_option("--raw-field", flags->raw_field,
                    "with --raw: the string field to print (default 'text')")
        ->needs(raw)
        ->check(non_empty);
    from->excludes(since);
    format->excludes(envelope)->excludes(raw);
    envelope->excludes(raw);
    cmd->add_option("-o,--output", flags->output,
                    "file to create (or replace), - for stdout (default)");
    add_quiet_flag(cmd, flags->quiet);
    cmd->footer(
        "Exit: 0 done (or stopped by SIGINT/SIGTERM, or the output closed by its reader, as "
        "by `read | head -5`: quietly, a --follow reader within 0.2 s while it waits), 1 usage "
        "(also an unknown --format field or escape), 2 "
        "cannot connect or the "
        "connection failed, 5 offsets lost to damage in the daemon's journal (the rest was "
        "printed), 6 unknown --sender, 73 an output (-o, --offsets) cannot be created, 74 "
        "writing an output failed, 78 bad settings.\n"
        "Example:\n  objwire read --to 127.0.0.1:7878 --from 0 -o stored.jsonl\n"
        "  objwire read --to 127.0.0.1:7878 --format %o\\t%s\\t%T\\t%t\\t%j\n"
        "  objwire read --to 127.0.0.1:7878 --envelope -o envelopes.jsonl");
    return {cmd, [flags, from] {
                flags->from_given = from->count() > 0;
                return run_read(*flags);
            }};
}

}  // namespace objwire::client
