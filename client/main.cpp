// objwire: the command line. `send` ships JSON lines to objwired, `bench` generates a workload
// in-process and measures the link, `gen` writes a workload as JSON lines.
// Exit codes: 0 all acknowledged, 1 usage, 2 cannot connect or handshake refused,
// 3 some objects not acknowledged, 4 bad input.
#include <fcntl.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "client/bench_verify.hpp"
#include "client/codec_command.hpp"
#include "client/config_command.hpp"
#include "client/connection.hpp"
#include "client/input_file.hpp"
#include "client/jsonl_reader.hpp"
#include "client/message_pipeline.hpp"
#include "client/progress.hpp"
#include "client/cursor_command.hpp"
#include "client/read_command.hpp"
#include "client/stats_command.hpp"
#include "client/workloads.hpp"
#include "config/settings.hpp"

namespace {

using objwire::client::connection;
namespace cfg = objwire::config;

enum exit_code { ok = 0, usage = 1, cannot_connect = 2, not_acknowledged = 3, bad_input = 4 };

struct common_flags {
    std::string config_file;
    std::string to;
    std::string reset;
    std::string table_budget;
    std::string compression;  // --compression never|always|auto
    std::string codec;        // --codec zlib|zstd|lz4
    std::string level;        // --level N
    std::string transient;    // --transient Type.field,Type.field
    std::string sender_id;    // --sender-id ID
    std::string retry_for;    // --retry-for DURATION
    bool tls = false;         // --tls
    std::string tls_ca;       // --tls-ca FILE
    std::string token_file;   // --token-file FILE
};

// Defaults < file < environment < flags.
bool load_settings(const common_flags& f, cfg::client_settings& s) {
    if (!f.config_file.empty()) {
        auto loaded = cfg::load_client_file(f.config_file);
        if (!loaded) {
            std::cerr << "objwire: " << loaded.error().message << "\n";
            return false;
        }
        s = std::move(*loaded);
    }
    if (auto e = cfg::apply_client_env(s, [](const char* n) { return std::getenv(n); })) {
        std::cerr << "objwire: " << e->message << "\n";
        return false;
    }
    struct flag_override {
        const std::string& text;
        const char* key;
        const char* flag;
    };
    const std::string tls_enabled = f.tls ? "true" : "";
    const flag_override overrides[] = {{f.to, "client.to", "--to"},
                                       {tls_enabled, "tls.enabled", "--tls"},
                                       {f.tls_ca, "tls.ca_file", "--tls-ca"},
                                       {f.token_file, "auth.token_file", "--token-file"},
                                       {f.reset, "reset.policy", "--reset"},
                                       {f.table_budget, "reset.table_budget", "--table-budget"},
                                       {f.compression, "compression.policy", "--compression"},
                                       {f.codec, "compression.codec", "--codec"},
                                       {f.level, "compression.level", "--level"},
                                       {f.transient, "types.NAME.transient", "--transient"},
                                       {f.sender_id, "client.sender_id", "--sender-id"},
                                       {f.retry_for, "resume.retry_for", "--retry-for"}};
    for (const auto& [text, key, flag] : overrides) {
        if (text.empty()) continue;
        if (auto e = cfg::apply_client_override(s, key, text, flag)) {
            std::cerr << "objwire: " << e->message << "\n";
            return false;
        }
    }
    return true;
}

void add_common(CLI::App* cmd, common_flags& f) {
    cmd->add_option("--to", f.to, "daemon address HOST:PORT (default 127.0.0.1:7878)");
    cmd->add_option("-c,--config", f.config_file, "client settings file (see config/objwire.toml)");
    cmd->add_flag("--tls", f.tls, "talk TLS to the daemon (config: tls.enabled)");
    cmd->add_option("--tls-ca", f.tls_ca,
                    "PEM CA file the daemon's certificate must chain to (config: tls.ca_file)");
    cmd->add_option("--token-file", f.token_file,
                    "file holding the daemon's shared token (config: auth.token_file)");
    cmd->add_option(
        "--sender-id", f.sender_id,
        "stable id of this stream, so a rerun or reconnect resumes it (default: random)");
    cmd->add_option(
        "--retry-for", f.retry_for,
        "after a broken connection, reconnect and resume for this long (default 30s, 0: "
        "off)");
    cmd->add_option("--reset", f.reset,
                    "table cadence: adaptive (default) | never | every:N | every:64KiB");
    cmd->add_option("--table-budget", f.table_budget,
                    "table budget to ask the daemon for, e.g. 64KiB (default: the daemon's)");
    cmd->add_option("--compression", f.compression,
                    "compress frames: never | always | auto (default: when the link is slow)")
        ->check(CLI::IsMember({"never", "always", "auto"}));
    cmd->add_option("--codec", f.codec, "codec when compressing: zstd (default) | zlib | lz4")
        ->check(CLI::IsMember({"zlib", "zstd", "lz4"}));
    cmd->add_option("--transient", f.transient,
                    "fields never sent, as Type.field[,Type.field...] (config: [types.NAME] "
                    "transient)");
    cmd->add_option("--level", f.level,
                    "codec level: zlib 1..9, zstd 1..19, lz4 1..12 (default 0: auto picks it, "
                    "always takes the codec's own)");
}

bool read_input(const std::string& path, objwire::client::input_text& out) {
    std::string error;
    if (out.open(path, error)) return true;
    std::cerr << "objwire: " << error << "\n";
    return false;
}

int open_connection(connection& c) {
    if (auto ec = c.open()) {
        std::cerr << "objwire: " << c.last_error() << "\n";
        return cannot_connect;
    }
    return ok;
}

int finish(connection& c) {
    const auto ec = c.close();
    if (const auto& s = c.stats(); s.reconnects > 0)  // resume.retry_for at work
        std::cerr << "objwire: the connection broke and was resumed " << s.reconnects << " times ("
                  << s.frames_resent << " frames sent again)\n";
    if (ec) {
        const auto& s = c.stats();
        std::cerr << "objwire: " << c.last_error() << "\n"
                  << "objwire: " << (s.objects_sent - s.objects_acked) << " of " << s.objects_sent
                  << " objects not acknowledged\n";
        return not_acknowledged;
    }
    return ok;
}

// What the progress line shows for a connection: objects, wire bytes, acks, compression.
objwire::client::progress_sample progress_of(const connection& c) {
    const auto& s = c.stats();
    return {s.objects_sent, s.wire_bytes_out, s.objects_acked, c.compression().compressing};
}

struct send_flags {
    common_flags common;
    std::string input = "-";
    std::string on_error = "stop";
};

int run_send(const send_flags& f) {
    cfg::client_settings settings;
    if (!load_settings(f.common, settings)) return usage;
    objwire::client::input_text text;
    if (!read_input(f.input, text)) return bad_input;
    connection c(settings, "objwire send");
    if (int rc = open_connection(c)) return rc;
    std::uint64_t skipped = 0;
    const bool stop_at_error = f.on_error == "stop";
    bool stopped = false;  // --on-error stop met a bad line or a refused message
    const std::string name = f.input == "-" ? "<stdin>" : f.input;
    objwire::client::progress_line progress("send");
    // Reports a bad line or a refused message; whether to go on.
    auto skip = [&] {
        ++skipped;
        stopped = stop_at_error;
        return !stopped;
    };
    // The reader parses on a thread of its own (client/message_pipeline.hpp); its messages and
    // bad lines arrive here in input order, so the reports and their order are one thread's.
    objwire::client::read_jsonl_pipelined(
        text.view(), stop_at_error,
        [&](const objwire::message& m, std::size_t line) {
            progress.tick([&] { return progress_of(c); });
            if (!c.send(m)) return true;
            progress.clear();
            std::cerr << "objwire: " << name << ":" << line << ": " << c.last_error() << "\n";
            return skip();
        },
        [&](const objwire::json_error& e) {
            progress.clear();
            std::cerr << "objwire: " << name << ":" << e.line << ":" << e.column << ": "
                      << e.message << "\n";
            return skip();
        });
    if (stopped) {
        finish(c);
        return bad_input;
    }
    progress.finish();
    int rc = finish(c);
    const auto& s = c.stats();
    std::cerr << "objwire: sent " << s.objects_sent << " objects (" << s.objects_acked
              << " acknowledged) in " << s.frames << " frames, " << s.wire_bytes_out
              << " bytes, to " << c.server().sink << "\n";
    if (skipped) std::cerr << "objwire: skipped " << skipped << " bad lines\n";
    if (rc == ok && skipped) return bad_input;
    return rc;
}

// One bench result: its key and its value as JSON text.
struct report_line {
    std::string key;
    std::string json;
};

std::string json_number(double v, int decimals) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}
std::string json_string(std::string_view v) {
    std::string out = "\"";
    for (char ch : v) {
        if (ch == '"' || ch == '\\') out.push_back('\\');
        out.push_back(ch);
    }
    return out + "\"";
}

struct bench_flags {
    common_flags common;
    std::string workload = "person";
    std::uint64_t count = 0;
    bool json = false;
    bool verify = false;  // read this run's objects back and compare (client/bench_verify.hpp)
};

// The compression policy's decision and inputs, as bench reports them.
std::vector<report_line> compression_lines(const connection& c) {
    const auto z = c.compression();
    return {
        {"compression_policy", json_string(objwire::mode_name(z.mode))},
        {"codec", json_string(objwire::codec_name(z.codec))},
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

void print_bench(const bench_flags& f, const cfg::client_settings& settings, const connection& c,
                 double seconds, const objwire::client::verify_result* verified = nullptr) {
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
        std::string out = "{";
        for (const auto& l : lines)
            out += (out.size() > 1 ? "," : "") + json_string(l.key) + ":" + l.json;
        std::printf("%s}\n", out.c_str());
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
        "  compression %s (%s-%d): %llu of %llu frames compressed, ratio %.3f, link ~%.0f "
        "Mbit/s, %llu write calls\n",
        std::string(objwire::mode_name(z.mode)).c_str(),
        std::string(objwire::codec_name(z.codec)).c_str(), z.level,
        static_cast<unsigned long long>(z.frames_compressed),
        static_cast<unsigned long long>(s.frames), z.ratio, z.link_mbit,
        static_cast<unsigned long long>(s.write_calls));
    std::printf("  acknowledged: %llu objects, stored by the daemon in %s\n",
                static_cast<unsigned long long>(s.objects_acked), c.server().sink.c_str());
    if (verified)
        std::printf("  verified: %llu objects read back equal, %llu mismatches\n",
                    static_cast<unsigned long long>(verified->verified),
                    static_cast<unsigned long long>(verified->mismatches));
}

int run_bench(const bench_flags& f) {
    cfg::client_settings settings;
    if (!load_settings(f.common, settings)) return usage;
    auto w = objwire::workloads::make(f.workload);
    if (!w) {
        std::cerr << "objwire: unknown workload '" << f.workload
                  << "' (person, events, graph, blobs)\n";
        return usage;
    }
    const std::uint64_t n = f.count ? f.count : w->default_count();
    // A fresh sender id per run, so that reading back by sender finds exactly this run.
    if (f.verify) settings.sender_id.clear();
    connection c(settings, "objwire bench");
    if (int rc = open_connection(c)) return rc;
    objwire::message m;
    const auto start = std::chrono::steady_clock::now();
    objwire::client::progress_line progress("bench");
    for (std::uint64_t i = 0; i < n; ++i) {
        progress.tick([&] { return progress_of(c); });
        w->next(m);
        if (auto ec = c.send(m)) {
            std::cerr << "objwire: object " << i << ": " << c.last_error() << "\n";
            break;
        }
    }
    progress.finish();
    int rc = finish(c);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!f.verify) {
        print_bench(f, settings, c, seconds);
        return rc;
    }
    const auto v = objwire::client::verify_stored(settings, c.sender_id(), f.workload, n);
    print_bench(f, settings, c, seconds, &v);
    if (!v.error.empty()) std::cerr << "objwire: verify: " << v.error << "\n";
    if (!v.ok())
        std::cerr << "objwire: verify: " << v.mismatches << " of " << n
                  << " objects not read back as sent\n";
    return rc != ok ? rc : v.ok() ? ok : not_acknowledged;
}

struct gen_flags {
    std::string workload = "events";
    std::uint64_t count = 0;
    std::string output = "-";
};

int run_gen(const gen_flags& f) {
    auto w = objwire::workloads::make(f.workload);
    if (!w) {
        std::cerr << "objwire: unknown workload '" << f.workload
                  << "' (person, events, graph, blobs)\n";
        return usage;
    }
    FILE* out = f.output == "-" ? stdout : std::fopen(f.output.c_str(), "wb");
    if (!out) {
        std::cerr << "objwire: cannot write '" << f.output << "': " << std::strerror(errno) << "\n";
        return usage;
    }
    const std::uint64_t n = f.count ? f.count : w->default_count();
    std::string buf;
    for (std::uint64_t i = 0; i < n; ++i) {
        w->next_json(buf);
        buf.push_back('\n');
        if (buf.size() >= (1 << 20)) {
            std::fwrite(buf.data(), 1, buf.size(), out);
            buf.clear();
        }
    }
    std::fwrite(buf.data(), 1, buf.size(), out);
    if (out != stdout) std::fclose(out);
    return ok;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"objwire - send objects to objwired, read them back, benchmark the link",
                 "objwire"};
    app.require_subcommand(1);

    send_flags sf;
    auto* send = app.add_subcommand("send", "send JSON lines (one object per line) to objwired");
    add_common(send, sf.common);
    send->add_option("input", sf.input, "file of JSON lines, or - for stdin (default)");
    send->add_option("--on-error", sf.on_error, "stop|skip: what to do with a bad line")
        ->check(CLI::IsMember({"stop", "skip"}));
    send->footer(
        "Example:\n  objwire gen --workload person -n 1000 -o people.jsonl\n"
        "  objwire send people.jsonl --to 127.0.0.1:7878");

    bench_flags bf;
    auto* bench = app.add_subcommand("bench", "generate a workload in-process, send it, report");
    add_common(bench, bf.common);
    bench->add_option("--workload", bf.workload, "person|events|graph|blobs")
        ->check(CLI::IsMember({"person", "events", "graph", "blobs"}));
    bench->add_option("-n,--count", bf.count, "objects to send (default: the workload's size)");
    bench->add_flag("--json", bf.json, "print one JSON object instead of text");
    bench->add_flag("--verify", bf.verify,
                    "then read this run's objects back and compare each with what was sent "
                    "(exit 3 on a mismatch)");
    bench->footer(
        "Example:\n  objwire bench --workload person -n 100000 --to 127.0.0.1:7878 --json");

    gen_flags gf;
    auto* gen = app.add_subcommand("gen", "write a benchmark workload as JSON lines");
    gen->add_option("--workload", gf.workload, "person|events|graph|blobs")
        ->check(CLI::IsMember({"person", "events", "graph", "blobs"}));
    gen->add_option("-n,--count", gf.count, "objects (default: the workload's size)");
    gen->add_option("-o,--output", gf.output, "file to write, - for stdout (default)");
    gen->footer("Example:\n  objwire gen --workload events -n 100000 -o events.jsonl");

    // Subcommands that live in their own files.
    const objwire::client::subcommand more[] = {
        objwire::client::add_config_command(app), objwire::client::add_encode_command(app),
        objwire::client::add_decode_command(app), objwire::client::add_read_command(app),
        objwire::client::add_stats_command(app), objwire::client::add_cursor_command(app)};

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e) == 0 ? ok : usage;
    }
    if (send->parsed()) return run_send(sf);
    if (bench->parsed()) return run_bench(bf);
    if (gen->parsed()) return run_gen(gf);
    for (const auto& command : more) {
        if (command.app->parsed()) return command.run();
    }
    return usage;
}
