#include "client/cli/bench_load.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <iostream>
#include <latch>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>
#include <unordered_map>
#include <vector>

#include <objwire/connection.hpp>

#include "client/cli/bench_follower.hpp"
#include "client/cli/bench_report.hpp"
#include "client/cli/gen_command.hpp"
#include "client/cli/open_loop.hpp"
#include "client/cli/sender_flags.hpp"
#include "client/lib/descriptor_limit.hpp"

namespace objwire::client {
namespace {

constexpr std::int64_t ns_per_ms = 1'000'000;
// How long senders may take to see their last acks, and followers their last objects, after
// the schedule ends.
constexpr std::int64_t drain_deadline_ns = 60'000 * ns_per_ms;

std::int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

struct sender_run {
    std::unique_ptr<connection> conn;
    std::uint64_t count = 0;
    std::unique_ptr<open_loop> schedule;  // with --rate
    std::int64_t end_ns = 0;
    int rc = 0;
};

struct reader_run {
    std::unique_ptr<bench_follower> follower;
    std::unique_ptr<delivery_tally> tally;
    std::int64_t end_ns = 0;
};

// Waits for the next due object while taking in acks: poll() returns as soon as replies
// arrive; below its millisecond resolution, a short sleep between looks.
std::error_code wait_for_due(connection& c, std::int64_t wait) {
    if (wait >= ns_per_ms) return c.poll(std::chrono::milliseconds(wait / ns_per_ms));
    auto ec = c.poll(std::chrono::milliseconds(0));
    std::this_thread::sleep_for(std::chrono::nanoseconds(std::min<std::int64_t>(wait, 100'000)));
    return ec;
}

std::error_code send_paced(connection& c, open_loop& s, workloads::workload& w) {
    message m;
    while (!s.all_sent()) {
        if (const auto wait = s.wait_ns(); wait > 0) {
            if (auto ec = wait_for_due(c, wait)) return ec;
        } else {
            s.take();
            w.next(m);
            if (auto ec = c.send(m)) return ec;
        }
        s.on_acked(c.stats().objects_acked);
    }
    if (auto ec = c.flush()) return ec;
    const std::int64_t deadline = now_ns() + drain_deadline_ns;
    while (!s.all_acked() && now_ns() < deadline) {
        if (auto ec = c.poll(std::chrono::milliseconds(100))) return ec;
        s.on_acked(c.stats().objects_acked);
    }
    return {};
}

void run_sender(sender_run& r, const config::client_settings& settings, const std::string& name) {
    auto w = make_workload(name);
    auto& c = *r.conn;
    std::error_code ec;
    if (r.schedule) {
        ec = send_paced(c, *r.schedule, *w);
    } else {
        message m;
        for (std::uint64_t i = 0; i < r.count && !ec; ++i) {
            w->next(m);
            ec = c.send(m);
        }
    }
    if (ec) std::cerr << "objwire: " << c.last_error() << "\n";
    r.rc = finish_connection(c, settings);
    if (r.schedule) r.schedule->on_acked(c.stats().objects_acked);
    r.end_ns = now_ns();
}

// Follows the journal from its end and notes when each sender's objects arrive.
void run_reader(reader_run& r, std::uint64_t total, const std::atomic<bool>& stop) {
    if (const auto why = r.follower->follow(*r.tally, total, stop); !why.empty())
        std::cerr << "objwire: reader: " << why << "\n";
    r.end_ns = now_ns();
    r.follower->close();
}

std::vector<report_line> latency_lines(const std::string& prefix, const latency_histogram& h) {
    const auto ms = [](std::uint64_t ns) { return json_number(static_cast<double>(ns) / 1e6, 3); };
    return {
        {prefix + "_p50_ms", ms(h.percentile(0.50))},
        {prefix + "_p90_ms", ms(h.percentile(0.90))},
        {prefix + "_p99_ms", ms(h.percentile(0.99))},
        {prefix + "_p999_ms", ms(h.percentile(0.999))},
        {prefix + "_max_ms", ms(h.max())},
        {prefix + "_mean_ms", json_number(h.mean() / 1e6, 3)},
        {prefix + "_samples", std::to_string(h.count())},
    };
}

std::string json_array(const std::vector<double>& v) {
    std::string out = "[";
    for (std::size_t i = 0; i < v.size(); ++i)
        out += (i ? "," : "") + json_number(v[i], 0);
    return out + "]";
}

// Acknowledged to delivered, for every object a follower got (0 when it arrived before its
// sender read the acknowledgement).
latency_histogram delivery_latency(const reader_run& r, const std::vector<sender_run>& senders) {
    latency_histogram h;
    for (std::size_t k = 0; k < senders.size(); ++k) {
        const auto* s = senders[k].schedule.get();
        if (!s) continue;
        r.tally->for_each_arrival(k, [&](std::uint64_t i, std::int64_t got_ns) {
            if (i < s->acked())
                h.record(
                    static_cast<std::uint64_t>(std::max<std::int64_t>(0, got_ns - s->ack_ns(i))));
        });
    }
    return h;
}

struct totals {
    std::uint64_t sent = 0, acked = 0, wire_bytes = 0;
    std::int64_t end_ns = 0;
};

void print_load(const load_flags& f, const std::vector<sender_run>& senders,
                const std::vector<reader_run>& readers, std::int64_t start_ns) {
    totals t;
    latency_histogram acks;
    std::vector<double> per_connection;
    for (const auto& s : senders) {
        const auto& st = s.conn->stats();
        t.sent += st.objects_sent;
        t.acked += st.objects_acked;
        t.wire_bytes += st.wire_bytes_out;
        t.end_ns = std::max(t.end_ns, s.end_ns);
        per_connection.push_back(
            static_cast<double>(st.objects_acked) * 1e9 /
            static_cast<double>(std::max<std::int64_t>(1, s.end_ns - start_ns)));
        if (s.schedule) acks.merge(s.schedule->latencies());
    }
    const double seconds = static_cast<double>(t.end_ns - start_ns) / 1e9;
    // Each connection's objects/s over its own run: a connection that was starved finishes
    // last and shows below the others.
    double mean_rate = 0;
    for (double r : per_connection)
        mean_rate += r / static_cast<double>(per_connection.size());
    const double slowest = *std::min_element(per_connection.begin(), per_connection.end());
    std::vector<report_line> lines = {
        {"workload", json_string(f.workload)},
        {"objects", std::to_string(t.sent)},
        {"acked_objects", std::to_string(t.acked)},
        {"seconds", json_number(seconds, 6)},
        {"objects_per_second", json_number(static_cast<double>(t.acked) / seconds, 0)},
        {"wire_bytes", std::to_string(t.wire_bytes)},
        {"bytes_per_object",
         json_number(t.sent ? static_cast<double>(t.wire_bytes) / static_cast<double>(t.sent) : 0,
                     3)},
        {"rate_target", json_number(f.rate, 0)},
        {"connections", std::to_string(senders.size())},
        {"connection_objects_per_second", json_array(per_connection)},
        {"connection_objects_per_second_min", json_number(slowest, 0)},
        {"connection_objects_per_second_mean", json_number(mean_rate, 0)},
        {"readers", std::to_string(readers.size())},
        {"latency_precision", json_number(latency_histogram::precision, 6)},
    };
    if (f.rate > 0)
        for (auto& l : latency_lines("ack_latency", acks))
            lines.push_back(std::move(l));
    latency_histogram delivery;
    std::vector<double> delivered;
    for (const auto& r : readers) {
        delivery.merge(delivery_latency(r, senders));
        delivered.push_back(static_cast<double>(r.tally->delivered()));
    }
    if (!readers.empty()) {
        lines.push_back({"reader_delivered_objects", json_array(delivered)});
        for (auto& l : latency_lines("delivery_latency", delivery))
            lines.push_back(std::move(l));
    }
    if (f.json) {
        std::printf("%s\n", json_object(lines).c_str());
        return;
    }
    std::printf("objwire bench: %s, %llu objects over %zu connections in %.3f s = %.0f objects/s\n",
                f.workload.c_str(), static_cast<unsigned long long>(t.sent), senders.size(),
                seconds, static_cast<double>(t.acked) / seconds);
    std::printf("  per connection: mean %.0f objects/s, slowest %.0f\n", mean_rate, slowest);
    const auto print_latency = [](const char* what, const latency_histogram& h) {
        std::printf(
            "  %s (ms): p50 %.3f  p90 %.3f  p99 %.3f  p99.9 %.3f  max %.3f  (%llu samples, within "
            "%.2f%%)\n",
            what, static_cast<double>(h.percentile(0.5)) / 1e6,
            static_cast<double>(h.percentile(0.9)) / 1e6,
            static_cast<double>(h.percentile(0.99)) / 1e6,
            static_cast<double>(h.percentile(0.999)) / 1e6, static_cast<double>(h.max()) / 1e6,
            static_cast<unsigned long long>(h.count()), latency_histogram::precision * 100);
    };
    if (f.rate > 0) print_latency("ack latency, due to acknowledged", acks);
    if (!readers.empty()) print_latency("delivery latency, acknowledged to delivered", delivery);
    std::printf("  acknowledged: %llu of %llu objects\n", static_cast<unsigned long long>(t.acked),
                static_cast<unsigned long long>(t.sent));
}

// Each follower starts at the journal's end before any sender writes, so it sees every object.
int open_readers(const config::client_settings& settings, const load_flags& f,
                 const std::unordered_map<std::string, std::size_t>& senders,
                 std::vector<reader_run>& readers) {
    for (unsigned i = 0; i < f.readers; ++i) {
        auto& r = readers.emplace_back();
        r.follower = std::make_unique<bench_follower>(settings, "objwire bench");
        r.tally = std::make_unique<delivery_tally>(senders);
        std::string why;
        if (r.follower->open(why)) {
            std::cerr << "objwire: reader: " << why << "\n";
            return exit_codes::cannot_connect;
        }
    }
    return exit_codes::ok;
}

// Waits for the followers to get every object, for at most drain_deadline_ns, then stops them.
void join_readers(std::vector<std::thread>& threads, std::atomic<unsigned>& done, std::mutex& m,
                  std::condition_variable& cv, std::atomic<bool>& stop) {
    {
        std::unique_lock lock(m);
        cv.wait_for(lock, std::chrono::nanoseconds(drain_deadline_ns),
                    [&] { return done.load() == threads.size(); });
    }
    stop = true;
    for (auto& t : threads)
        t.join();
}

// Connection k could not be made for want of descriptors (its event loop or its socket): what
// to change, instead of an abort or a bare "cannot connect".
int cannot_make_connection(std::size_t k, const load_flags& f, const std::string& why) {
    const auto limits = descriptor_limit_now();
    std::cerr << "objwire bench: connection " << k + 1 << " of " << f.connections << ": " << why
              << "\n  each connection holds about 6 file descriptors (a socket and "
              << "its event loop); this process may open "
              << (limits ? std::to_string(*limits) : std::string("unlimited"))
              << " (ulimit -Hn): raise the hard limit or use fewer --connections\n";
    return exit_codes::cannot_connect;
}

}  // namespace

std::optional<double> parse_rate(const std::string& text) {
    std::string t = text;
    if (t.size() > 2 && t.ends_with("/s")) t.resize(t.size() - 2);
    double scale = 1;
    if (!t.empty() && (t.back() == 'k' || t.back() == 'K')) scale = 1e3;
    if (!t.empty() && t.back() == 'M') scale = 1e6;
    if (scale != 1) t.pop_back();
    std::size_t used = 0;
    double v = 0;
    try {
        v = std::stod(t, &used);
    } catch (const std::exception&) {
        return std::nullopt;
    }
    if (used != t.size() || !(v > 0)) return std::nullopt;
    return v * scale;
}

int run_load(config::client_settings settings, const load_flags& f) {
    if (!make_workload(f.workload)) return exit_codes::usage;
    // Each connection is a stream of its own: a sender id names one.
    if (f.connections > 1) settings.sender_id.clear();
    std::vector<sender_run> senders(f.connections);
    std::unordered_map<std::string, std::size_t> index;
    for (std::size_t k = 0; k < senders.size(); ++k) {
        auto& s = senders[k];
        s.count = f.count / f.connections + (k < f.count % f.connections ? 1 : 0);
        try {
            s.conn = std::make_unique<connection>(settings, "objwire bench");
        } catch (const std::system_error& e) {
            return cannot_make_connection(k, f, e.what());
        }
        // The library says "cannot connect" whatever the cause: a descriptor that cannot be
        // opened now tells this one apart.
        if (const auto ec = s.conn->open(); ec && out_of_descriptors_now())
            return cannot_make_connection(k, f, s.conn->last_error());
        else if (ec)
            return open_connection_failed(*s.conn);
        index[s.conn->sender_id()] = k;
    }
    std::atomic<bool> stop{false};
    std::vector<reader_run> readers;
    if (int rc = open_readers(settings, f, index, readers)) return rc;
    std::mutex m;
    std::condition_variable cv;
    std::atomic<unsigned> done{0};
    std::vector<std::thread> reader_threads;
    for (auto& r : readers)
        reader_threads.emplace_back([&, rp = &r] {
            run_reader(*rp, f.count, stop);
            std::lock_guard lock(m);
            ++done;
            cv.notify_all();
        });
    // Every sender's thread exists before any sends: the first of 1,000 threads would
    // otherwise be done before the last one starts, and count as the fastest.
    std::latch go(1);
    std::vector<std::thread> threads;
    for (auto& s : senders)
        threads.emplace_back([&, sp = &s] {
            go.wait();
            run_sender(*sp, settings, f.workload);
        });
    const std::int64_t start = now_ns();
    for (std::size_t k = 0; k < senders.size(); ++k) {
        if (f.rate <= 0) continue;
        const auto first = start + static_cast<std::int64_t>(static_cast<double>(k) * 1e9 / f.rate);
        senders[k].schedule =
            std::make_unique<open_loop>(f.rate / f.connections, senders[k].count, now_ns, first);
        if (!readers.empty()) senders[k].schedule->keep_ack_times();
    }
    go.count_down();
    for (auto& t : threads)
        t.join();
    join_readers(reader_threads, done, m, cv, stop);
    print_load(f, senders, readers, start);
    for (const auto& s : senders)
        if (s.rc != exit_codes::ok) return s.rc;
    for (const auto& r : readers)
        if (r.tally->delivered() < f.count) {
            std::cerr << "objwire: a reader got " << r.tally->delivered() << " of " << f.count
                      << " objects\n";
            return exit_codes::not_acknowledged;
        }
    return exit_codes::ok;
}

}  // namespace objwire::client
