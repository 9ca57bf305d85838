#include "client/cli/stats_command.hpp"

#include <fmt/format.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "client/cli/bench_report.hpp"
#include "client/cli/parse_error_text.hpp"
#include "client/lib/stats_client.hpp"
#include "config/settings.hpp"
#include "proto/json_writer.hpp"
#include "proto/metric_families.hpp"

namespace objwire::client {
namespace {

struct stats_flags {
    daemon_flags daemon;
    bool json = false;
    std::string watch;        // --watch INTERVAL: "" once, else a duration ("2s")
    std::uint64_t count = 0;  // with --watch: stop after this many blocks; 0 never
};

constexpr const char* default_watch_interval = "2s";

bool load(const stats_flags& f, config::client_settings& s) {
    return load_daemon_settings(f.daemon, s);
}

// The samples by name (unlabelled) and by name and label value, remembering which were shown
// so the rest can be listed at the end.
class metric_set {
  public:
    explicit metric_set(std::vector<metric_family> families) : families_(std::move(families)) {
        for (const auto& f : families_)
            for (const auto& s : f.samples)
                samples_.push_back(&s);
    }
    // samples_ points into families_.
    metric_set(const metric_set&) = delete;
    metric_set& operator=(const metric_set&) = delete;
    double get(const std::string& name) {
        shown_.insert(name);
        const auto* s = find_metric_sample(families_, name);
        return s ? as_double(s->value) : 0;
    }
    // Samples of `name` by the value of `label`.
    std::vector<std::pair<std::string, double>> by_label(const std::string& name,
                                                         const std::string& label) {
        shown_.insert(name);
        std::vector<std::pair<std::string, double>> out;
        for (const auto* s : samples_)
            if (s->name == name)
                for (const auto& l : s->labels)
                    if (l.name == label) out.emplace_back(l.value, as_double(s->value));
        return out;
    }
    bool has(const std::string& name) const {
        return std::any_of(samples_.begin(), samples_.end(),
                           [&](const metric_sample* s) { return s->name == name; });
    }
    std::vector<const metric_sample*> not_shown() const {
        std::vector<const metric_sample*> out;
        for (const auto* s : samples_)
            if (!shown_.contains(s->name)) out.push_back(s);
        return out;
    }
    const std::vector<const metric_sample*>& all() const { return samples_; }

  private:
    std::vector<metric_family> families_;
    std::vector<const metric_sample*> samples_;  // into families_, in order
    std::set<std::string> shown_;
};

std::string count(double v) {
    const auto n = static_cast<std::uint64_t>(std::llround(v));
    std::string digits = std::to_string(n);
    std::string out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i != 0 && (digits.size() - i) % 3 == 0) out.push_back(',');
        out.push_back(digits[i]);
    }
    return out;
}

// "1 object", "12,345 objects".
std::string objects_text(double v) {
    return count(v) + (std::llround(v) == 1 ? " object" : " objects");
}

std::string bytes(double v) {
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (v >= 1024 && u < 4) {
        v /= 1024;
        ++u;
    }
    return u == 0 ? fmt::format("{} B", static_cast<std::uint64_t>(v))
                  : fmt::format("{:.1f} {}", v, units[u]);
}

std::string duration(double seconds) {
    if (seconds < 1e-3) return fmt::format("{:.0f} us", seconds * 1e6);
    if (seconds < 1) return fmt::format("{:.1f} ms", seconds * 1e3);
    if (seconds < 120) return fmt::format("{:.1f} s", seconds);
    const auto s = static_cast<std::uint64_t>(seconds);
    if (s < 2 * 3600) return fmt::format("{} min", s / 60);
    if (s < 2 * 86400) return fmt::format("{} h {} min", s / 3600, s % 3600 / 60);
    return fmt::format("{} d {} h", s / 86400, s % 86400 / 3600);
}

std::string percent(double part, double whole) {
    return whole > 0 ? fmt::format("{:.1f}%", 100 * part / whole) : "-";
}

// The bucket bound under which `q` of the observations fall ("<= 5.0 ms").
std::string quantile(const std::vector<std::pair<std::string, double>>& buckets, double total,
                     double q) {
    if (total <= 0) return "-";
    for (const auto& [le, n] : buckets)
        if (n >= q * total)
            return le == "+Inf" ? "> the largest bucket" : "<= " + duration(std::stod(le));
    return "-";
}

std::string mbit(double bps) {
    return fmt::format("{:.1f} Mbit/s", bps / 1e6);
}

// The daemon's receive link estimate: the fastest open sender connection's, else the latest.
std::string link_estimate(double max_bps, double connections, double last_bps) {
    if (connections > 0)
        return mbit(max_bps) + " (fastest of " + count(connections) + " connections)";
    return last_bps > 0 ? mbit(last_bps) + " (latest, no connection open)" : "-";
}

void line(const std::string& label, const std::string& value) {
    std::cout << fmt::format("  {:<22} {}\n", label, value);
}

// A sender id is any text its peer chose: control characters are not sent to the terminal.
std::string printable(std::string text) {
    for (char& c : text)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
    return text;
}

// Objects and bytes stored per sender id, and how long ago each last stored ("" sums
// anonymous senders and the ids beyond the daemon's cap).
void print_senders(metric_set& m, double now) {
    const auto objects = m.by_label("objwire_sender_objects_total", "sender");
    const auto stored = m.by_label("objwire_sender_bytes_total", "sender");
    const auto seen = m.by_label("objwire_sender_last_seen_timestamp_seconds", "sender");
    if (objects.empty() || objects.size() != stored.size() || objects.size() != seen.size()) return;
    std::cout << "\nSenders\n";
    for (std::size_t i = 0; i < objects.size(); ++i) {
        const std::string who = objects[i].first.empty() ? "(others)" : printable(objects[i].first);
        line(who, objects_text(objects[i].second) + ", " + bytes(stored[i].second) + ", last " +
                      duration(std::max(0.0, now - seen[i].second)) + " ago");
    }
}

// The journal's files as they stand (docs/OPERATIONS.md, "The journal on disk").
void print_journal(metric_set& m) {
    std::cout << "\nJournal\n";
    const double segments = m.get("objwire_journal_segments");
    line("on disk", bytes(m.get("objwire_journal_bytes")) + " in " + count(segments) +
                        (segments == 1 ? " segment" : " segments"));
    const double first = m.get("objwire_journal_first_offset");
    const double next = m.get("objwire_journal_next_offset");
    line("offsets", count(first) + " .. " + count(next) + " (" + objects_text(next - first) + ")");
    line("durable up to", count(m.get("objwire_journal_durable_offset")));
    const double avail = m.get("objwire_journal_filesystem_avail_bytes");
    const double size = m.get("objwire_journal_filesystem_size_bytes");
    if (size > 0) line("file system free", bytes(avail) + " of " + bytes(size));
    line("retention deleted",
         count(m.get("objwire_journal_retention_deleted_segments_total")) + " segments (" +
             bytes(m.get("objwire_journal_retention_deleted_bytes_total")) + ")");
    const double syncs = m.get("objwire_journal_fsync_duration_seconds_count");
    m.get("objwire_journal_fsync_duration_seconds_sum");
    const auto buckets = m.by_label("objwire_journal_fsync_duration_seconds_bucket", "le");
    line("syncs",
         count(syncs) + (syncs > 0 ? ", median " + quantile(buckets, syncs, 0.5) +
                                         ", 99th percentile " + quantile(buckets, syncs, 0.99)
                                   : ""));
    line("cursors", count(m.get("objwire_cursors")));
    for (const auto& [name, lag] : m.by_label("objwire_cursor_lag_objects", "cursor"))
        line(name.empty() ? "  (other cursors)" : "  " + printable(name),
             objects_text(lag) + " behind" + (name.empty() ? " at most" : ""));
    line("slowest reader", objects_text(m.get("objwire_reader_lag_max_objects")) + " behind");
}

void print_human(metric_set& m, const stats_answer& a, const std::string& where) {
    const double now =
        std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    const double started = m.get("objwire_start_time_seconds");
    std::cout << a.server_name << " at " << where << ", storing into " << a.sink;
    if (started > 0) std::cout << ", up " << duration(now - started);
    std::cout << "\n\nConnections\n";
    line("open", count(m.get("objwire_connections_open")));
    line("accepted", count(m.get("objwire_connections_total")));
    line("refused", count(m.get("objwire_connections_refused_total")));
    std::string roles;
    for (const auto& [role, n] : m.by_label("objwire_connections_by_role", "role"))
        if (n > 0) roles += (roles.empty() ? "" : ", ") + role + " " + count(n);
    if (!roles.empty()) line("open by role", roles);

    std::cout << "\nTraffic\n";
    const double frames = m.get("objwire_frames_in_total");
    line("objects in", count(m.get("objwire_objects_in_total")));
    line("bytes in", bytes(m.get("objwire_bytes_in_total")));
    line("frames in", count(frames));
    line("objects out", count(m.get("objwire_objects_out_total")));
    line("bytes out", bytes(m.get("objwire_bytes_out_total")));
    // The metrics are in bytes per second (Prometheus' base unit); links are told in bits.
    line("link estimate", link_estimate(8 * m.get("objwire_link_bandwidth_bytes_per_second"),
                                        m.get("objwire_link_bandwidth_connections"),
                                        8 * m.get("objwire_link_bandwidth_last_bytes_per_second")));

    print_senders(m, now);

    std::cout << "\nCompression\n";
    const double compressed = m.get("objwire_frames_compressed_total");
    line("frames compressed", count(compressed) + " (" + percent(compressed, frames) + ")");
    line("compressed bytes", bytes(m.get("objwire_compressed_bytes_total")) + " -> " +
                                 bytes(m.get("objwire_decompressed_bytes_total")));
    const double ratio = m.get("objwire_compression_ratio");
    line("ratio", ratio_text(ratio));

    std::cout << "\nBack-reference tables\n";
    const double hits = m.get("objwire_table_hits_total");
    const double misses = m.get("objwire_table_misses_total");
    line("memory now", bytes(m.get("objwire_table_bytes")));
    line("hits", count(hits) + " (" + percent(hits, hits + misses) + " of lookups)");
    line("misses", count(misses));
    line("evictions", count(m.get("objwire_table_evictions_total")));
    line("resets", count(m.get("objwire_table_resets_total")));

    std::cout << "\nAcknowledgements\n";
    const double acks = m.get("objwire_ack_latency_seconds_count");
    const double sum = m.get("objwire_ack_latency_seconds_sum");
    const auto buckets = m.by_label("objwire_ack_latency_seconds_bucket", "le");
    line("acks sent", count(acks));
    line("mean latency", acks > 0 ? duration(sum / acks) : "-");
    line("median latency", quantile(buckets, acks, 0.5));
    line("99th percentile", quantile(buckets, acks, 0.99));

    std::cout << "\nStorage\n";
    // Written since the daemon started; what the journal holds is under Journal.
    for (const auto& [sink, n] : m.by_label("objwire_sink_bytes_total", "sink"))
        line(sink + " written", bytes(n));
    if (m.has("objwire_journal_bytes")) print_journal(m);

    std::cout << "\nErrors\n";
    const auto errors = m.by_label("objwire_errors_total", "kind");
    if (errors.empty()) std::cout << "  none\n";
    for (const auto& [kind, n] : errors)
        line(kind, count(n));
    m.get("objwire_reloads_total");

    const auto rest = m.not_shown();
    if (!rest.empty()) {
        std::cout << "\nOther\n";
        for (const auto* s : rest) {
            std::string name = s->name;
            for (const auto& l : s->labels)
                name += " " + l.name + "=" + printable(l.value);
            line(name, std::visit([](auto v) { return fmt::format("{}", v); }, s->value));
        }
    }
}

// Counters as the exact integers they are; a double as JSON can hold it (null: not finite).
std::string json_number(const metric_value& value) {
    if (const auto* u = std::get_if<std::uint64_t>(&value)) return std::to_string(*u);
    const double v = std::get<double>(value);
    if (!std::isfinite(v)) return "null";
    if (v == std::floor(v) && std::fabs(v) < 9e15)
        return fmt::format("{}", static_cast<std::int64_t>(v));
    return fmt::format("{}", v);
}

// {"labels":{"name":"value",...},"value":v}
std::string json_labelled(const metric_sample& s) {
    std::string out = "{\"labels\":{";
    for (std::size_t i = 0; i < s.labels.size(); ++i) {
        out += i == 0 ? "" : ",";
        append_json_string(out, s.labels[i].name);
        out += ":";
        append_json_string(out, s.labels[i].value);
    }
    return out + "},\"value\":" + json_number(s.value) + "}";
}

// One object (docs/CLI.md, "The daemon's metrics"): an unlabelled metric is "name": value; a
// labelled one "name": [{"labels": {...}, "value": v}, ...] (histogram buckets by their label le).
void print_json(const metric_set& m, const stats_answer& a) {
    std::map<std::string, std::vector<const metric_sample*>> by_name;
    std::vector<std::string> order;
    for (const auto* s : m.all()) {
        if (!by_name.contains(s->name)) order.push_back(s->name);
        by_name[s->name].push_back(s);
    }
    std::string out =
        "{\"server\":" + json_string(a.server_name) + ",\"sink\":" + json_string(a.sink);
    for (const auto& name : order) {
        const auto& samples = by_name[name];
        out += "," + json_string(name) + ":";
        if (samples.size() == 1 && samples.front()->labels.empty()) {
            out += json_number(samples.front()->value);
            continue;
        }
        out += "[";
        for (std::size_t i = 0; i < samples.size(); ++i)
            out += (i == 0 ? "" : ",") + json_labelled(*samples[i]);
        out += "]";
    }
    std::cout << out << "}\n";
}

// One block of the daemon's metrics; a failure is said and its exit code returned.
int print_once(const stats_flags& f, const config::client_settings& settings) {
    stats_answer answer;
    std::string why;
    if (fetch_stats(settings, answer, why)) {
        std::cerr << "objwire: " << why << "\n";
        return exit_codes::cannot_connect;
    }
    metric_set m(std::move(answer.families));
    if (f.json)
        print_json(m, answer);
    else
        print_human(m, answer, settings.to_host + ":" + std::to_string(settings.to_port));
    std::cout << std::flush;
    return exit_codes::ok;
}

sigset_t stop_signals() {
    sigset_t stops;
    sigemptyset(&stops);
    sigaddset(&stops, SIGINT);
    sigaddset(&stops, SIGTERM);
    return stops;
}

// SIGINT and SIGTERM are taken from the wait between blocks (they are blocked, so one that
// comes while a block is fetched is pending and ends the next wait at once): whether one
// came within `interval`.
bool stop_signal_within(std::chrono::microseconds interval) {
    const sigset_t stops = stop_signals();
    const auto s = std::chrono::duration_cast<std::chrono::seconds>(interval);
    const timespec wait{static_cast<time_t>(s.count()),
                        static_cast<long>((interval - s).count() * 1000)};
    for (;;) {
        const int sig = sigtimedwait(&stops, nullptr, &wait);
        if (sig > 0) return true;
        if (errno != EINTR) return false;  // EAGAIN: the interval passed
    }
}

// --watch: a block per interval until SIGINT, SIGTERM or --count blocks; on a terminal each
// block replaces the last. The first block's failure ends it (exit 2); a later one is said
// and the next interval tries again, so a restart of the daemon is watched through.
int watch(const stats_flags& f, const config::client_settings& settings,
          std::chrono::microseconds interval) {
    const sigset_t stops = stop_signals();
    pthread_sigmask(SIG_BLOCK, &stops, nullptr);
    const bool redraw = !f.json && ::isatty(STDOUT_FILENO) == 1;
    for (std::uint64_t n = 0; f.count == 0 || n < f.count; ++n) {
        if (n != 0 && stop_signal_within(interval)) return exit_codes::ok;
        if (redraw)
            std::cout << "\033[H\033[2J";
        else if (n != 0 && !f.json)
            std::cout << "\n";
        const int rc = print_once(f, settings);
        if (rc != exit_codes::ok && n == 0) return rc;
    }
    return exit_codes::ok;
}

int run_stats(const stats_flags& f) {
    config::client_settings settings;
    if (!load(f, settings)) return exit_codes::bad_config;
    if (f.watch.empty()) return print_once(f, settings);
    const auto interval = config::parse_duration(f.watch);
    if (!interval || interval->count() <= 0) {
        std::cerr << "objwire stats: --watch: '" << f.watch
                  << "' is not an interval: write one with a unit, e.g. --watch 2s or 500ms\n";
        return exit_codes::usage;
    }
    return watch(f, settings, *interval);
}

}  // namespace

subcommand add_stats_command(CLI::App& app) {
    auto flags = std::make_shared<stats_flags>();
    auto* cmd = app.add_subcommand("stats",
                                   "print the daemon's metrics (connections, traffic, "
                                   "senders, compression, tables, ack latency, the journal "
                                   "on disk, errors)");
    add_daemon_flags(cmd, flags->daemon);
    cmd->add_flag("--json", flags->json,
                  "one JSON object: each metric by its name, a labelled one as an array of "
                  "{\"labels\":{...},\"value\":v}");
    auto* watch = cmd->add_option("--watch", flags->watch,
                                  "print the metrics again every INTERVAL (default 2s) until "
                                  "SIGINT or SIGTERM (exit 0); on a terminal each block "
                                  "replaces the last, in a pipe (or with --json) one block per "
                                  "interval follows another")
                      ->expected(0, 1)
                      ->type_name("[INTERVAL]");
    cmd->add_option("--count", flags->count, "with --watch: stop after this many blocks")
        ->check(one_or_more)
        ->needs(watch);
    cmd->footer(
        "Example:\n  objwire stats --to 127.0.0.1:7878\n  objwire stats --watch 100ms --count 3 "
        "--to 127.0.0.1:7878");
    return {cmd, [flags, watch] {
                // --watch alone: the default interval.
                if (watch->count() > 0 && flags->watch.empty())
                    flags->watch = default_watch_interval;
                return run_stats(*flags);
            }};
}

}  // namespace objwire::client
