#include "client/cli/bench_command.hpp"

#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "client/cli/bench_load.hpp"
#include "client/cli/bench_report.hpp"
#include "client/cli/bench_verify.hpp"
#include "client/cli/gen_command.hpp"
#include "client/cli/sender_flags.hpp"
#include "proto/codec.hpp"

namespace objwire::client {
namespace {

struct bench_flags {
    sender_flags common;
    std::string workload = "person";
    std::uint64_t count = 0;
    bool json = false;
    bool verify = false;  // read this run's objects back and compare (client/cli/bench_verify.hpp)
    std::string rate;     // --rate N/s: open loop (client/cli/bench_load.hpp)
    unsigned connections = 1;
    unsigned readers = 0;
};

// --rate, --connections or --readers: the load runner, with latency percentiles.
int run_load_bench(const bench_flags& f, const config::client_settings& settings) {
    load_flags l{.connections = f.connections, .readers = f.readers, .workload = f.workload};
    if (!f.rate.empty()) {
        const auto rate = parse_rate(f.rate);
        if (!rate) {
            std::cerr << "objwire: --rate " << f.rate << ": not a rate (e.g. 50000/s, 50k/s)\n";
            return exit_codes::usage;
        }
        l.rate = *rate;
    }
    if (f.verify) {
        std::cerr << "objwire: --verify reads one connection back: not with --rate, "
                     "--connections or --readers\n";
        return exit_codes::usage;
    }
    auto w = make_workload(f.workload);
    if (!w) return exit_codes::usage;
    l.count = f.count ? f.count : w->default_count();
    l.json = f.json;
    return run_load(settings, l);
}

// The compression policy's decision and inputs, as bench reports them.
std::vector<report_line> compression_lines(const connection& c) {
    const auto z = c.compression();
    return {
        {"compression_policy", json_string(mode_name(z.mode))},
        {"codec", json_string(codec_name(z.codec))},
        {"compression_level", std::to_string(z.level)},
        {"frames_compressed", std::to_string(z.frames_compressed)},
        {"estimated_link_mbit", json_number(z.link_mbit, 1)},
        {"compression_ratio", json_number(z.ratio, 4)},
        {"compress_mb_s", json_number(z.compress_mb_s, 1)},
        {"receiver_decompress_mb_s", json_number(z.decompress_mb_s, 1)},
        {"write_calls", std::to_string(c.stats().write_calls)},
        {"blocked_seconds", json_number(static_cast<double>(c.stats().blocked_ns) / 1e9, 3)},
    };
}

void print_bench(const bench_flags& f, const config::client_settings& settings, const connection& c,
                 double seconds, const verify_result* verified = nullptr) {
    const auto& s = c.stats();
    const auto& t = c.table();
    const double per_second = seconds > 0 ? static_cast<double>(s.objects_acked) / seconds : 0;
    const double per_object =
        s.objects_sent ? static_cast<double>(s.wire_bytes_out) / static_cast<double>(s.objects_sent)
                       : 0;
    std::vector<report_line> lines = {
        {"workload", json_string(f.workload)},
        {"objects", std::to_string(s.objects_sent)},
        {"seconds", json_number(seconds, 6)},
        {"objects_per_second", json_number(per_second, 0)},
        {"wire_bytes", std::to_string(s.wire_bytes_out)},
        {"bytes_per_object", json_number(per_object, 3)},
        {"frames", std::to_string(s.frames)},
        {"acked_objects", std::to_string(s.objects_acked)},
        {"reset_policy", json_string(settings.reset_policy)},
        {"table_budget_bytes", std::to_string(c.server().limits.table_budget)},
        {"receiver_table_peak_bytes", std::to_string(s.receiver_table_peak_bytes)},
        {"hits", std::to_string(t.hits)},
        {"misses", std::to_string(t.misses)},
        {"evictions", std::to_string(t.evictions)},
        {"resets", std::to_string(t.resets)},
        {"sink", json_string(c.server().sink)},
    };
    for (auto& l : compression_lines(c))
        lines.push_back(std::move(l));
    if (verified) {
        lines.push_back({"verified_objects", std::to_string(verified->verified)});
        lines.push_back({"verify_mismatches", std::to_string(verified->mismatches)});
    }
    if (f.json) {
        std::printf("%s\n", json_object(lines).c_str());
        return;
    }
    std::printf("objwire bench: %s, %llu objects in %.3f s = %.0f objects/s\n", f.workload.c_str(),
                static_cast<unsigned long long>(s.objects_sent), seconds, per_second);
    std::printf("  wire: %llu bytes = %.2f bytes/object in %llu frames\n",
                static_cast<unsigned long long>(s.wire_bytes_out), per_object,
                static_cast<unsigned long long>(s.frames));
    std::printf(
        "  table (%s, budget %llu bytes): receiver peak %llu bytes, %llu hits, %llu "
        "evictions, %llu resets\n",
        settings.reset_policy.c_str(),
        static_cast<unsigned long long>(c.server().limits.table_budget),
        static_cast<unsigned long long>(s.receiver_table_peak_bytes),
        static_cast<unsigned long long>(t.hits), static_cast<unsigned long long>(t.evictions),
        static_cast<unsigned long long>(t.resets));
    const auto z = c.compression();
    std::printf(
        "  compression %s (%s-%d): %llu of %llu frames compressed, ratio %s, %s, %llu write "
        "calls\n",
        std::string(mode_name(z.mode)).c_str(), std::string(codec_name(z.codec)).c_str(), z.level,
        static_cast<unsigned long long>(z.frames_compressed),
        static_cast<unsigned long long>(s.frames),
        // z.ratio is compressed / raw (the policy's view); people read raw / compressed.
        ratio_text(z.frames_compressed > 0 && z.ratio > 0 ? 1 / z.ratio : 0).c_str(),
        link_text(z).c_str(), static_cast<unsigned long long>(s.write_calls));
    std::printf("  acknowledged: %s, stored by the daemon in %s\n",
                counted(s.objects_acked, "object").c_str(), c.server().sink.c_str());
    if (verified)
        std::printf("  verified: %llu objects read back equal, %llu mismatches\n",
                    static_cast<unsigned long long>(verified->verified),
                    static_cast<unsigned long long>(verified->mismatches));
}

int run_bench(const bench_flags& f) {
    config::client_settings settings;
    if (!load_sender_settings(f.common, settings)) return exit_codes::bad_config;
    if (!f.rate.empty() || f.connections > 1 || f.readers > 0) return run_load_bench(f, settings);
    auto w = make_workload(f.workload);
    if (!w) return exit_codes::usage;
    const std::uint64_t n = f.count ? f.count : w->default_count();
    // A fresh sender id per run, so that reading back by sender finds exactly this run.
    if (f.verify) settings.sender_id.clear();
    connection c(settings, "objwire bench");
    if (int rc = open_connection(c)) return rc;
    message m;
    const auto start = std::chrono::steady_clock::now();
    progress_line progress("bench");
    for (std::uint64_t i = 0; i < n; ++i) {
        progress.tick([&] { return progress_of(c); });
        w->next(m);
        if (auto ec = c.send(m)) {
            std::cerr << "objwire: object " << i << ": " << c.last_error() << "\n";
            break;
        }
    }
    progress.finish();
    int rc = finish_connection(c, settings);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!f.verify) {
        print_bench(f, settings, c, seconds);
        return rc;
    }
    const auto v = verify_stored(settings, c.sender_id(), f.workload, n);
    print_bench(f, settings, c, seconds, &v);
    if (!v.error.empty()) std::cerr << "objwire: verify: " << v.error << "\n";
    if (!v.ok())
        std::cerr << "objwire: verify: " << v.mismatches << " of " << n
                  << " objects not read back as sent\n";
    return rc != exit_codes::ok ? rc : v.ok() ? exit_codes::ok : exit_codes::not_acknowledged;
}

}  // namespace

subcommand add_bench_command(CLI::App& app) {
    auto f = std::make_shared<bench_flags>();
    auto* bench = app.add_subcommand("bench", "generate a workload in-process, send it, report");
    add_sender_flags(bench, f->common);
    bench->add_option("--workload", f->workload, "person|events|graph|blobs")
        ->check(CLI::IsMember({"person", "events", "graph", "blobs"}));
    bench->add_option("-n,--count", f->count, "objects to send (default: the workload's size)");
    bench->add_flag("--json", f->json, "print one JSON object instead of text");
    bench->add_flag("--verify", f->verify,
                    "then read this run's objects back and compare each with what was sent "
                    "(exit 3 on a mismatch)");
    bench->add_option("--rate", f->rate,
                      "open loop: objects per second over all connections (50000/s, 50k/s), each "
                      "object's latency from its due time to its acknowledgement");
    bench
        ->add_option("--connections", f->connections,
                     "concurrent senders in this process, sharing the rate and the objects")
        ->check(CLI::Range(1, 10'000));
    bench
        ->add_option("--readers", f->readers,
                     "followers reading from the journal's end while the senders write "
                     "(delivery latency: acknowledged to delivered, with --rate)")
        ->check(CLI::Range(0, 1'000));
    bench->footer(
        "Example:\n  objwire bench --workload person -n 100000 --to 127.0.0.1:7878 --json\n"
        "  objwire bench --workload events -n 20000 --rate 20000/s --connections 10 --readers 2 "
        "--to 127.0.0.1:7878 --json");
    return {bench, [f] { return run_bench(*f); }};
}

}  // namespace objwire::client
