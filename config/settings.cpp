// The schema of both programs' settings - one table of keys per program, each with its kind,
// default, allowed range, doc line and field binding - and everything driven by it: applying
// a parsed TOML document, command-line and environment overrides, printing, did-you-mean.
#include "config/settings.hpp"
#include "config/suggest.hpp"

#include "proto/reset_policy.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <limits>
#include <type_traits>

#include "config/toml_document.hpp"

namespace objwire::config {
namespace {

using detail::quote_toml;
using detail::source_pos;
using detail::toml_entry;
using detail::toml_type;

// ---- schema types -------------------------------------------------------------------------

enum class value_kind {
    string,
    integer,
    boolean,
    size,
    duration,
    bandwidth,
    host_port,
    enumeration,
    string_list  // a TOML array of strings
};

// A validated value on its way into (or out of) a settings field. Numbers are in base units:
// bytes, microseconds, bits per second; a host_port is {text = host, number = port}.
struct typed_value {
    std::uint64_t number = 0;
    std::string text;
    bool flag = false;
    // string_list: the items; for a key with a NAME component, the items per name instead.
    std::vector<std::string> list;
    std::vector<std::pair<std::string, std::vector<std::string>>> named;
    bool operator==(const typed_value&) const = default;
};

template <class S>
struct accessor {
    void (*set)(S&, const typed_value&) = nullptr;
    typed_value (*get)(const S&) = nullptr;
};

template <class S>
struct key_def {
    std::string_view name;  // full dotted name
    value_kind kind = value_kind::string;
    std::string_view default_text;  // as to_toml prints it (a test checks it against S{})
    std::uint64_t min = 0;          // numeric kinds, in base units; host_port: the port
    std::uint64_t max = 0;
    std::uint64_t resolution = 1;  // durations: microseconds per step of the field
    std::span<const std::string_view> choices = {};  // enumeration
    std::string_view doc;
    accessor<S> access;
    // Extra rule for strings: returns why `text` is not acceptable, or "".
    std::string (*check)(std::string_view text) = nullptr;
    std::string_view check_doc = {};  // the rule in a few words, for key_info::allowed
    // Keys like "types.NAME.transient": the index of the path component that is a name the
    // user chooses (0: none). Such a key is set once per name.
    std::size_t name_component = 0;
};

// ---- field bindings ---------------------------------------------------------------------

template <class T>
struct member_traits;
template <class S, class F>
struct member_traits<F S::*> {
    using settings = S;
    using field = F;
};

template <class T>
struct is_chrono_duration : std::false_type {};
template <class R, class P>
struct is_chrono_duration<std::chrono::duration<R, P>> : std::true_type {};

template <auto M>
void set_field(typename member_traits<decltype(M)>::settings& s, const typed_value& v) {
    using field = typename member_traits<decltype(M)>::field;
    if constexpr (std::is_same_v<field, std::string>) {
        s.*M = v.text;
    } else if constexpr (std::is_same_v<field, std::vector<std::string>>) {
        s.*M = v.list;
    } else if constexpr (std::is_same_v<field, bool>) {
        s.*M = v.flag;
    } else if constexpr (is_chrono_duration<field>::value) {
        s.*M = std::chrono::duration_cast<field>(
            std::chrono::microseconds(static_cast<std::int64_t>(v.number)));
    } else {
        s.*M = static_cast<field>(v.number);
    }
}

template <auto M>
typed_value get_field(const typename member_traits<decltype(M)>::settings& s) {
    using field = typename member_traits<decltype(M)>::field;
    typed_value v;
    if constexpr (std::is_same_v<field, std::string>) {
        v.text = s.*M;
    } else if constexpr (std::is_same_v<field, std::vector<std::string>>) {
        v.list = s.*M;
    } else if constexpr (std::is_same_v<field, bool>) {
        v.flag = s.*M;
    } else if constexpr (is_chrono_duration<field>::value) {
        v.number = static_cast<std::uint64_t>(
            std::chrono::duration_cast<std::chrono::microseconds>(s.*M).count());
    } else {
        v.number = static_cast<std::uint64_t>(s.*M);
    }
    return v;
}

template <auto M>
constexpr accessor<typename member_traits<decltype(M)>::settings> bind() {
    return {&set_field<M>, &get_field<M>};
}

template <auto Host, auto Port>
constexpr accessor<typename member_traits<decltype(Host)>::settings> bind_host_port() {
    using S = typename member_traits<decltype(Host)>::settings;
    return {[](S& s, const typed_value& v) {
                s.*Host = v.text;
                s.*Port = static_cast<std::uint16_t>(v.number);
            },
            [](const S& s) {
                typed_value v;
                v.number = s.*Port;
                v.text = s.*Host;
                return v;
            }};
}

// A map of lists by name ([types.NAME] transient = [...]): setting one name replaces its list,
// an empty list removes the name, other names stay.
template <auto M>
constexpr accessor<typename member_traits<decltype(M)>::settings> bind_named_lists() {
    using S = typename member_traits<decltype(M)>::settings;
    return {[](S& s, const typed_value& v) {
                for (const auto& [name, items] : v.named) {
                    if (items.empty()) {
                        (s.*M).erase(name);
                    } else {
                        (s.*M)[name] = items;
                    }
                }
            },
            [](const S& s) {
                typed_value v;
                v.named.assign((s.*M).begin(), (s.*M).end());
                return v;
            }};
}

// ---- string rules -----------------------------------------------------------------------

std::string check_not_empty(std::string_view text) {
    return text.empty() ? "must not be empty" : "";
}

std::string check_file_name(std::string_view text) {
    if (text.empty()) return "must not be empty";
    if (text == "." || text == "..") return "must be a file name, not '" + std::string(text) + "'";
    if (text.find('/') != std::string_view::npos || text.find('\\') != std::string_view::npos) {
        return "must be a plain file name inside server.data_dir (no '/')";
    }
    return "";
}

std::string check_jsonl_file(std::string_view text) {
    return text == "-" ? "" : check_file_name(text);
}

std::string check_optional_host_port(std::string_view text) {
    if (text.empty()) return "";
    auto hp = parse_host_port(text);
    return hp ? "" : hp.error().message + " (or \"\" for off)";
}

std::string check_reset_policy(std::string_view text) {
    return reset_policy::parse(text) ? ""
                                     : "must be adaptive, never, every:N or every:N<unit> "
                                       "(units B, KiB, MiB, KB, MB), got \"" +
                                           std::string(text) + "\"";
}

// The hello carries the id as text of at most 4096 bytes (docs/PROTOCOL.md section 3).
std::string check_sender_id(std::string_view text) {
    return text.size() <= 4096 ? "" : "must be at most 4096 bytes";
}

std::string check_accepted_codec(std::string_view text) {
    for (const auto name : {"zlib", "zstd", "lz4", "zstd-stream"})
        if (text == name) return "";
    return "\"" + std::string(text) + "\" is not a codec: zlib, zstd, lz4 or zstd-stream";
}

// "Type.field": a record type's field that travels as a lazy value.
std::string check_lazy_field(std::string_view text) {
    const auto dot = text.find('.');
    if (dot == std::string_view::npos || dot == 0 || dot + 1 == text.size() ||
        text.find('.', dot + 1) != std::string_view::npos)
        return "\"" + std::string(text) + "\" is not Type.field (e.g. \"Doc.body\")";
    return "";
}

std::string check_link_bandwidth(std::string_view text) {
    if (text == "auto") return "";
    const auto b = parse_bandwidth(text);
    if (!b) return "must be \"auto\" or a bandwidth like \"100Mbit\": " + b.error().message;
    if (*b == 0) return "must be \"auto\" or more than 0";
    return "";
}

// ---- the schemas --------------------------------------------------------------------------

constexpr std::array<std::string_view, 7> log_levels{"trace", "debug",    "info", "warn",
                                                     "error", "critical", "off"};
constexpr std::array<std::string_view, 4> sink_kinds{"journal", "jsonl", "nats", "forward"};
constexpr std::array<std::string_view, 3> fsync_policies{"always", "interval", "never"};
constexpr std::array<std::string_view, 3> compression_policies{"never", "always", "auto"};
constexpr std::array<std::string_view, 3> compression_codecs{"zlib", "zstd", "lz4"};

constexpr std::uint64_t us_per_ms = 1000;
constexpr std::uint64_t us_per_s = 1000 * us_per_ms;
using ds = daemon_settings;
using cs = client_settings;

const std::array daemon_schema_keys{
    key_def<ds>{.name = "server.listen",
                .kind = value_kind::host_port,
                .default_text = "\"127.0.0.1:7878\"",
                .min = 0,
                .max = 65535,
                .doc = "address and TCP port to accept connections on; port 0 picks a free one",
                .access = bind_host_port<&ds::listen_host, &ds::listen_port>()},
    key_def<ds>{.name = "server.data_dir",
                .kind = value_kind::string,
                .default_text = "\"objwire-data\"",
                .doc = "directory for stored objects, relative to the working directory",
                .access = bind<&ds::data_dir>(),
                .check = &check_not_empty,
                .check_doc = "a directory path"},
    key_def<ds>{.name = "server.log_level",
                .kind = value_kind::enumeration,
                .default_text = "\"info\"",
                .choices = log_levels,
                .doc = "least severe log message that is written",
                .access = bind<&ds::log_level>()},
    key_def<ds>{.name = "server.max_connections",
                .kind = value_kind::integer,
                .default_text = "1024",
                .min = 1,
                .max = 100000,
                .doc = "connections served at once; further ones are refused",
                .access = bind<&ds::max_connections>()},
    key_def<ds>{.name = "server.shutdown_grace",
                .kind = value_kind::duration,
                .default_text = "\"5s\"",
                .min = 0,
                .max = 3600 * us_per_s,
                .resolution = us_per_ms,
                .doc = "how long shutdown lets connections drain before cancelling them",
                .access = bind<&ds::shutdown_grace>()},
    key_def<ds>{.name = "limits.max_frame_bytes",
                .kind = value_kind::size,
                .default_text = "\"16MiB\"",
                .min = kibibyte,
                .max = gibibyte,
                .doc = "largest frame a peer may send; a larger one closes its connection",
                .access = bind<&ds::max_frame_bytes>()},
    key_def<ds>{.name = "limits.max_depth",
                .kind = value_kind::integer,
                .default_text = "64",
                .min = 1,
                .max = 10000,
                .doc = "deepest nesting of lists, maps and records in one value",
                .access = bind<&ds::max_depth>()},
    key_def<ds>{.name = "limits.max_string_bytes",
                .kind = value_kind::size,
                .default_text = "\"16MiB\"",
                .min = 1,
                .max = gibibyte,
                .doc = "longest string or byte string in one value",
                .access = bind<&ds::max_string_bytes>()},
    key_def<ds>{.name = "limits.max_elements",
                .kind = value_kind::integer,
                .default_text = "1000000",
                .min = 1,
                .max = 1000000000,
                .doc = "most elements in one list, map or record",
                .access = bind<&ds::max_elements>()},
    key_def<ds>{.name = "limits.table_budget",
                .kind = value_kind::size,
                .default_text = "\"4MiB\"",
                .min = 0,
                .max = gibibyte,
                .doc = "back-reference table budget per connection: receiver memory vs wire "
                       "savings; 0 turns back-references off",
                .access = bind<&ds::table_budget>()},
    key_def<ds>{.name = "limits.table_budget_total",
                .kind = value_kind::size,
                .default_text = "\"256MiB\"",
                .min = 0,
                .max = 64 * gibibyte,
                .doc = "back-reference table memory for all connections together; a connection "
                       "gets min(table_budget, what is left), 0 disables back-references for it",
                .access = bind<&ds::table_budget_total>()},
    key_def<ds>{.name = "limits.read_buffer",
                .kind = value_kind::size,
                .default_text = "\"256KiB\"",
                .min = 4 * kibibyte,
                .max = 64 * mebibyte,
                .doc = "block size of socket reads, per connection",
                .access = bind<&ds::read_buffer>()},
    key_def<ds>{.name = "limits.max_reference_bytes",
                .kind = value_kind::size,
                .default_text = "\"16MiB\"",
                .min = 0,
                .max = 16 * gibibyte,
                .doc = "bytes one frame may decode by back-reference (announced in the welcome); "
                       "bounds the expansion of strings and kept objects named by short handles",
                .access = bind<&ds::max_reference_bytes>()},
    key_def<ds>{.name = "limits.handshake_timeout",
                .kind = value_kind::duration,
                .default_text = "\"10s\"",
                .min = us_per_ms,
                .max = 3600 * us_per_s,
                .resolution = us_per_ms,
                .doc = "how long a new connection has to send its whole hello",
                .access = bind<&ds::handshake_timeout>()},
    key_def<ds>{.name = "limits.idle_timeout",
                .kind = value_kind::duration,
                .default_text = "\"5m\"",
                .min = 0,
                .max = 87600 * 3600 * us_per_s,
                .resolution = us_per_ms,
                .doc = "a connection that completes no frame for this long after its hello is "
                       "closed; 0 never",
                .access = bind<&ds::idle_timeout>()},
    key_def<ds>{.name = "limits.min_read_rate",
                .kind = value_kind::size,
                .default_text = "\"1KiB\"",
                .min = 0,
                .max = gibibyte,
                .doc = "bytes per second a frame in progress must arrive at, measured over "
                       "read_rate_window; a slower one is cut (slowloris); 0 off",
                .access = bind<&ds::min_read_rate>()},
    key_def<ds>{.name = "limits.read_rate_window",
                .kind = value_kind::duration,
                .default_text = "\"30s\"",
                .min = us_per_ms,
                .max = 3600 * us_per_s,
                .resolution = us_per_ms,
                .doc = "the window min_read_rate is measured over",
                .access = bind<&ds::read_rate_window>()},
    key_def<ds>{.name = "limits.max_buffered_bytes",
                .kind = value_kind::size,
                .default_text = "\"64MiB\"",
                .min = kibibyte,
                .max = 64 * gibibyte,
                .doc = "bytes a connection may have read and not yet had acknowledged (stored "
                       "durably), announced to senders as their credit; reading pauses beyond it",
                .access = bind<&ds::max_buffered_bytes>()},
    key_def<ds>{.name = "limits.max_connections_per_address",
                .kind = value_kind::integer,
                .default_text = "64",
                .min = 1,
                .max = 100000,
                .doc = "connections served at once from one source IP address; more are "
                       "refused at accept",
                .access = bind<&ds::max_connections_per_address>()},
    key_def<ds>{.name = "limits.max_decompression_ratio",
                .kind = value_kind::integer,
                .default_text = "0",
                .min = 0,
                .max = 1000000,
                .doc = "largest raw_len / compressed payload size a data frame may claim, checked "
                       "before inflating; 0 off (raw_len is capped by max_frame_bytes anyway)",
                .access = bind<&ds::max_decompression_ratio>()},
    key_def<ds>{.name = "limits.max_stored_ratio",
                .kind = value_kind::integer,
                .default_text = "16",
                .min = 0,
                .max = 1000000,
                .doc = "bytes a connection may make the sink store per byte of data payload it "
                       "sent (the first 1 MiB counted as sent); more closes it with "
                       "store_limit_exceeded. 0 off",
                .access = bind<&ds::max_stored_ratio>()},
    key_def<ds>{.name = "limits.sender_stored_quota",
                .kind = value_kind::size,
                .default_text = "0",
                .min = 0,
                .max = 1024 * 1024 * gibibyte,
                .doc = "bytes one sender id may have stored since objwired started, over all its "
                       "connections; more closes its connection with store_limit_exceeded. 0 off",
                .access = bind<&ds::sender_stored_quota>()},
    key_def<ds>{.name = "compression.accept",
                .kind = value_kind::string_list,
                .default_text = "[\"zlib\", \"zstd\", \"lz4\", \"zstd-stream\"]",
                .doc = "codecs accepted in data frames, announced to clients in the welcome "
                       "(uncompressed frames always are); a client whose codecs are all "
                       "refused sends plain frames. zstd-stream keeps a zstd context of up "
                       "to ~4.3 MiB per connection, and up to ~4.7 MiB more for the "
                       "section contexts of frames in column layout",
                .access = bind<&ds::compression_accept>(),
                .check = check_accepted_codec,
                .check_doc = "zlib, zstd, lz4, zstd-stream"},
    key_def<ds>{.name = "sink.kind",
                .kind = value_kind::enumeration,
                .default_text = "\"journal\"",
                .choices = sink_kinds,
                .doc =
                    "where received objects go: the durable journal, a JSON-lines file or a NATS "
                    "JetStream stream",
                .access = bind<&ds::sink_kind>()},
    key_def<ds>{.name = "sink.jsonl_file",
                .kind = value_kind::string,
                .default_text = "\"objects.jsonl\"",
                .doc = "JSON-lines file inside server.data_dir that received objects go to",
                .access = bind<&ds::sink_file>(),
                .check = &check_jsonl_file,
                .check_doc = "a file name without '/', or \"-\" for standard output"},
    key_def<ds>{.name = "sink.jsonl_rotate_bytes",
                .kind = value_kind::size,
                .default_text = "0",
                .min = 0,
                .max = 1024 * gibibyte,
                .doc = "the JSON-lines file is rotated (FILE.1, FILE.2, ...) before it passes "
                       "this size; 0 never rotates",
                .access = bind<&ds::sink_jsonl_rotate_bytes>()},
    key_def<ds>{.name = "sink.jsonl_keep",
                .kind = value_kind::integer,
                .default_text = "5",
                .min = 1,
                .max = 1000,
                .doc = "rotated JSON-lines files kept; the oldest beyond it is deleted",
                .access = bind<&ds::sink_jsonl_keep>()},
    key_def<ds>{.name = "forward.to",
                .kind = value_kind::string,
                .default_text = "\"\"",
                .doc = "HOST:PORT of the objwired that sink.kind = \"forward\" sends to",
                .access = bind<&ds::forward_to>(),
                .check = &check_optional_host_port,
                .check_doc = "\"HOST:PORT\" or \"\""},
    key_def<ds>{.name = "forward.client_config",
                .kind = value_kind::string,
                .default_text = "\"\"",
                .doc = "objwire.toml with the next hop's buffering, compression and reset "
                       "settings; \"\" uses the client defaults",
                .access = bind<&ds::forward_client_config>()},
    key_def<ds>{.name = "journal.fsync",
                .kind = value_kind::enumeration,
                .default_text = "\"interval\"",
                .choices = fsync_policies,
                .doc = "when journal writes are synced to disk before they are acknowledged: "
                       "safety vs throughput",
                .access = bind<&ds::journal_fsync>()},
    key_def<ds>{.name = "journal.fsync_interval",
                .kind = value_kind::duration,
                .default_text = "\"100ms\"",
                .min = us_per_ms,
                .max = 60 * us_per_s,
                .resolution = us_per_ms,
                .doc = "fsync = interval: longest time between syncs, and so the longest "
                       "acknowledgement delay",
                .access = bind<&ds::journal_fsync_interval>()},
    key_def<ds>{.name = "journal.fsync_bytes",
                .kind = value_kind::size,
                .default_text = "\"4MiB\"",
                .min = 64 * kibibyte,
                .max = 16 * gibibyte,
                .doc = "fsync = interval: also sync once this many bytes wait, so senders' "
                       "windows, not the interval, bound throughput",
                .access = bind<&ds::journal_fsync_bytes>()},
    key_def<ds>{.name = "journal.segment_bytes",
                .kind = value_kind::size,
                .default_text = "\"64MiB\"",
                .min = 64 * kibibyte,
                .max = 16 * gibibyte,
                .doc = "journal segment files are closed at this size; retention deletes "
                       "whole segments",
                .access = bind<&ds::journal_segment_bytes>()},
    key_def<ds>{.name = "journal.retention_bytes",
                .kind = value_kind::size,
                .default_text = "0",
                .min = 0,
                .max = 1024 * 1024 * gibibyte,
                .doc = "total journal size kept; older segments are deleted; 0 keeps everything",
                .access = bind<&ds::journal_retention_bytes>()},
    key_def<ds>{.name = "journal.retention_age",
                .kind = value_kind::duration,
                .default_text = "\"0ms\"",
                .min = 0,
                .max = 87600 * 3600 * us_per_s,
                .resolution = us_per_s,
                .doc = "segments whose newest object is older are deleted; 0 keeps them forever",
                .access = bind<&ds::journal_retention_age>()},
    key_def<ds>{.name = "nats.servers",
                .kind = value_kind::string,
                .default_text = "\"nats://127.0.0.1:4222\"",
                .doc = "sink.kind = nats: comma-separated URLs of the NATS servers to connect to",
                .access = bind<&ds::nats_servers>(),
                .check = &check_not_empty,
                .check_doc = "\"nats://HOST:PORT[,nats://HOST:PORT...]\""},
    key_def<ds>{.name = "nats.subject",
                .kind = value_kind::string,
                .default_text = "\"objwire.blocks\"",
                .doc = "subject prefix: each sender's blocks go to <subject>.<sender>, so the "
                       "stream must capture <subject>.>",
                .access = bind<&ds::nats_subject>(),
                .check = &check_not_empty,
                .check_doc = "a NATS subject"},
    key_def<ds>{
        .name = "nats.stream",
        .kind = value_kind::string,
        .default_text = "\"OBJWIRE\"",
        .doc = "JetStream stream that stores the blocks; created on nats.subject if missing",
        .access = bind<&ds::nats_stream>(),
        .check = &check_not_empty,
        .check_doc = "a stream name"},
    key_def<ds>{.name = "nats.replicas",
                .kind = value_kind::integer,
                .default_text = "1",
                .min = 1,
                .max = 5,
                .doc = "replicas of the stream when objwired creates it (3 survives a lost server)",
                .access = bind<&ds::nats_replicas>()},
    key_def<ds>{.name = "nats.credentials_file",
                .kind = value_kind::string,
                .default_text = "\"\"",
                .doc = "NATS credentials (.creds) file to connect with; \"\": none",
                .access = bind<&ds::nats_credentials_file>()},
    key_def<ds>{.name = "nats.publish_window",
                .kind = value_kind::integer,
                .default_text = "256",
                .min = 1,
                .max = 65536,
                .doc = "blocks published and not yet acknowledged by JetStream at most",
                .access = bind<&ds::nats_publish_window>()},
    key_def<ds>{.name = "nats.buffer_bytes",
                .kind = value_kind::size,
                .default_text = "\"256MiB\"",
                .min = mebibyte,
                .max = 64 * gibibyte,
                .doc = "bytes of blocks queued or unacknowledged at most; beyond it a "
                       "connection's reading and acks pause until its batch fits",
                .access = bind<&ds::nats_buffer_bytes>()},
    key_def<ds>{.name = "nats.ack_timeout",
                .kind = value_kind::duration,
                .default_text = "\"5s\"",
                .min = 100 * us_per_ms,
                .max = 600 * us_per_s,
                .resolution = us_per_ms,
                .doc = "a block JetStream has not acknowledged by then is published again "
                       "(same Nats-Msg-Id)",
                .access = bind<&ds::nats_ack_timeout>()},
    key_def<ds>{.name = "nats.duplicate_window",
                .kind = value_kind::duration,
                .default_text = "\"2m\"",
                .min = us_per_s,
                .max = 24 * 3600 * us_per_s,
                .resolution = us_per_ms,
                .doc = "duplicate window of a stream objwired creates: how long a republished "
                       "block is recognised",
                .access = bind<&ds::nats_duplicate_window>()},
    key_def<ds>{.name = "nats.compression",
                .kind = value_kind::enumeration,
                .default_text = "\"auto\"",
                .choices = compression_policies,
                .doc = "compress blocks published to JetStream never, always, or when it pays "
                       "on the link measured from JetStream's acks (as compression.policy)",
                .access = bind<&ds::nats_compression>()},
    key_def<ds>{.name = "nats.compression_codec",
                .kind = value_kind::enumeration,
                .default_text = "\"zstd\"",
                .choices = compression_codecs,
                .doc = "codec of compressed blocks; every objwired reading the stream must have it",
                .access = bind<&ds::nats_compression_codec>()},
    key_def<ds>{.name = "nats.compression_level",
                .kind = value_kind::integer,
                .default_text = "0",
                .min = 0,
                .max = 19,
                .doc = "codec level (zlib 1..9, zstd 1..19, lz4 1..12); 0: auto picks it by the "
                       "link, always uses the codec's default",
                .access = bind<&ds::nats_compression_level>()},
    key_def<ds>{.name = "metrics.listen",
                .kind = value_kind::string,
                .default_text = "\"127.0.0.1:9464\"",
                .doc = "address of the HTTP endpoint serving GET /metrics (Prometheus text); "
                       "\"\" turns it off",
                .access = bind<&ds::metrics_listen>(),
                .check = &check_optional_host_port,
                .check_doc = "\"HOST:PORT\" or \"\""},
    key_def<ds>{.name = "tls.cert_file",
                .kind = value_kind::string,
                .default_text = "\"\"",
                .doc = "PEM certificate chain of the daemon; set, every connection is TLS",
                .access = bind<&ds::tls_cert_file>()},
    key_def<ds>{.name = "tls.key_file",
                .kind = value_kind::string,
                .default_text = "\"\"",
                .doc = "PEM private key of tls.cert_file",
                .access = bind<&ds::tls_key_file>()},
    key_def<ds>{.name = "tls.client_ca_file",
                .kind = value_kind::string,
                .default_text = "\"\"",
                .doc = "PEM CA certificates; set, clients must present a certificate they signed",
                .access = bind<&ds::tls_client_ca_file>()},
    key_def<ds>{.name = "auth.token_file",
                .kind = value_kind::string,
                .default_text = "\"\"",
                .doc = "file holding the shared token every hello must carry; \"\": no token",
                .access = bind<&ds::auth_token_file>()},
};

const std::array client_schema_keys{
    key_def<cs>{.name = "client.to",
                .kind = value_kind::host_port,
                .default_text = "\"127.0.0.1:7878\"",
                .min = 1,
                .max = 65535,
                .doc = "address and TCP port of the objwired to talk to",
                .access = bind_host_port<&cs::to_host, &cs::to_port>()},
    key_def<cs>{.name = "client.connect_timeout",
                .kind = value_kind::duration,
                .default_text = "\"5s\"",
                .min = us_per_ms,
                .max = 3600 * us_per_s,
                .resolution = us_per_ms,
                .doc = "how long to wait for the TCP connection and handshake",
                .access = bind<&cs::connect_timeout>()},
    key_def<cs>{.name = "client.sender_id",
                .kind = value_kind::string,
                .default_text = "\"\"",
                .doc = "stable id of this stream, so the daemon can resume it without loss or "
                       "duplicates; \"\": a random id per connection object",
                .access = bind<&cs::sender_id>(),
                .check = check_sender_id,
                .check_doc = "text of at most 4096 bytes"},
    key_def<cs>{.name = "resume.retry_for",
                .kind = value_kind::duration,
                .default_text = "\"30s\"",
                .min = 0,
                .max = 24 * 3600 * us_per_s,
                .resolution = us_per_ms,
                .doc = "after a broken connection, how long to reconnect (with backoff) and "
                       "resume before giving up; 0: no reconnecting",
                .access = bind<&cs::resume_retry_for>()},
    key_def<cs>{.name = "resume.max_replay_bytes",
                .kind = value_kind::size,
                .default_text = "\"8MiB\"",
                .min = 64 * kibibyte,
                .max = gibibyte,
                .doc = "frame bytes kept to rebuild the daemon's table on a resume: the table is "
                       "reset at least this often (memory and resume work vs wire bytes)",
                .access = bind<&cs::resume_max_replay_bytes>()},
    key_def<cs>{.name = "batch.max_bytes",
                .kind = value_kind::size,
                .default_text = "\"64KiB\"",
                .min = kibibyte,
                .max = 16 * mebibyte,
                .doc = "objects are batched into frames up to this size: throughput vs latency",
                .access = bind<&cs::batch_max_bytes>()},
    key_def<cs>{.name = "batch.linger",
                .kind = value_kind::duration,
                .default_text = "\"5ms\"",
                .min = 0,
                .max = 10 * us_per_s,
                .resolution = 1,
                .doc = "longest wait for a batch to fill before it is sent: throughput vs "
                       "latency",
                .access = bind<&cs::batch_linger>()},
    key_def<cs>{.name = "reset.policy",
                .kind = value_kind::string,
                .default_text = "\"adaptive\"",
                .doc = "back-reference table cadence: adaptive | never | every:N (messages) | "
                       "every:N<unit> (bytes, e.g. every:64KiB)",
                .access = bind<&cs::reset_policy>(),
                .check = check_reset_policy,
                .check_doc = "adaptive, never, every:N or every:N with a size unit"},
    key_def<cs>{.name = "reset.table_budget",
                .kind = value_kind::size,
                .default_text = "0",
                .min = 0,
                .max = 64 * gibibyte,
                .doc = "table budget to ask the daemon for (it grants at most its own); 0 takes "
                       "the daemon's: receiver memory vs wire savings",
                .access = bind<&cs::table_budget>()},
    key_def<cs>{.name = "flow.max_in_flight",
                .kind = value_kind::size,
                .default_text = "\"8MiB\"",
                .min = 64 * kibibyte,
                .max = gibibyte,
                .doc = "bytes sent but not yet acknowledged: memory vs throughput on long links",
                .access = bind<&cs::max_in_flight>()},
    key_def<cs>{.name = "limits.max_frame_bytes",
                .kind = value_kind::size,
                .default_text = "\"16MiB\"",
                .min = kibibyte,
                .max = gibibyte,
                .doc = "largest frame accepted from the daemon",
                .access = bind<&cs::max_frame_bytes>()},
    key_def<cs>{.name = "limits.max_depth",
                .kind = value_kind::integer,
                .default_text = "64",
                .min = 1,
                .max = 10000,
                .doc = "deepest nesting of lists, maps and records accepted in one value",
                .access = bind<&cs::max_depth>()},
    key_def<cs>{.name = "compression.policy",
                .kind = value_kind::enumeration,
                .default_text = "\"auto\"",
                .choices = compression_policies,
                .doc = "compress frames never, always, or when it pays on the measured link",
                .access = bind<&cs::compression_policy>()},
    key_def<cs>{.name = "compression.codec",
                .kind = value_kind::enumeration,
                .default_text = "\"zstd\"",
                .choices = compression_codecs,
                .doc = "codec when compressing; zlib if the daemon does not take it",
                .access = bind<&cs::compression_codec>()},
    key_def<cs>{.name = "compression.level",
                .kind = value_kind::integer,
                .default_text = "0",
                .min = 0,
                .max = 19,
                .doc = "codec level (zlib 1..9, zstd 1..19, lz4 1..12): CPU vs ratio; 0: auto "
                       "picks it by the link, always uses the codec's default",
                .access = bind<&cs::compression_level>()},
    key_def<cs>{.name = "compression.min_frame_bytes",
                .kind = value_kind::size,
                .default_text = "512",
                .min = 0,
                .max = 16 * mebibyte,
                .doc = "frames smaller than this are never compressed",
                .access = bind<&cs::compression_min_frame_bytes>()},
    key_def<cs>{.name = "compression.link_bandwidth",
                .kind = value_kind::string,
                .default_text = "\"auto\"",
                .doc = "the link's bandwidth: \"auto\" measures it (TCP_INFO), or a figure "
                       "like \"100Mbit\"",
                .access = bind<&cs::link_bandwidth>(),
                .check = check_link_bandwidth,
                .check_doc = "auto or a bandwidth like 100Mbit"},
    key_def<cs>{.name = "socket.send_buffer",
                .kind = value_kind::size,
                .default_text = "0",
                .min = 0,
                .max = gibibyte,
                .doc = "kernel send buffer (SO_SNDBUF); 0 keeps the kernel's autotuning",
                .access = bind<&cs::send_buffer>()},
    key_def<cs>{.name = "socket.recv_buffer",
                .kind = value_kind::size,
                .default_text = "0",
                .min = 0,
                .max = gibibyte,
                .doc = "kernel receive buffer (SO_RCVBUF); 0 keeps the kernel's autotuning",
                .access = bind<&cs::recv_buffer>()},
    key_def<cs>{.name = "socket.nodelay",
                .kind = value_kind::boolean,
                .default_text = "true",
                .doc = "TCP_NODELAY: frames are whole already, so Nagle only adds delay",
                .access = bind<&cs::nodelay>()},
    key_def<cs>{.name = "tls.enabled",
                .kind = value_kind::boolean,
                .default_text = "false",
                .doc = "talk TLS to the daemon (it must have tls.cert_file set)",
                .access = bind<&cs::tls_enabled>()},
    key_def<cs>{.name = "tls.ca_file",
                .kind = value_kind::string,
                .default_text = "\"\"",
                .doc = "PEM CA certificates the daemon's certificate must chain to; \"\": the "
                       "system's",
                .access = bind<&cs::tls_ca_file>()},
    key_def<cs>{.name = "tls.cert_file",
                .kind = value_kind::string,
                .default_text = "\"\"",
                .doc = "PEM certificate of this client, for a daemon with tls.client_ca_file",
                .access = bind<&cs::tls_cert_file>()},
    key_def<cs>{.name = "tls.key_file",
                .kind = value_kind::string,
                .default_text = "\"\"",
                .doc = "PEM private key of tls.cert_file",
                .access = bind<&cs::tls_key_file>()},
    key_def<cs>{.name = "tls.server_name",
                .kind = value_kind::string,
                .default_text = "\"\"",
                .doc = "name or IP address the daemon's certificate must carry; \"\": the host "
                       "of client.to",
                .access = bind<&cs::tls_server_name>()},
    key_def<cs>{.name = "auth.token_file",
                .kind = value_kind::string,
                .default_text = "\"\"",
                .doc = "file holding the daemon's shared token, sent in the hello; \"\": none",
                .access = bind<&cs::auth_token_file>()},
    key_def<cs>{.name = "lazy.fields",
                .kind = value_kind::string_list,
                .default_text = "[]",
                .doc = "record fields sent as lazy values (compressed on their own, stored and "
                       "forwarded by the daemon as they are, expanded by the reader)",
                .access = bind<&cs::lazy_fields>(),
                .check = &check_lazy_field,
                .check_doc = "Type.field"},
    key_def<cs>{.name = "lazy.min_bytes",
                .kind = value_kind::size,
                .default_text = "0",
                .min = 0,
                .max = 1024 * mebibyte,
                .doc = "any value below a message's root this large (its strings and bytes plus "
                       "one per item) is sent as a lazy value if it shrinks; 0: off",
                .access = bind<&cs::lazy_min_bytes>()},
    key_def<cs>{.name = "lazy.codec",
                .kind = value_kind::enumeration,
                .default_text = "\"zstd\"",
                .choices = compression_codecs,
                .doc = "codec of lazy values; zlib if the daemon does not list it (every reader "
                       "must have it)",
                .access = bind<&cs::lazy_codec>()},
    key_def<cs>{.name = "types.NAME.transient",
                .kind = value_kind::string_list,
                .default_text = "[]",
                .doc = "fields of record type NAME that are never sent; the receiver sees them "
                       "absent",
                .access = bind_named_lists<&cs::transient>(),
                .check_doc = "field names",
                .name_component = 1},
};

template <class S>
struct schema {
    std::string_view program;        // "objwired"
    std::string_view other_program;  // "objwire"
    std::span<const key_def<S>> keys;
    std::vector<std::string_view> other_keys;  // the other program's key names
};

template <class A>
std::vector<std::string_view> names_of(const A& keys) {
    std::vector<std::string_view> out;
    for (const auto& k : keys)
        out.push_back(k.name);
    return out;
}

const schema<ds>& daemon_schema() {
    static const schema<ds> s{"objwired", "objwire", daemon_schema_keys,
                              names_of(client_schema_keys)};
    return s;
}

const schema<cs>& client_schema() {
    static const schema<cs> s{"objwire", "objwired", client_schema_keys,
                              names_of(daemon_schema_keys)};
    return s;
}

// ---- names --------------------------------------------------------------------------------

template <class S>
std::vector<std::string_view> sections(std::span<const key_def<S>> keys) {
    std::vector<std::string_view> out;
    for (const auto& k : keys) {
        const auto section = section_of(k.name);
        if (std::find(out.begin(), out.end(), section) == out.end()) out.push_back(section);
    }
    return out;
}

std::vector<std::string_view> sections_of_names(const std::vector<std::string_view>& names) {
    std::vector<std::string_view> out;
    for (const auto name : names) {
        const auto section = section_of(name);
        if (std::find(out.begin(), out.end(), section) == out.end()) out.push_back(section);
    }
    return out;
}

template <class S>
const key_def<S>* find_key(const schema<S>& sc, std::string_view name) {
    for (const auto& k : sc.keys) {
        if (k.name == name) return &k;
    }
    return nullptr;
}

std::vector<std::string_view> split_name_by(std::string_view text, char separator) {
    std::vector<std::string_view> out;
    for (std::size_t start = 0;;) {
        const auto at = text.find(separator, start);
        out.push_back(text.substr(start, at - start));
        if (at == std::string_view::npos) return out;
        start = at + 1;
    }
}

std::vector<std::string_view> split_name(std::string_view name) {
    return split_name_by(name, '.');
}

// The user's name in `path` when it is an instance of the NAME key `key`
// ("types.Person.transient" of "types.NAME.transient"). `prefix`: `path` may be a table on
// the way to such a key ("types.Person").
template <class S>
std::optional<std::string> match_named(const key_def<S>& key, const std::vector<std::string>& path,
                                       bool prefix = false) {
    if (key.name_component == 0) return std::nullopt;
    const auto parts = split_name(key.name);
    const bool shape = prefix ? path.size() > key.name_component && path.size() < parts.size()
                              : path.size() == parts.size();
    if (!shape) return std::nullopt;
    for (std::size_t i = 0; i < path.size(); ++i) {
        if (i != key.name_component && parts[i] != path[i]) return std::nullopt;
    }
    return path[key.name_component];
}

// The key at `path`; for a NAME key, `name` receives the user's name.
template <class S>
const key_def<S>* find_key_at(const schema<S>& sc, const std::vector<std::string>& path,
                              std::string& name) {
    for (const auto& k : sc.keys) {
        if (k.name_component != 0) continue;
        const auto parts = split_name(k.name);
        if (std::equal(parts.begin(), parts.end(), path.begin(), path.end())) return &k;
    }
    for (const auto& k : sc.keys) {
        if (auto n = match_named(k, path)) {
            name = std::move(*n);
            return &k;
        }
    }
    return nullptr;
}

template <class S>
bool is_named_table(const schema<S>& sc, const std::vector<std::string>& path) {
    return std::any_of(sc.keys.begin(), sc.keys.end(),
                       [&](const auto& k) { return match_named(k, path, true).has_value(); });
}

// Key names as "did you mean" candidates: a NAME key takes the name from `wrong` when it has
// the same shape ("types.Person.transeint" -> "types.Person.transient").
template <class S>
std::vector<std::string> candidate_names(const schema<S>& sc, std::string_view wrong) {
    const auto wrong_parts = split_name(wrong);
    std::vector<std::string> out;
    for (const auto& k : sc.keys) {
        auto parts = split_name(k.name);
        if (k.name_component != 0 && parts.size() == wrong_parts.size()) {
            parts[k.name_component] = wrong_parts[k.name_component];
        }
        std::string name;
        for (const auto part : parts)
            name += (name.empty() ? "" : ".") + std::string(part);
        out.push_back(std::move(name));
    }
    return out;
}

std::string join(const std::vector<std::string_view>& parts, std::string_view separator) {
    std::string out;
    for (std::size_t i = 0; i < parts.size(); ++i) {
        if (i != 0) out += separator;
        out += parts[i];
    }
    return out;
}

std::string env_var_of(std::string_view name) {
    std::string out = "OBJWIRE_";
    for (const char c : name) {
        out += c == '.' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
    return out;
}

// A NAME key's variable leaves the name out: OBJWIRE_TYPES_TRANSIENT="Person.surname", since
// variable names are upper case and type names are not.
template <class S>
std::string env_var_for(const key_def<S>& key) {
    if (key.name_component == 0) return env_var_of(key.name);
    auto parts = split_name(key.name);
    parts.erase(parts.begin() + static_cast<std::ptrdiff_t>(key.name_component));
    std::string name;
    for (const auto part : parts)
        name += (name.empty() ? "" : ".") + std::string(part);
    return env_var_of(name);
}

// A dotted path as the user would write it: components that are not bare keys are quoted.
std::string path_text(const std::vector<std::string>& path) {
    std::string out;
    for (std::size_t i = 0; i < path.size(); ++i) {
        if (i != 0) out += '.';
        const bool bare =
            !path[i].empty() && std::all_of(path[i].begin(), path[i].end(), [](char c) {
                return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
            });
        out += bare ? path[i] : quote_toml(path[i]);
    }
    return out;
}

// ---- did you mean -------------------------------------------------------------------------

template <class S>
std::string unknown_key_message(const schema<S>& sc, std::string_view name) {
    std::string msg = "unknown key '" + std::string(name) + "'";
    const auto candidates = candidate_names(sc, name);
    const std::vector<std::string_view> all(candidates.begin(), candidates.end());
    if (std::find(sc.other_keys.begin(), sc.other_keys.end(), name) != sc.other_keys.end()) {
        return msg + " (it is a setting of " + std::string(sc.other_program) + ", not of " +
               std::string(sc.program) + ")";
    }
    if (const auto s = suggest(name, all))
        return msg + " (did you mean '" + std::string(*s) + "'?)";
    const auto section = section_of(name);
    std::vector<std::string_view> in_section;
    for (const auto k : all) {
        if (section_of(k) == section) in_section.push_back(leaf_of(k));
    }
    if (!in_section.empty()) {
        return msg + " ([" + std::string(section) + "] has: " + join(in_section, ", ") + ")";
    }
    return msg + " (" + std::string(sc.program) +
           "'s tables are: " + join(sections(sc.keys), ", ") + ")";
}

template <class S>
std::string unknown_table_message(const schema<S>& sc, std::string_view name) {
    std::string msg = "unknown table '" + std::string(name) + "'";
    const auto own = sections(sc.keys);
    const auto others = sections_of_names(sc.other_keys);
    const std::string listing = std::string(sc.program) + "'s tables are: " + join(own, ", ");
    if (std::find(others.begin(), others.end(), name) != others.end()) {
        return msg + " (it belongs to " + std::string(sc.other_program) + "'s config; " + listing +
               ")";
    }
    auto candidates = own;
    if (name.find('.') != std::string_view::npos) candidates = names_of(sc.keys);
    if (const auto s = suggest(name, candidates)) {
        return msg + " (did you mean '" + std::string(*s) + "'?)";
    }
    return msg + " (" + listing + ")";
}

// ---- values -------------------------------------------------------------------------------

// A value to apply: from a TOML file (typed) or from a flag or env var (text, read by kind).
struct raw_value {
    toml_type type = toml_type::string;
    bool from_text = false;
    std::string string_value;
    std::int64_t integer_value = 0;
    bool bool_value = false;
    std::string display;                   // how messages show it
    std::vector<detail::toml_item> items;  // a TOML array's elements
    std::string name;                      // a NAME key's name, when known
};

raw_value from_entry(const toml_entry& e, std::string name = {}) {
    return {e.type,       false,     e.string_value, e.integer_value,
            e.bool_value, e.display, e.items,        std::move(name)};
}

bool is_plain_integer(std::string_view text) {
    if (!text.empty() && text.front() == '-') text.remove_prefix(1);
    return !text.empty() &&
           std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

raw_value from_text(std::string_view text) {
    raw_value v;
    v.from_text = true;
    v.string_value = std::string(text);
    v.display = is_plain_integer(text) ? std::string(text) : quote_toml(text);
    return v;
}

std::string_view type_name(toml_type t) {
    switch (t) {
        case toml_type::table:
            return "table";
        case toml_type::array:
            return "array";
        case toml_type::string:
            return "string";
        case toml_type::integer:
            return "integer";
        case toml_type::floating:
            return "float";
        case toml_type::boolean:
            return "boolean";
        case toml_type::date_time:
            return "date/time";
    }
    return "value";
}

std::string got(const raw_value& v) {
    if (v.from_text) return v.display;
    std::string out(type_name(v.type));
    if (!v.display.empty()) out += " " + v.display;
    return out;
}

std::string_view kind_name(value_kind k) {
    switch (k) {
        case value_kind::string:
            return "string";
        case value_kind::integer:
            return "int";
        case value_kind::boolean:
            return "bool";
        case value_kind::size:
            return "size";
        case value_kind::duration:
            return "duration";
        case value_kind::bandwidth:
            return "bandwidth";
        case value_kind::host_port:
            return "host_port";
        case value_kind::enumeration:
            return "enum";
        case value_kind::string_list:
            return "string_list";
    }
    return "value";
}

template <class S>
std::string expected_text(const key_def<S>& key) {
    switch (key.kind) {
        case value_kind::string:
            return "a string";
        case value_kind::integer:
            return "an integer";
        case value_kind::boolean:
            return "a boolean (true or false)";
        case value_kind::size:
            return "a size (an integer number of bytes or a string like \"64KiB\")";
        case value_kind::duration:
            return "a duration (integer milliseconds or a string like \"250ms\" or \"5s\")";
        case value_kind::bandwidth:
            return "a bandwidth (integer bits per second or a string like \"100Mbit\")";
        case value_kind::host_port:
            return "a string \"HOST:PORT\" (e.g. \"127.0.0.1:7878\" or \"[::1]:7878\")";
        case value_kind::enumeration: {
            std::vector<std::string_view> choices(key.choices.begin(), key.choices.end());
            return "one of the strings " + join(choices, ", ");
        }
        case value_kind::string_list:
            return "an array of strings like [\"a\", \"b\"]";
    }
    return "a value";
}

// The allowed range or values, in the key's own units.
template <class S>
std::string allowed_text(const key_def<S>& key) {
    const auto range = [&](auto format) { return format(key.min) + ".." + format(key.max); };
    switch (key.kind) {
        case value_kind::integer:
            return range([](std::uint64_t n) { return std::to_string(n); });
        case value_kind::size:
            return range([](std::uint64_t n) { return format_size(n); });
        case value_kind::duration:
            return range([](std::uint64_t n) {
                if (n == 0) return std::string("0");
                return format_duration(std::chrono::microseconds(static_cast<std::int64_t>(n)));
            });
        case value_kind::bandwidth:
            return range([](std::uint64_t n) { return format_bandwidth(n); });
        case value_kind::host_port:
            return "HOST:PORT, port " + range([](std::uint64_t n) { return std::to_string(n); });
        case value_kind::enumeration: {
            std::vector<std::string_view> choices(key.choices.begin(), key.choices.end());
            return join(choices, "|");
        }
        case value_kind::boolean:
            return "true|false";
        case value_kind::string:
        case value_kind::string_list:
            return std::string(key.check_doc);
    }
    return "";
}

std::string list_text(const std::vector<std::string>& items) {
    std::string out = "[";
    for (const auto& item : items)
        out += (out.size() > 1 ? ", " : "") + quote_toml(item);
    return out + "]";
}

// A value as to_toml prints it (and as default_text is written).
template <class S>
std::string toml_text(const key_def<S>& key, const typed_value& v) {
    switch (key.kind) {
        case value_kind::string:
        case value_kind::enumeration:
            return quote_toml(v.text);
        case value_kind::integer:
            return std::to_string(v.number);
        case value_kind::boolean:
            return v.flag ? "true" : "false";
        case value_kind::size: {
            const auto text = format_size(v.number);
            return is_plain_integer(text) ? text : quote_toml(text);
        }
        case value_kind::duration:
            return quote_toml(
                format_duration(std::chrono::microseconds(static_cast<std::int64_t>(v.number))));
        case value_kind::bandwidth:
            return quote_toml(format_bandwidth(v.number));
        case value_kind::host_port:
            return quote_toml(format_host_port(v.text, static_cast<std::uint16_t>(v.number)));
        case value_kind::string_list:
            return list_text(v.list);
    }
    return "";
}

std::optional<std::int64_t> parse_int64(std::string_view text) {
    if (!is_plain_integer(text)) return std::nullopt;
    const bool negative = text.front() == '-';
    if (negative) text.remove_prefix(1);
    std::uint64_t n = 0;
    for (const char c : text) {
        const auto digit = static_cast<std::uint64_t>(c - '0');
        if (n > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) return std::nullopt;
        n = n * 10 + digit;
    }
    const auto limit = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    if (n > limit + (negative ? 1 : 0)) return std::nullopt;
    return negative ? static_cast<std::int64_t>(0 - n) : static_cast<std::int64_t>(n);
}

// Index of the first array element that is not a non-empty string, or -1.
std::ptrdiff_t first_bad_item(const std::vector<detail::toml_item>& items) {
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (items[i].type != toml_type::string || items[i].string_value.empty()) {
            return static_cast<std::ptrdiff_t>(i);
        }
    }
    return -1;
}

std::string_view trim_spaces(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
        s.remove_suffix(1);
    return s;
}

// A string list from a TOML array, or from text (env, flags): "a,b" for one name's list, or
// "Name.item,Name.item" for a NAME key given without its name.
template <class S>
outcome<typed_value> convert_list(const key_def<S>& key, const raw_value& v, std::string name) {
    if (key.name_component != 0 && !v.name.empty()) {
        auto parts = split_name(key.name);
        parts[key.name_component] = v.name;
        name = "'";
        for (const auto part : parts)
            name += (name.size() > 1 ? "." : "") + std::string(part);
        name += "'";
    }
    std::vector<std::pair<std::string, std::string>> items;  // (NAME, item)
    if (v.from_text) {
        const bool qualified = key.name_component != 0 && v.name.empty();
        for (const auto part_view : split_name_by(v.string_value, ',')) {
            const auto part = trim_spaces(part_view);
            const auto dot = part.rfind('.');
            if (!qualified) {
                if (part.empty()) return error{name + " = " + v.display + " has an empty item"};
                items.emplace_back(v.name, part);
            } else if (dot == std::string_view::npos || dot == 0 || dot + 1 == part.size()) {
                return error{name + ": \"" + std::string(part) +
                             "\" must be TYPE.FIELD, e.g. \"Person.surname\" (several separated "
                             "by commas)"};
            } else {
                items.emplace_back(part.substr(0, dot), part.substr(dot + 1));
            }
        }
    } else {
        if (v.type != toml_type::array) {
            return error{name + " must be " + expected_text(key) + ", got " + got(v)};
        }
        if (const auto bad = first_bad_item(v.items); bad >= 0) {
            const auto& item = v.items[static_cast<std::size_t>(bad)];
            return error{name + ": element " + std::to_string(bad + 1) +
                         (item.type == toml_type::string
                              ? " is empty; write a field name"
                              : " must be a string (a field name), got " +
                                    std::string(type_name(item.type)) + " " + item.display)};
        }
        for (const auto& item : v.items)
            items.emplace_back(v.name, item.string_value);
    }
    if (key.check != nullptr) {
        for (const auto& entry : items)
            if (auto why = key.check(entry.second); !why.empty()) return error{name + ": " + why};
    }
    typed_value out;
    if (key.name_component == 0) {
        for (auto& [unused, item] : items)
            out.list.push_back(std::move(item));
        return out;
    }
    if (!v.name.empty()) out.named.emplace_back(v.name, std::vector<std::string>{});
    for (auto& entry : items) {
        // Not a structured binding: clang 14 cannot capture one in a lambda.
        const auto& owner = entry.first;
        auto& item = entry.second;
        auto at = std::find_if(out.named.begin(), out.named.end(),
                               [&](const auto& e) { return e.first == owner; });
        if (at == out.named.end()) at = out.named.insert(out.named.end(), {owner, {}});
        at->second.push_back(std::move(item));
    }
    return out;
}

// Checks `v` against `key` and converts it. Errors start with the key name, no place.
template <class S>
outcome<typed_value> convert(const key_def<S>& key, const raw_value& v) {
    const std::string name = "'" + std::string(key.name) + "'";
    const auto wrong_type = [&] {
        return error{name + " must be " + expected_text(key) + ", got " + got(v)};
    };
    const auto out_of_range = [&] {
        std::string msg =
            name + " = " + v.display + " is out of range (allowed " + allowed_text(key) + ")";
        if (key.kind == value_kind::size && v.type == toml_type::string) {
            if (const auto note = decimal_size_note(v.string_value); !note.empty()) {
                msg += ": " + note;
            }
        }
        return error{msg};
    };
    const auto bad_text = [&](const error& e) { return error{name + ": " + e.message}; };
    const bool is_string = v.type == toml_type::string;
    const bool is_integer = v.type == toml_type::integer && !v.from_text;

    typed_value out;
    switch (key.kind) {
        case value_kind::string: {
            if (!is_string) return wrong_type();
            out.text = v.string_value;
            if (key.check != nullptr) {
                if (auto why = key.check(out.text); !why.empty()) {
                    return error{name + " = " + v.display + " " + why};
                }
            }
            return out;
        }
        case value_kind::enumeration: {
            if (!is_string) return wrong_type();
            for (const auto choice : key.choices) {
                if (choice == v.string_value) {
                    out.text = v.string_value;
                    return out;
                }
            }
            std::vector<std::string_view> choices(key.choices.begin(), key.choices.end());
            std::string msg = name + " = " + v.display + " is not one of " + join(choices, ", ");
            if (const auto s = suggest(v.string_value, choices)) {
                msg += " (did you mean '" + std::string(*s) + "'?)";
            }
            return error{msg};
        }
        case value_kind::boolean: {
            if (v.type == toml_type::boolean && !v.from_text) {
                out.flag = v.bool_value;
                return out;
            }
            if (!v.from_text) return wrong_type();
            static constexpr std::array<std::string_view, 4> yes{"true", "1", "yes", "on"};
            static constexpr std::array<std::string_view, 4> no{"false", "0", "no", "off"};
            if (std::find(yes.begin(), yes.end(), v.string_value) != yes.end()) {
                out.flag = true;
            } else if (std::find(no.begin(), no.end(), v.string_value) == no.end()) {
                return wrong_type();
            }
            return out;
        }
        case value_kind::host_port: {
            if (!is_string) return wrong_type();
            auto hp = parse_host_port(v.string_value);
            if (!hp) return bad_text(hp.error());
            if (hp->port < key.min || hp->port > key.max) return out_of_range();
            out.text = hp->host;
            out.number = hp->port;
            return out;
        }
        case value_kind::string_list:
            return convert_list(key, v, name);
        case value_kind::integer:
        case value_kind::size:
        case value_kind::duration:
        case value_kind::bandwidth:
            break;
    }

    // Numbers: a TOML integer in the key's plain unit, or text with an optional unit.
    std::int64_t signed_number = 0;
    std::uint64_t number = 0;
    if (is_integer || (v.from_text && key.kind == value_kind::integer)) {
        if (is_integer) {
            signed_number = v.integer_value;
        } else if (const auto n = parse_int64(v.string_value)) {
            signed_number = *n;
        } else {
            return wrong_type();
        }
        if (signed_number < 0) return out_of_range();
        number = static_cast<std::uint64_t>(signed_number);
        if (key.kind == value_kind::duration) {
            if (number > std::numeric_limits<std::uint64_t>::max() / us_per_ms) {
                return out_of_range();
            }
            number *= us_per_ms;
        }
    } else if (is_string && key.kind != value_kind::integer) {
        outcome<std::uint64_t> parsed = std::uint64_t{0};
        if (key.kind == value_kind::size) {
            parsed = parse_size(v.string_value);
        } else if (key.kind == value_kind::bandwidth) {
            parsed = parse_bandwidth(v.string_value);
        } else {
            const auto d = parse_duration(v.string_value);
            if (d) {
                parsed = static_cast<std::uint64_t>(d->count());
            } else {
                parsed = d.error();
            }
        }
        if (!parsed) return bad_text(parsed.error());
        number = *parsed;
    } else {
        return wrong_type();
    }
    if (number < key.min || number > key.max) return out_of_range();
    if (key.kind == value_kind::duration && number % key.resolution != 0) {
        return error{
            name + " = " + v.display + " is finer than this setting's resolution (" +
            format_duration(std::chrono::microseconds(static_cast<std::int64_t>(key.resolution))) +
            ")"};
    }
    out.number = number;
    return out;
}

// ---- errors with places -------------------------------------------------------------------

struct placed_error {
    source_pos pos;
    std::string message;
};

error combine(std::string_view source, std::vector<placed_error> errors) {
    std::stable_sort(errors.begin(), errors.end(), [](const auto& a, const auto& b) {
        return std::pair(a.pos.line, a.pos.column) < std::pair(b.pos.line, b.pos.column);
    });
    constexpr std::size_t shown = 20;
    std::string out;
    for (std::size_t i = 0; i < errors.size() && i < shown; ++i) {
        if (i != 0) out += '\n';
        out += std::string(source) + ":" + std::to_string(errors[i].pos.line) + ":" +
               std::to_string(errors[i].pos.column) + ": " + errors[i].message;
    }
    if (errors.size() > shown) {
        out += "\n" + std::string(source) + ": " + std::to_string(errors.size() - shown) +
               " more errors";
    }
    return error{out};
}

// ---- the operations, once for both programs ------------------------------------------

template <class S>
outcome<S> parse_toml(const schema<S>& sc, std::string_view text, std::string_view source) {
    auto document = detail::parse_toml_document(text, source);
    if (!document) return document.error();
    S settings;
    std::vector<placed_error> errors;
    std::vector<std::string> reported;  // tables whose contents are not looked at
    const auto section_names = sections(sc.keys);
    for (const auto& entry : *document) {
        const std::string name = path_text(entry.path);
        const bool inside_reported =
            std::any_of(reported.begin(), reported.end(), [&](const std::string& r) {
                return name.size() > r.size() && name.starts_with(r) && name[r.size()] == '.';
            });
        if (inside_reported) continue;
        const bool is_table = entry.type == toml_type::table;
        std::string user_name;  // NAME of a key like types.NAME.transient
        if (const auto* key = find_key_at(sc, entry.path, user_name)) {
            if (is_table) reported.push_back(name);
            auto value = convert(*key, from_entry(entry, user_name));
            if (!value) {
                // A bad array element is pointed at, not the array.
                const auto bad = first_bad_item(entry.items);
                const bool at_item = key->kind == value_kind::string_list &&
                                     entry.type == toml_type::array && bad >= 0;
                errors.push_back(
                    {at_item ? entry.items[static_cast<std::size_t>(bad)].pos : entry.value_pos,
                     value.error().message});
                continue;
            }
            key->access.set(settings, *value);
            continue;
        }
        if (is_named_table(sc, entry.path)) {
            if (!is_table) {
                errors.push_back({entry.value_pos, "'" + name + "' must be a table ([" + name +
                                                       "]), got " + got(from_entry(entry))});
            }
            continue;
        }
        const bool is_section =
            std::find(section_names.begin(), section_names.end(), name) != section_names.end();
        if (is_section && is_table) continue;
        if (is_section) {
            errors.push_back({entry.value_pos, "'" + name + "' must be a table ([" + name +
                                                   "]), got " + got(from_entry(entry))});
        } else if (is_table) {
            reported.push_back(name);
            errors.push_back({entry.key_pos, unknown_table_message(sc, name)});
        } else {
            errors.push_back({entry.key_pos, unknown_key_message(sc, name)});
        }
    }
    if (!errors.empty()) return combine(source, std::move(errors));
    return settings;
}

template <class S>
std::optional<error> apply_override(const schema<S>& sc, S& settings, std::string_view key_name,
                                    std::string_view text, std::string_view origin) {
    const std::string prefix = std::string(origin) + ": ";
    const auto* key = find_key(sc, key_name);
    auto raw = from_text(text);
    if (key == nullptr) {
        const auto parts = split_name(key_name);
        key = find_key_at(sc, std::vector<std::string>(parts.begin(), parts.end()), raw.name);
    }
    if (key == nullptr) return error{prefix + unknown_key_message(sc, key_name)};
    auto value = convert(*key, raw);
    if (!value) return error{prefix + value.error().message};
    key->access.set(settings, *value);
    return std::nullopt;
}

// An empty OBJWIRE_* variable is as if unset, except for an address that "" turns off
// (metrics.listen, forward.to): there it means "" - a container turns metrics off with
// OBJWIRE_METRICS_LISTEN= when its image sets an address.
template <class S>
bool empty_turns_off(const key_def<S>& key) {
    return key.check == &check_optional_host_port;
}

template <class S>
std::optional<error> apply_env(const schema<S>& sc, S& settings, const getenv_function& getenv_fn) {
    std::string messages;
    for (const auto& key : sc.keys) {
        const std::string var = env_var_for(key);
        const char* text = getenv_fn(var.c_str());
        if (text == nullptr || (*text == '\0' && !empty_turns_off(key))) continue;
        if (auto e = apply_override(sc, settings, key.name, text, var)) {
            if (!messages.empty()) messages += '\n';
            messages += e->message;
        }
    }
    if (messages.empty()) return std::nullopt;
    return error{messages};
}

struct rendered_line {
    std::string section;
    std::string text;
    std::string origin;
};

// "PATH:LINE" when the layer knows where `key` is written, else the layer's name.
template <class S>
std::string layer_origin(const settings_layer<S>& layer, std::string_view key) {
    for (const auto& l : layer.lines) {
        if (l.key == key) return std::string(layer.origin) + ":" + std::to_string(l.line);
    }
    return std::string(layer.origin);
}

// The origin of a value: the last layer whose `get` differs from the one before it.
template <class S, class Get>
std::string origin_of(std::span<const settings_layer<S>> layers, std::string_view key, Get get) {
    const S defaults{};
    std::string origin = "default";
    auto previous = get(defaults);
    for (const auto& layer : layers) {
        auto current = get(layer.settings);
        if (current != previous) origin = layer_origin(layer, key);
        previous = std::move(current);
    }
    return origin;
}

// A NAME key prints one table per name ([types.Person] transient = [...]); with no name set,
// its placeholder with an empty list, which parses back to nothing.
template <class S>
void render_named(const key_def<S>& key, const S& settings,
                  std::span<const settings_layer<S>> layers, bool with_layers,
                  std::vector<rendered_line>& lines) {
    auto parts = split_name(key.name);
    const std::string leaf(parts.back());
    parts.pop_back();
    const auto value = key.access.get(settings);
    if (value.named.empty()) {
        std::string section;
        for (const auto part : parts)
            section += (section.empty() ? "" : ".") + std::string(part);
        lines.push_back({section, leaf + " = []", "default"});
        return;
    }
    for (const auto& entry : value.named) {
        // Not a structured binding: clang 14 cannot capture one in a lambda.
        const auto& name = entry.first;
        const auto& items = entry.second;
        std::vector<std::string> path(parts.begin(), parts.end());
        path[key.name_component] = name;
        const std::string section = path_text(path);
        path.push_back(leaf);
        const auto items_of = [&](const S& s) {
            for (const auto& [n, list] : key.access.get(s).named) {
                if (n == name) return list;
            }
            return std::vector<std::string>{};
        };
        lines.push_back({section, leaf + " = " + list_text(items),
                         with_layers ? origin_of(layers, path_text(path), items_of) : "set"});
    }
}

template <class S>
std::string render(const schema<S>& sc, const S& settings,
                   std::span<const settings_layer<S>> layers, bool with_layers) {
    const S defaults{};
    std::vector<rendered_line> lines;
    for (const auto& key : sc.keys) {
        if (key.name_component != 0) {
            render_named(key, settings, layers, with_layers, lines);
            continue;
        }
        const auto value = key.access.get(settings);
        std::string origin = value == key.access.get(defaults) ? "default" : "set";
        if (with_layers) {
            origin = origin_of(layers, key.name, [&](const S& s) { return key.access.get(s); });
        }
        lines.push_back({std::string(section_of(key.name)),
                         std::string(leaf_of(key.name)) + " = " + toml_text(key, value), origin});
    }
    std::size_t width = 0;
    for (const auto& l : lines)
        width = std::max(width, l.text.size());
    std::string out = "# " + std::string(sc.program) + " effective settings\n";
    std::string current;
    for (const auto& l : lines) {
        if (l.section != current) {
            out += "\n[" + l.section + "]\n";
            current = l.section;
        }
        out += l.text + std::string(width - l.text.size() + 2, ' ') + "# " + l.origin + "\n";
    }
    return out;
}

template <class S>
std::vector<key_info> describe(const schema<S>& sc) {
    std::vector<key_info> out;
    for (const auto& key : sc.keys) {
        out.push_back({std::string(key.name), std::string(kind_name(key.kind)),
                       std::string(key.default_text), allowed_text(key), std::string(key.doc),
                       env_var_for(key), empty_turns_off(key)});
    }
    return out;
}

}  // namespace

outcome<daemon_settings> parse_daemon_toml(std::string_view text, std::string_view source_name) {
    return parse_toml(daemon_schema(), text, source_name);
}

outcome<client_settings> parse_client_toml(std::string_view text, std::string_view source_name) {
    return parse_toml(client_schema(), text, source_name);
}

outcome<daemon_settings> load_daemon_file(const std::filesystem::path& path) {
    auto text = detail::read_text_file(path);
    if (!text) return text.error();
    return parse_daemon_toml(*text, path.string());
}

outcome<client_settings> load_client_file(const std::filesystem::path& path) {
    auto text = detail::read_text_file(path);
    if (!text) return text.error();
    return parse_client_toml(*text, path.string());
}

std::optional<error> apply_daemon_override(daemon_settings& s, std::string_view key,
                                           std::string_view text, std::string_view origin) {
    return apply_override(daemon_schema(), s, key, text, origin);
}

std::optional<error> apply_client_override(client_settings& s, std::string_view key,
                                           std::string_view text, std::string_view origin) {
    return apply_override(client_schema(), s, key, text, origin);
}

std::optional<error> apply_daemon_env(daemon_settings& s, const getenv_function& getenv_fn) {
    return apply_env(daemon_schema(), s, getenv_fn);
}

std::optional<error> apply_client_env(client_settings& s, const getenv_function& getenv_fn) {
    return apply_env(client_schema(), s, getenv_fn);
}

std::string to_toml(const daemon_settings& s) {
    return render<daemon_settings>(daemon_schema(), s, {}, false);
}

std::string to_toml(const client_settings& s) {
    return render<client_settings>(client_schema(), s, {}, false);
}

std::string to_toml(const daemon_settings& s,
                    std::span<const settings_layer<daemon_settings>> layers) {
    return render(daemon_schema(), s, layers, true);
}

std::string to_toml(const client_settings& s,
                    std::span<const settings_layer<client_settings>> layers) {
    return render(client_schema(), s, layers, true);
}

outcome<std::vector<key_line>> key_lines(std::string_view text, std::string_view source_name) {
    auto document = detail::parse_toml_document(text, source_name);
    if (!document) return document.error();
    std::vector<key_line> out;
    for (const auto& entry : *document) {
        if (entry.type != toml_type::table) {
            out.push_back({path_text(entry.path), entry.key_pos.line});
        }
    }
    return out;
}

std::vector<key_info> daemon_keys() {
    return describe(daemon_schema());
}
std::vector<key_info> client_keys() {
    return describe(client_schema());
}

}  // namespace objwire::config
