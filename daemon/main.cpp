// objwired: the objwire daemon. Loads its settings (defaults < file < environment < flags),
// serves until SIGINT or SIGTERM, then stops gracefully within server.shutdown_grace.
// `--dump-journal` instead prints what the data directory's journal holds, offline.
#include <spdlog/spdlog.h>
#include <unistd.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <CLI/CLI.hpp>
#include <asio.hpp>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <thread>
#include <vector>

#include <objwire/version.hpp>
#include "client/lib/descriptor_limit.hpp"
#include "config/daemon_rules.hpp"
#include "config/env_names.hpp"
#include "config/exit_code.hpp"
#include "config/settings.hpp"
#include "daemon/ops/journal_tools.hpp"
#include "daemon/ops/service_notify.hpp"
#include "daemon/ops/settings_check.hpp"
#include "daemon/roles/standard_roles.hpp"
#include "daemon/serve/server.hpp"
#include "daemon/telemetry/log_format.hpp"
#include "daemon/telemetry/warning_log.hpp"
#include "proto/json_writer.hpp"

#ifdef OBJWIRED_TEST_FAULTS
// Only a test build of objwired defines this (tests/integration/objwired_faults.cpp): it
// installs the failures a test injects. objwired itself injects none.
void install_test_faults(objwire::daemon::server& srv);
#endif

namespace {

// Exit codes (docs/OPERATIONS.md, "Exit codes"); bad settings exit config::bad_config_exit.
constexpr int exit_usage = 1;         // a bad flag or argument
constexpr int exit_cannot_start = 2;  // cannot listen, data directory locked or unreadable

struct flags {
    std::string config_file;
    std::string check_config;
    std::string listen;
    std::string data_dir;
    std::string log_level;
    bool dump_journal = false;
    bool verify_journal = false;
    bool repair_journal = false;
    std::uint64_t from = 0;
};

// Where load_settings' messages go: stderr, before the logger exists and while a reload
// reads the file. Under journald each line starts with its priority ("<3>" an error, "<4>" a
// warning) and no name; the check prints the messages bare, as a compiler would.
struct console {
    objwire::daemon::log_style style = objwire::daemon::log_style::plain;
    bool bare = false;

    void error(std::string_view text) const { say(3, "", text); }
    void warning(std::string_view text) const { say(4, "warning: ", text); }

  private:
    void say(int priority, std::string_view level, std::string_view text) const {
        if (style == objwire::daemon::log_style::journal)
            std::cerr << objwire::daemon::journal_lines(priority, text) << "\n";
        else
            std::cerr << (bare ? "" : "objwired: ") << level << text << "\n";
    }
};
console console_;  // set once in main, before any thread

// How load_settings treats an OBJWIRE_* variable that names no setting: the start and a
// reload warn (a stray variable does not stop a service), the check refuses it, as
// `objwire config check` does.
enum class unknown_env { warn, refuse };

// Applies file, environment and flags in that order, then every check of the start
// (daemon/ops/settings_check.hpp); prints each error and returns false.
bool load_settings(const flags& f, objwire::config::daemon_settings& s,
                   unknown_env unknown = unknown_env::warn) {
    using namespace objwire::config;
    if (!f.config_file.empty()) {
        auto loaded = load_daemon_file(f.config_file);
        if (!loaded) {
            console_.error(loaded.error().message);
            return false;
        }
        s = std::move(*loaded);
    }
    if (auto e = apply_daemon_env(s, [](const char* n) { return std::getenv(n); })) {
        console_.error(e->message);
        return false;
    }
    // A misspelt variable would otherwise be ignored without a word.
    bool refused = false;
    for (const auto& u : unknown_env_variables(process_environment())) {
        if (unknown == unknown_env::refuse)
            console_.error(u.message());
        else
            console_.warning(u.message());
        refused = unknown == unknown_env::refuse;
    }
    if (refused) return false;
    struct flag_override {
        const std::string& text;
        const char* key;
        const char* flag;
    };
    const flag_override overrides[] = {{f.listen, "server.listen", "--listen"},
                                       {f.data_dir, "server.data_dir", "--data-dir"},
                                       {f.log_level, "server.log_level", "--log-level"}};
    for (const auto& [text, key, flag] : overrides) {
        if (text.empty()) continue;
        if (auto e = apply_daemon_override(s, key, text, flag)) {
            console_.error(e->message);
            return false;
        }
    }
    auto problems = objwire::daemon::settings_problems(s);
    if (!f.config_file.empty()) problems = place_in_file(std::move(problems), f.config_file);
    for (const auto& p : problems)
        console_.error(p);
    // Said before the daemon fails to write there, and by the reload's check.
    const char* state_directory = std::getenv("STATE_DIRECTORY");
    if (auto why = data_dir_outside_state_directory(s, state_directory ? state_directory : "");
        problems.empty() && !why.empty())
        console_.warning(why);
    return problems.empty();
}

// SIGHUP: builds the settings again as at start (file, environment, flags) and lets the
// server apply what can change live; a file with errors changes nothing.
// `stopping` is set by the SIGTERM handler, which runs on the same strand: a SIGHUP already
// taken when SIGTERM came is not acted on, and the wait is never armed again after the SIGTERM
// handler cancelled it (an armed wait would keep the io_context - and objwired - running).
// `status` is what the notify STATUS= says while serving; a reload ends by saying it again.
void reload_on_sighup(asio::signal_set& hup, const flags& f, objwire::daemon::server& srv,
                      const bool& stopping, const std::string& status) {
    hup.async_wait([&hup, &f, &srv, &stopping, &status](std::error_code ec, int) {
        if (ec || stopping) return;
        objwire::daemon::service::notify_reloading();
        spdlog::info(
            "SIGHUP: reloading settings from {}",
            f.config_file.empty() ? "the environment and flags (no --config)" : f.config_file);
        objwire::config::daemon_settings next;
        if (load_settings(f, next)) {
            srv.reload(next);
        } else {
            ++srv.metrics().reload_failures;
            spdlog::error(
                "reload: settings not reloaded, the ones in force stay (error above; "
                "objwire_reload_failures_total counts these)");
        }
        objwire::daemon::service::notify_ready(status);
        reload_on_sighup(hup, f, srv, stopping, status);
    });
}

// The settings the start would build from this file, the environment and the other flags,
// with every check the start makes: the unit's ExecReload runs it before signalling.
// `--check-config` alone checks the --config file (or, with neither, the environment and flags).
int check_config(flags f) {
    if (!f.check_config.empty()) f.config_file = f.check_config;
    console_.bare = true;
    objwire::config::daemon_settings s;
    if (!load_settings(f, s, unknown_env::refuse)) return objwire::config::bad_config_exit;
    std::cout << (f.config_file.empty() ? "the environment and flags" : f.config_file) << ": ok\n";
    return 0;
}

// What an operator looks for beyond the flags. packaging/make_docs.py turns each "Name:"
// heading into a section of objwired(8); docs/OPERATIONS.md says the same at length.
constexpr const char* help_footer =
    "Example:\n"
    "  objwired --listen 127.0.0.1:7878 --data-dir /var/lib/objwire\n"
    "  objwired --config /etc/objwire/objwired.toml --check-config\n"
    "  objwired --data-dir /var/lib/objwire --dump-journal --from 1000\n"
    "  objwired --data-dir /var/lib/objwire --verify-journal\n"
    "\n"
    "Signals:\n"
    "  SIGHUP           re-read the settings; a bad file changes nothing\n"
    "  SIGTERM, SIGINT  finish received frames within server.shutdown_grace, then exit 0\n"
    "\n"
    "Exit status:\n"
    "  0   stopped by SIGTERM or SIGINT; --check-config found the settings good\n"
    "  1   a bad flag or argument; --verify-journal: the journal cannot be read\n"
    "  2   cannot start (listen address, data directory locked or unreadable);\n"
    "      --verify-journal: offsets lost\n"
    "  78  bad settings (EX_CONFIG): the unit does not restart on it\n"
    "\n"
    "Environment:\n"
    "  OBJWIRE_<SECTION>_<KEY>  a setting, over the file (OBJWIRE_SERVER_LISTEN)\n"
    "  JOURNAL_STREAM           set by systemd: each log line starts with its priority (<3>)\n"
    "  NOTIFY_SOCKET, WATCHDOG_USEC  set by systemd: readiness, reload and watchdog notices\n"
    "  STATE_DIRECTORY          set by systemd: server.data_dir outside it is warned about\n"
    "  NO_COLOR                 no colour on a terminal\n"
    "\n"
    "Files:\n"
    "  /etc/objwire/objwired.toml  the settings the unit passes with --config\n"
    "  /var/lib/objwire            stored objects and cursors (server.data_dir)\n"
    "\n"
    "Metrics:\n"
    "  GET http://127.0.0.1:9464/metrics (metrics.listen): Prometheus text, objwire_* series;\n"
    "  objwire stats --to HOST:PORT prints them for a person";

void add_flags(CLI::App& app, flags& f) {
    app.set_version_flag("--version", objwire::version_text("objwired"));
    app.add_option("-c,--config", f.config_file, "TOML settings file (see config/objwired.toml)");
    app.add_option("--listen", f.listen, "HOST:PORT to listen on (port 0 picks a free port)");
    app.add_option("--data-dir", f.data_dir, "directory for stored objects");
    app.add_option("--log-level", f.log_level, "trace|debug|info|warn|error|critical|off");
    app.add_option("--check-config", f.check_config,
                   "check a settings file (without one: the --config file) as the start would, "
                   "with the OBJWIRE_* environment and the other flags, and exit: 0 ok, 78 bad")
        ->expected(0, 1)
        ->type_name("[FILE]");
    app.add_flag("--dump-journal", f.dump_journal,
                 "print the stored objects of the data directory's journal as JSON lines and exit");
    app.add_option("--from", f.from, "with --dump-journal: the first offset to print");
    app.add_flag("--verify-journal", f.verify_journal,
                 "verify every block of the data directory's journal and exit (0 intact, 1 "
                 "unreadable, 2 offsets lost)");
    app.add_flag("--repair-journal", f.repair_journal,
                 "recover the journal accepting a loss of synced data (cut bytes kept aside, "
                 "lost offsets recorded) and exit");
    app.footer(help_footer);
}

namespace ops = objwire::daemon;
namespace service = objwire::daemon::service;

// SIGINT or SIGTERM: sessions finish what they received within server.shutdown_grace; then
// every connection left is closed, and a second later, should anything still run, the io
// stops. So SIGTERM always ends objwired within the grace and a second. Everything it touches
// runs on the signal strand.
class graceful_stop {
  public:
    graceful_stop(asio::io_context& io, asio::strand<asio::io_context::executor_type>& strand,
                  ops::server& srv)
        : io_(io), srv_(srv), grace_(io), signals_(strand, SIGINT, SIGTERM) {}

    // `before_stop` runs first: what must not outlive the serving (the watchdog, reloads).
    void arm(std::function<void()> before_stop) {
        signals_.async_wait(
            [this, before_stop = std::move(before_stop)](std::error_code ec, int signo) {
                if (ec) return;
                stopping_ = true;
                spdlog::info("signal {}: finishing received frames, then exiting", signo);
                service::notify_stopping();
                before_stop();
                srv_.stop();
                start_grace();
                // Once the last session has ended only the grace timer is left: cancel it.
                srv_.when_idle([this] { grace_.cancel(); });
            });
    }
    // True once a stop signal came (read on the signal strand).
    const bool& stopping() const { return stopping_; }

  private:
    void start_grace() {
        const auto shutdown_grace = srv_.settings().shutdown_grace;  // may have been reloaded
        grace_.expires_after(shutdown_grace);
        grace_.async_wait([this, shutdown_grace](std::error_code ec) {
            if (ec) return;
            spdlog::warn("shutdown grace of {} ms over: closing what is left",
                         shutdown_grace.count());
            srv_.abort();
            grace_.expires_after(std::chrono::seconds(1));
            grace_.async_wait([this](std::error_code last) {
                if (last) return;
                spdlog::error("still running a second after the shutdown grace: stopping now");
                io_.stop();
            });
        });
    }

    asio::io_context& io_;
    ops::server& srv_;
    asio::steady_timer grace_;
    asio::signal_set signals_;
    bool stopping_ = false;
};

// Runs io on every core (at least two threads) until it stops.
void run_io(asio::io_context& io) {
    const unsigned n = std::max(2u, std::thread::hardware_concurrency());
    std::vector<std::thread> threads;
    for (unsigned i = 1; i < n; ++i)
        threads.emplace_back([&] { io.run(); });
    io.run();
    for (auto& t : threads)
        t.join();
}

// The soft descriptor limit raised to the hard one, said in the log; a warning when even
// that leaves less than a descriptor per connection server.max_connections admits.
void raise_descriptor_limit(const objwire::config::daemon_settings& s) {
    const auto limits = objwire::client::raise_descriptor_limit();
    if (!limits.after) return;
    if (limits.before != limits.after)
        spdlog::info("descriptor limit (RLIMIT_NOFILE) raised from {} to {}, the hard limit",
                     limits.before ? std::to_string(*limits.before) : "unlimited", *limits.after);
    if (*limits.after < std::uint64_t{s.max_connections} + 64)
        spdlog::warn(
            "descriptor limit {} (RLIMIT_NOFILE, hard) is below server.max_connections = {} "
            "plus 64 for the journal and listeners: past it, connections before their hello are "
            "shed and new ones refused; raise it (LimitNOFILE= in the unit, ulimit -Hn)",
            *limits.after, s.max_connections);
}

// Serves until a stop signal; the process's exit code.
int serve(const flags& f, const objwire::config::daemon_settings& settings) {
    raise_descriptor_limit(settings);
    asio::io_context io;
    // A flood of bad peers gives a few lines and a count per kind, not a line each.
    ops::warning_log peer_warnings(io);
    // Both signal sets on one strand: a reload and the stop never run at once (io runs on
    // several threads). SIGHUP is taken before start: a reload never kills a starting daemon.
    auto signal_strand = asio::make_strand(io);
    asio::signal_set hup(signal_strand, SIGHUP);
    ops::server srv(io, settings, ops::standard_roles());
#ifdef OBJWIRED_TEST_FAULTS
    install_test_faults(srv);
#endif
    if (srv.start()) return exit_cannot_start;
    ops::install_warning_log(&peer_warnings);  // before io runs: no session yet
    service::watchdog watchdog(io);
    const auto bound = srv.local_endpoint();
    const std::string status =
        "listening on " + bound.address().to_string() + ":" + std::to_string(bound.port());
    service::notify_ready(status);
    graceful_stop stop(io, signal_strand, srv);
    reload_on_sighup(hup, f, srv, stop.stopping(), status);
    stop.arm([&] {
        watchdog.stop();
        peer_warnings.stop();
        hup.cancel();
    });
    run_io(io);
    ops::install_warning_log(nullptr);
    peer_warnings.stop();  // what the drain added
    spdlog::info("stopped: {} objects stored from {} connections", srv.counters().objects_in.load(),
                 srv.counters().connections_total.load());
    return 0;
}

// One malloc arena for every thread of objwired. With one per thread (glibc's default), what a
// connection's frame freed on one io thread stays in that thread's arena while its next frame,
// run on the other, is decoded into fresh memory: against a peer's frames that decode to
// 16 MiB, the peak RSS rose by 12 or 30 MB in 5 of 45 runs (tests/integration/
// memory_bound_test.sh), over the bound docs/SECURITY.md promises; in none of 45 with one arena.
// The cost did not show: objwired's CPU with 1,000 senders or one within the runs' noise
// (docs/DECISIONS.md, "One malloc arena").
void share_one_malloc_arena() {
#if defined(__GLIBC__)
    ::mallopt(M_ARENA_MAX, 1);
#endif
}

}  // namespace

int main(int argc, char** argv) {
    share_one_malloc_arena();
    CLI::App app{"objwired - receives, stores and serves objwire object streams", "objwired"};
    flags f;
    add_flags(app, f);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e) == 0 ? 0 : exit_usage;  // not CLI11's own codes (--help: 0)
    }
    console_.style = ops::choose_log_style([](const char* n) { return std::getenv(n); },
                                           ::isatty(STDERR_FILENO) != 0);
    if (app.count("--check-config") > 0) return check_config(f);

    objwire::config::daemon_settings settings;
    if (!load_settings(f, settings)) return objwire::config::bad_config_exit;
    if (f.dump_journal) return ops::dump_journal(settings.data_dir, f.from);
    if (f.verify_journal) return ops::verify_journal(settings.data_dir);
    // Logs go to stderr: stdout stays free for output, and systemd's journal takes both.
    spdlog::set_default_logger(ops::make_stderr_logger("objwired", console_.style));
    spdlog::set_level(spdlog::level::from_str(settings.log_level));
    if (f.repair_journal) return ops::repair_journal(settings);
    return serve(f, settings);
}
