#include "client/cli/sender_flags.hpp"

#include <iostream>

namespace objwire::client {

void add_sender_flags(CLI::App* cmd, sender_flags& f) {
    cmd->add_option("--to", f.to, "daemon address HOST:PORT (default 127.0.0.1:7878)");
    cmd->add_option("-c,--config", f.config_file, config_flag_help);
    cmd->add_flag("--tls", f.tls, "talk TLS to the daemon (config: tls.enabled)");
    cmd->add_option("--tls-ca", f.tls_ca,
                    "PEM CA file the daemon's certificate must chain to (config: tls.ca_file)");
    cmd->add_option("--token-file", f.token_file,
                    "file holding the daemon's shared token (config: auth.token_file)");
    cmd->add_option(
        "--sender-id", f.sender_id,
        "stable id of this stream: a reconnect resumes it; send reruns it (see send --help) "
        "(default: random, a new stream each run)");
    cmd->add_option(
        "--retry-for", f.retry_for,
        "after a broken connection, reconnect and resume for this long (default 30s, 0: "
        "off); then exit 3, saying how many objects were acknowledged");
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

bool load_sender_settings(const sender_flags& f, config::client_settings& s) {
    const std::string tls_enabled = f.tls ? "true" : "";
    const setting_flag flags[] = {{f.to, "client.to", "--to"},
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
    return load_client_settings(f.config_file, flags, s);
}

int open_connection(connection& c) {
    if (auto ec = c.open()) return open_connection_failed(c);
    return exit_codes::ok;
}

int open_connection_failed(const connection& c) {
    std::cerr << "objwire: " << c.last_error() << "\n";
    return exit_codes::cannot_connect;
}

int finish_connection(connection& c, const config::client_settings& s) {
    const auto ec = c.close();
    if (const auto& st = c.stats(); st.reconnects > 0)  // resume.retry_for at work
        std::cerr << "objwire: the connection broke and was resumed "
                  << counted(st.reconnects, "time") << " (" << counted(st.frames_resent, "frame")
                  << " sent again)\n";
    if (!ec) return exit_codes::ok;
    report_connection_failure(c, s);
    return exit_codes::not_acknowledged;
}

void report_connection_failure(const connection& c, const config::client_settings& s) {
    const auto& st = c.stats();
    std::cerr << "objwire: connection to " << s.to_host << ":" << s.to_port
              << " failed: " << c.last_error() << "\n"
              << "objwire: " << st.objects_acked << " of " << st.objects_sent
              << " objects sent were acknowledged\n";
}

progress_sample progress_of(const connection& c) {
    const auto& s = c.stats();
    return {s.objects_sent, s.wire_bytes_out, s.objects_acked, c.compression().compressing};
}

}  // namespace objwire::client
