// The client library's settings: how a connection or a reader reaches objwired and how it
// sends. Plain typed fields - durations, sizes, enums - with the defaults of objwire.toml, one
// field per key of that file (config/objwire.toml describes each). The settings file is one way to
// fill them (load_options); a program's own code is another. open() checks them first: a field out
// of range fails with client_errc::invalid_options and last_error() naming the field - never
// replaced by a default.
//
//   objwire::client::options o;
//   o.host = "10.0.0.5";
//   o.linger = std::chrono::milliseconds(2);
//   o.compression = objwire::compression_mode::never;
//   objwire::client::connection c(o);
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <objwire/vocabulary.hpp>

namespace objwire::client {

struct options {
    // [client]
    std::string host = "127.0.0.1";  // client.to = "HOST:PORT"
    std::uint16_t port = 7878;
    std::chrono::milliseconds connect_timeout{5000};  // client.connect_timeout
    std::string sender_id;  // client.sender_id: the stream's stable id; "": a random one
    // [resume]
    std::chrono::milliseconds retry_for{30000};        // resume.retry_for; 0: no reconnect
    std::uint64_t max_replay_bytes = 8 * 1024 * 1024;  // resume.max_replay_bytes
    // [batch]
    std::uint32_t batch_max_bytes = 64 * 1024;  // batch.max_bytes
    std::chrono::microseconds linger{5000};     // batch.linger
    // [reset]
    reset_policy reset;              // reset.policy (adaptive, never, every N objects or bytes)
    std::uint64_t table_budget = 0;  // reset.table_budget; 0: the daemon's
    // [flow]
    std::uint64_t max_in_flight = 8 * 1024 * 1024;  // flow.max_in_flight
    // Objects of async_send and async_send_many started and not completed; one more fails at
    // once with client_errc::too_many_in_flight. 0: no limit.
    std::uint64_t max_async_sends = 100'000;  // flow.max_async_sends
    // [limits]: what this client accepts from the daemon
    std::uint32_t max_frame_bytes = 16 * 1024 * 1024;  // limits.max_frame_bytes
    std::uint32_t max_depth = 64;                      // limits.max_depth
    // [read]: what a reader accepts from the daemon it reads
    std::uint64_t read_max_block_bytes = 64 * 1024 * 1024;     // read.max_block_bytes
    std::uint64_t read_max_block_objects = 16 * 1024 * 1024;   // read.max_block_objects
    std::uint64_t read_max_decoded_bytes = 256 * 1024 * 1024;  // read.max_decoded_bytes
    // [compression] (docs/COMPRESSION.md)
    compression_mode compression = compression_mode::automatic;  // compression.policy
    codec_id codec = codec_id::zstd;                  // compression.codec: zlib, zstd or lz4
    std::uint32_t compression_level = 0;              // compression.level
    std::uint32_t compression_min_frame_bytes = 512;  // compression.min_frame_bytes
    std::uint64_t link_bits_per_second = 0;  // compression.link_bandwidth; 0: measured ("auto")
    // [socket]
    std::uint32_t send_buffer = 0;  // socket.send_buffer (SO_SNDBUF); 0: the kernel's
    std::uint32_t recv_buffer = 0;  // socket.recv_buffer (SO_RCVBUF); 0: the kernel's
    bool nodelay = true;            // socket.nodelay
    // [tls] (docs/SECURITY.md, "Access")
    bool tls = false;             // tls.enabled
    std::string tls_ca_file;      // tls.ca_file
    std::string tls_cert_file;    // tls.cert_file
    std::string tls_key_file;     // tls.key_file
    std::string tls_server_name;  // tls.server_name; "": the host
    // [auth]
    std::string auth_token_file;  // auth.token_file
    // [types.NAME] transient = ["field", ...]: fields of record type NAME never sent
    std::map<std::string, std::vector<std::string>, std::less<>> transient;
    // [lazy] (docs/COMPRESSION.md, "Lazy values")
    std::vector<std::string> lazy_fields;  // lazy.fields: ["Type.field", ...]
    std::uint64_t lazy_min_bytes = 0;      // lazy.min_bytes; 0: off
    codec_id lazy_codec = codec_id::zstd;  // lazy.codec: zlib, zstd or lz4
    // Not a key: the relays the stream already passed (hello field 17, docs/PROTOCOL.md 1.5),
    // set by objwired's forward sink for its connection to the next hop; empty otherwise.
    std::vector<std::string> relay_path;

    friend bool operator==(const options&, const options&) = default;
};

// "": every field is in range. Otherwise the first that is not, by its field, the value it
// holds and the rule it breaks: "options.batch_max_bytes = 10 is out of range (allowed
// 1KiB..16MiB)".
std::string check_options(const options& o);

// Fills `out` from a settings file with objwire.toml's keys: the defaults, then every key of
// the file. On an error, `why` names the file, the line and the key, and `out` is unchanged.
bool load_options(const std::string& path, options& out, std::string& why);

}  // namespace objwire::client
