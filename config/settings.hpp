// objwire::config - the typed settings of objwired and objwire, loaded from TOML, the
// environment and the command line with strict validation. Every key is defined once in a
// per-program key table (daemon_keys.cpp, client_keys.cpp) that drives loading, overrides,
// env vars and printing.
// Errors are values carrying a full human message with its place ("FILE:LINE:COLUMN: ...").
// This header is cheap to include: the TOML parser stays inside the library.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include <objwire/options.hpp>

namespace objwire::config {

inline constexpr std::uint64_t kibibyte = 1024;
inline constexpr std::uint64_t mebibyte = 1024 * kibibyte;
inline constexpr std::uint64_t gibibyte = 1024 * mebibyte;

// A failure to load or apply settings. `message` is complete and ready to print: it names the
// place (file:line:column, flag or env var) and the full dotted key. A file with several
// problems gives one line per problem, in file order.
struct error {
    std::string message;
};

// Either a T or an error (C++20 has no std::expected). has_value()/value()/error(), plus
// bool conversion and * / -> for the value.
template <class T>
class outcome {
  public:
    outcome(T v) : v_(std::in_place_index<0>, std::move(v)) {}              // NOLINT: implicit
    outcome(config::error e) : v_(std::in_place_index<1>, std::move(e)) {}  // NOLINT: implicit

    bool has_value() const { return v_.index() == 0; }
    explicit operator bool() const { return has_value(); }
    T& value() & { return std::get<0>(v_); }
    const T& value() const& { return std::get<0>(v_); }
    T&& value() && { return std::get<0>(std::move(v_)); }
    const config::error& error() const { return std::get<1>(v_); }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }

  private:
    std::variant<T, config::error> v_;
};

// ---- settings ---------------------------------------------------------------------------
// One [[auth.users]] table: a user of objwired, how it proves who it is, and what it may do
// (docs/SECURITY.md, "Users and permissions"). Patterns are sender ids with `*` wildcards.
struct auth_user {
    std::string name;
    std::string token_file;    // a file holding the user's token
    std::string token_sha256;  // or the token's SHA-256 in hex, so the config holds no secret
    std::string cert_subject;  // or a TLS client certificate: its subject ("CN=x,O=y") or a SAN
    std::vector<std::string> send;  // sender ids it may send as
    std::vector<std::string> read;  // sender ids whose objects it may read
    bool admin = false;             // cursors, the whole sender list, stats
    std::string place;              // "FILE:LINE" of its table, for messages
    friend bool operator==(const auth_user&, const auth_user&) = default;
};

// The [[auth.users]] tables of a TOML text (a config file, or the file auth.users_file names,
// which holds only such tables); errors name SOURCE:LINE:COLUMN.
outcome<std::vector<auth_user>> parse_auth_users(std::string_view text,
                                                 std::string_view source_name);

// Defaults are the member initializers; they must match the schema's default texts (a unit
// test checks it). Key names in comments are the TOML keys.

struct daemon_settings {
    // [server]
    std::string listen_host = "127.0.0.1";           // server.listen = "HOST:PORT"
    std::uint16_t listen_port = 7878;                //   (port 0 picks a free port)
    std::string data_dir = "objwire-data";           // server.data_dir
    std::string log_level = "info";                  // server.log_level
    std::uint32_t max_connections = 1024;            // server.max_connections
    std::chrono::milliseconds shutdown_grace{5000};  // server.shutdown_grace
    // [limits] - everything a peer controls
    std::uint32_t max_frame_bytes = 16 * mebibyte;       // limits.max_frame_bytes
    std::uint32_t max_depth = 64;                        // limits.max_depth
    std::uint32_t max_string_bytes = 16 * mebibyte;      // limits.max_string_bytes
    std::uint32_t max_elements = 1000000;                // limits.max_elements
    std::uint64_t table_budget = 4 * mebibyte;           // limits.table_budget
    std::uint64_t table_budget_total = 256 * mebibyte;   // limits.table_budget_total
    std::uint32_t read_buffer = 256 * kibibyte;          // limits.read_buffer
    std::uint64_t max_reference_bytes = 16 * mebibyte;   // limits.max_reference_bytes
    std::chrono::milliseconds handshake_timeout{10000};  // limits.handshake_timeout
    std::chrono::milliseconds idle_timeout{300000};      // limits.idle_timeout, 0 = never
    std::chrono::milliseconds shed_idle_after{10000};    // limits.shed_idle_after
    std::uint64_t min_read_rate = 1 * kibibyte;          // limits.min_read_rate (B/s), 0 = off
    std::chrono::milliseconds read_rate_window{30000};   // limits.read_rate_window
    std::uint64_t max_buffered_bytes = 64 * mebibyte;    // limits.max_buffered_bytes
    std::uint64_t max_hops = 8;  // limits.max_hops: relays a sender stream may have passed
    // limits.max_connections_per_address, 0 = none
    std::uint32_t max_connections_per_address = 0;
    std::uint32_t max_pending_hellos = 256;  // limits.max_pending_hellos
    // limits.max_pending_hellos_per_address, 0 = none
    std::uint32_t max_pending_hellos_per_address = 128;
    // limits.max_reader_starts and limits.max_reader_starts_per_address, 0 = none
    std::uint32_t max_reader_starts = 16;
    std::uint32_t max_reader_starts_per_address = 4;
    // limits.readers_shared_bytes: the blocks followers at the live end share, at most
    std::uint64_t readers_shared_bytes = 8 * mebibyte;
    std::uint32_t max_decompression_ratio = 0;    // limits.max_decompression_ratio, 0 = off
    std::uint32_t max_stored_ratio = 16;          // limits.max_stored_ratio, 0 = off
    std::uint32_t max_stored_wire_ratio = 16384;  // limits.max_stored_wire_ratio, 0 = off
    std::uint64_t sender_stored_quota = 0;        // limits.sender_stored_quota, 0 = off
    // [compression] - codecs accepted in data frames, announced in the welcome (none always)
    std::vector<std::string> compression_accept{"zlib", "zstd", "lz4", "zstd-stream"};
    // [sink]
    std::string sink_kind = "journal";          // sink.kind = journal | jsonl | nats | forward
    std::string sink_file = "objects.jsonl";    // sink.jsonl_file (inside data_dir; "-" stdout)
    std::uint64_t sink_jsonl_rotate_bytes = 0;  // sink.jsonl_rotate_bytes, 0 = never rotate
    std::uint32_t sink_jsonl_keep = 5;          // sink.jsonl_keep: rotated files kept
    // [journal]
    std::string journal_fsync = "interval";                 // journal.fsync
    std::chrono::milliseconds journal_fsync_interval{100};  // journal.fsync_interval
    std::uint64_t journal_fsync_bytes = 4 * mebibyte;       // journal.fsync_bytes
    std::uint64_t journal_segment_bytes = 64 * mebibyte;    // journal.segment_bytes
    std::uint64_t journal_retention_bytes = 0;              // journal.retention_bytes, 0 = all
    std::chrono::seconds journal_retention_age{0};          // journal.retention_age, 0 = forever
    // [forward] - sink.kind = "forward": objects go on to another objwired
    std::string forward_to;  // forward.to = "HOST:PORT" of the next hop
    std::string
        forward_client_config;  // forward.client_config: the hop's objwire.toml, "" = defaults
    // [nats] - sink.kind = "nats": blocks published to a JetStream stream
    // (daemon/sinks/nats_sink.hpp)
    std::string nats_servers = "nats://127.0.0.1:4222";  // nats.servers: comma-separated URLs
    std::string nats_subject = "objwire.blocks";         // nats.subject
    std::string nats_stream = "OBJWIRE";                 // nats.stream (created if missing)
    std::uint32_t nats_replicas = 1;                     // nats.replicas of a created stream
    std::string nats_credentials_file;                   // nats.credentials_file, "" = none
    std::uint32_t nats_publish_window = 256;             // nats.publish_window (unacked blocks)
    std::uint64_t nats_buffer_bytes = 256 * mebibyte;    // nats.buffer_bytes (queued + unacked)
    std::chrono::milliseconds nats_ack_timeout{5000};    // nats.ack_timeout, then republished
    std::chrono::milliseconds nats_duplicate_window{120000};  // nats.duplicate_window (created)
    std::string nats_compression = "auto";                    // nats.compression: never|always|auto
    std::string nats_compression_codec = "zstd";  // nats.compression_codec: zlib|zstd|lz4
    std::uint32_t nats_compression_level = 0;     // nats.compression_level (0: auto climbs)
    // [metrics]
    std::string metrics_listen = "127.0.0.1:9464";  // metrics.listen: HTTP GET /metrics, "" = off
    std::string metrics_bearer_token_file;  // metrics.bearer_token_file: set = /metrics needs it
    // [tls] - TLS on every connection when cert_file is set (docs/SECURITY.md, Access)
    std::string tls_cert_file;       // tls.cert_file: PEM chain, the server's certificate first
    std::string tls_key_file;        // tls.key_file: PEM private key of cert_file
    std::string tls_client_ca_file;  // tls.client_ca_file: set = client certificates required
    // [auth]
    std::string auth_token_file;  // auth.token_file: set = every hello must carry this token
    std::string auth_users_file;  // auth.users_file: more [[auth.users]], read at start and SIGHUP
    std::vector<auth_user> auth_users;  // [[auth.users]] of the config file

    friend bool operator==(const daemon_settings&, const daemon_settings&) = default;
};

struct client_settings {
    // [client]
    std::string to_host = "127.0.0.1";  // client.to = "HOST:PORT"
    std::uint16_t to_port = 7878;
    std::chrono::milliseconds connect_timeout{5000};  // client.connect_timeout
    std::string sender_id;  // client.sender_id: the stream's stable id; "" = random per connection
    // Not a key: the relays the stream already passed (hello field 17), set by a relay for
    // its connection to the next hop.
    std::vector<std::string> relay_path;
    // [resume]
    std::chrono::milliseconds resume_retry_for{30000};     // resume.retry_for, 0 = no reconnect
    std::uint64_t resume_max_replay_bytes = 8 * mebibyte;  // resume.max_replay_bytes
    // [batch]
    std::uint32_t batch_max_bytes = 64 * kibibyte;  // batch.max_bytes
    std::chrono::microseconds batch_linger{5000};   // batch.linger
    // [reset]
    std::string reset_policy = "adaptive";  // reset.policy
    std::uint64_t table_budget = 0;         // reset.table_budget (0: the daemon's)
    // [flow]
    std::uint64_t max_in_flight = 8 * mebibyte;  // flow.max_in_flight
    std::uint64_t max_async_sends = 100'000;     // flow.max_async_sends (0: no limit)
    // [limits] - what this client accepts from the daemon
    std::uint32_t max_frame_bytes = 16 * mebibyte;  // limits.max_frame_bytes
    std::uint32_t max_depth = 64;                   // limits.max_depth
    // [read] - what `objwire read` (client::reader) accepts from the daemon it reads
    std::uint64_t read_max_block_bytes = 64 * mebibyte;     // read.max_block_bytes
    std::uint64_t read_max_block_objects = 16 * mebibyte;   // read.max_block_objects
    std::uint64_t read_max_decoded_bytes = 256 * mebibyte;  // read.max_decoded_bytes
    // [compression] - whether frames are compressed (docs/COMPRESSION.md)
    std::string compression_policy = "auto";  // compression.policy: never|always|auto
    std::string compression_codec = "zstd";   // compression.codec: zlib|zstd|lz4
    std::uint32_t compression_level = 0;      // compression.level (0: auto climbs; always: default)
    std::uint32_t compression_min_frame_bytes = 512;  // compression.min_frame_bytes
    std::string link_bandwidth = "auto";  // compression.link_bandwidth: "auto" or "100Mbit"
    // [socket]
    std::uint32_t send_buffer = 0;  // socket.send_buffer (SO_SNDBUF; 0: the kernel's)
    std::uint32_t recv_buffer = 0;  // socket.recv_buffer (SO_RCVBUF; 0: the kernel's)
    bool nodelay = true;            // socket.nodelay (TCP_NODELAY)
    // [tls] - TLS to the daemon (docs/SECURITY.md, Access)
    bool tls_enabled = false;     // tls.enabled
    std::string tls_ca_file;      // tls.ca_file: CAs the daemon's certificate is checked against
    std::string tls_cert_file;    // tls.cert_file: this client's certificate, when asked for one
    std::string tls_key_file;     // tls.key_file
    std::string tls_server_name;  // tls.server_name: name checked in the certificate ("": host)
    // [auth]
    std::string auth_token_file;  // auth.token_file: the daemon's shared token, sent in the hello
    // [types.NAME] transient = ["field", ...]: fields of record type NAME never sent (the
    // receiver sees them absent). Env OBJWIRE_TYPES_TRANSIENT / flag: "Type.field,Type.field".
    std::map<std::string, std::vector<std::string>, std::less<>> transient;
    // [lazy] - values sent compressed on their own (docs/COMPRESSION.md, "Lazy values")
    std::vector<std::string> lazy_fields;  // lazy.fields: ["Type.field", ...]
    std::uint64_t lazy_min_bytes = 0;      // lazy.min_bytes: 0 off
    std::string lazy_codec = "zstd";       // lazy.codec: zlib|zstd|lz4

    friend bool operator==(const client_settings&, const client_settings&) = default;
    // The library's typed form of the same keys (config/client_options.hpp): what
    // client::connection and client::reader take.
    operator client::options() const;  // NOLINT: the one form of the other, exact
};

// ---- loading ------------------------------------------------------------------------------
// Start from the defaults and apply every key of the file. Unknown keys and tables, wrong
// types, out-of-range values and TOML syntax errors are all errors (nothing is ignored).

outcome<daemon_settings> load_daemon_file(const std::filesystem::path& path);
outcome<daemon_settings> parse_daemon_toml(std::string_view text, std::string_view source_name);
outcome<client_settings> load_client_file(const std::filesystem::path& path);
outcome<client_settings> parse_client_toml(std::string_view text, std::string_view source_name);

// ---- overrides --------------------------------------------------------------------------
// Apply one override `key` = `text` (full dotted key, e.g. "server.listen"), validated like a
// file value; `origin` names where it came from in the error ("--listen",
// "OBJWIRE_SERVER_LISTEN"). On error the settings are unchanged. Text is read by the key's
// kind: integers "64", sizes "16MiB", durations "5s" (a unit but for 0), booleans
// true|false, strings as-is.
std::optional<error> apply_daemon_override(daemon_settings& s, std::string_view key,
                                           std::string_view text, std::string_view origin);
std::optional<error> apply_client_override(client_settings& s, std::string_view key,
                                           std::string_view text, std::string_view origin);

// Every key has an environment variable OBJWIRE_<SECTION>_<KEY>, uppercased
// (server.listen -> OBJWIRE_SERVER_LISTEN, batch.max_bytes -> OBJWIRE_BATCH_MAX_BYTES).
// Applies all that are set and non-empty (an empty variable counts as unset); reports every
// bad one. Both programs read OBJWIRE_LIMITS_MAX_FRAME_BYTES and OBJWIRE_LIMITS_MAX_DEPTH.
// Intended precedence: defaults < file < env < command line.
using getenv_function = std::function<const char*(const char*)>;
std::optional<error> apply_daemon_env(daemon_settings& s, const getenv_function& getenv_fn);
std::optional<error> apply_client_env(client_settings& s, const getenv_function& getenv_fn);

// ---- printing -----------------------------------------------------------------------------
// Effective settings as TOML that parses back to equal settings: every key, one
// `key = value  # default|set` per line.
std::string to_toml(const daemon_settings& s);
std::string to_toml(const client_settings& s);

// The same, with each value's origin: `layers` are snapshots taken after each step of
// building `s` (e.g. {"file", after_file}, {"env", after_env}, {"flag", after_flags}); a
// key's origin is the last layer that changed it, "default" if none did.
struct key_line {
    std::string key;  // full dotted key: "server.listen", "types.Person.transient"
    std::uint32_t line = 0;
};
template <class Settings>
struct settings_layer {
    std::string_view origin;
    Settings settings;
    // For a file layer: where each key is written, so the origin reads "PATH:LINE".
    std::vector<key_line> lines = {};
};
std::string to_toml(const daemon_settings& s,
                    std::span<const settings_layer<daemon_settings>> layers);
std::string to_toml(const client_settings& s,
                    std::span<const settings_layer<client_settings>> layers);

// Where each key of a TOML text is written (for `objwire config show`); syntax errors as
// for parse_*_toml.
outcome<std::vector<key_line>> key_lines(std::string_view text, std::string_view source_name);

// ---- comparing ----------------------------------------------------------------------------
// A key whose value differs between two settings, found by comparing the key table's typed
// values (never their text); `was` and `now` are the values as to_toml prints them, for logs.
struct key_change {
    std::string key;  // full dotted key: "limits.max_depth"
    std::string was;
    std::string now;
};
// In the order of their names.
std::vector<key_change> changed_keys(const daemon_settings& from, const daemon_settings& to);
// Sets `key` (a name changed_keys gives) of `to` to its value in `from`; false when the table
// has no such key.
bool copy_key(daemon_settings& to, const daemon_settings& from, std::string_view key);

// ---- the schema, for help texts ------------------------------------------------------
struct key_info {
    std::string name;              // "server.listen"
    std::string kind;              // string|int|bool|size|duration|bandwidth|host_port|enum
    std::string default_text;      // as written in TOML: "\"127.0.0.1:7878\"", "\"16MiB\"", "64"
    std::string allowed;           // "1..10000", "1KiB..1GiB", "trace|debug|...", "" if anything
    std::string doc;               // one line
    std::string env_var;           // "OBJWIRE_SERVER_LISTEN"
    bool empty_turns_off = false;  // OBJWIRE_X= (empty) sets "", else an empty one is unset
};
std::vector<key_info> daemon_keys();
std::vector<key_info> client_keys();

// ---- unit parsers (also for command-line flags) -----------------------------------------
// Errors are messages without a place, e.g. `"64XB" is not a valid size: unknown unit ...`;
// prefix them with the flag name.

// Bytes: an integer ("4096", "4096B") or an integer with a unit: KiB MiB GiB TiB (powers of
// 1024) or KB MB GB TB (powers of 1000), case-insensitive, optional space. No fractions.
outcome<std::uint64_t> parse_size(std::string_view text);
// An integer with a unit: us (or µs), ms, s, m (or min), h. Only 0 may go without one.
outcome<std::chrono::microseconds> parse_duration(std::string_view text);
// For a size written with a decimal unit ("64KB"): what it was read as and how to write the
// power of 1024 probably meant. Empty for any other text.
std::string decimal_size_note(std::string_view text);
// Bits per second: an integer, or with a unit bit, kbit, Mbit, Gbit, Tbit (powers of 1000,
// case-insensitive), also written kbps/Mbps/... or with "/s"; or bytes per second with a
// capital B ("MB/s", "125MBps", "64KB/s", binary "MiB/s" too), times 8. A lowercase "mb"
// could mean either and is refused, naming both spellings.
outcome<std::uint64_t> parse_bandwidth(std::string_view text);

struct host_port {
    std::string host;  // without brackets: "::1"
    std::uint16_t port = 0;
    friend bool operator==(const host_port&, const host_port&) = default;
};
// "127.0.0.1:7878", "localhost:9000", "[::1]:0". IPv6 literals need brackets.
outcome<host_port> parse_host_port(std::string_view text);

// The inverse forms, used for printing: largest exact unit ("16MiB", "1000", "5s", "250us",
// "100Mbit"), "[::1]:7878".
std::string format_size(std::uint64_t bytes);
std::string format_duration(std::chrono::microseconds d);
std::string format_bandwidth(std::uint64_t bits_per_second);
std::string format_host_port(std::string_view host, std::uint16_t port);

}  // namespace objwire::config
