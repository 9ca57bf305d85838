#include "config/client_options.hpp"

#include "proto/codec.hpp"

namespace objwire::config {
namespace {

// The settings' codec names are checked against compression_codecs by the loader.
codec_id codec_of(std::string_view name) {
    return parse_codec(name).value_or(codec_id::none);
}

std::uint64_t bandwidth_of(const std::string& text) {
    if (text == "auto") return 0;
    const auto bps = parse_bandwidth(text);
    return bps ? *bps : 0;
}

std::string bandwidth_text(std::uint64_t bits_per_second) {
    return bits_per_second == 0 ? "auto" : std::to_string(bits_per_second) + "bit";
}

void copy_sending(const client_settings& s, client::options& o) {
    o.batch_max_bytes = s.batch_max_bytes;
    o.linger = s.batch_linger;
    if (auto policy = reset_policy::parse(s.reset_policy)) o.reset = *policy;
    o.table_budget = s.table_budget;
    o.max_in_flight = s.max_in_flight;
    o.compression = parse_mode(s.compression_policy).value_or(compression_mode::automatic);
    o.codec = codec_of(s.compression_codec);
    o.compression_level = s.compression_level;
    o.compression_min_frame_bytes = s.compression_min_frame_bytes;
    o.link_bits_per_second = bandwidth_of(s.link_bandwidth);
    o.transient = s.transient;
    o.lazy_fields = s.lazy_fields;
    o.lazy_min_bytes = s.lazy_min_bytes;
    o.lazy_codec = codec_of(s.lazy_codec);
}

void copy_sending(const client::options& o, client_settings& s) {
    s.batch_max_bytes = o.batch_max_bytes;
    s.batch_linger = o.linger;
    s.reset_policy = o.reset.to_string();
    s.table_budget = o.table_budget;
    s.max_in_flight = o.max_in_flight;
    s.compression_policy = std::string(mode_name(o.compression));
    s.compression_codec = std::string(codec_name(o.codec));
    s.compression_level = o.compression_level;
    s.compression_min_frame_bytes = o.compression_min_frame_bytes;
    s.link_bandwidth = bandwidth_text(o.link_bits_per_second);
    s.transient = o.transient;
    s.lazy_fields = o.lazy_fields;
    s.lazy_min_bytes = o.lazy_min_bytes;
    s.lazy_codec = std::string(codec_name(o.lazy_codec));
}

}  // namespace

client::options to_options(const client_settings& s) {
    client::options o;
    o.host = s.to_host;
    o.port = s.to_port;
    o.connect_timeout = s.connect_timeout;
    o.sender_id = s.sender_id;
    o.retry_for = s.resume_retry_for;
    o.max_replay_bytes = s.resume_max_replay_bytes;
    o.max_frame_bytes = s.max_frame_bytes;
    o.max_depth = s.max_depth;
    o.read_max_block_bytes = s.read_max_block_bytes;
    o.read_max_block_objects = s.read_max_block_objects;
    o.read_max_decoded_bytes = s.read_max_decoded_bytes;
    o.send_buffer = s.send_buffer;
    o.recv_buffer = s.recv_buffer;
    o.nodelay = s.nodelay;
    o.tls = s.tls_enabled;
    o.tls_ca_file = s.tls_ca_file;
    o.tls_cert_file = s.tls_cert_file;
    o.tls_key_file = s.tls_key_file;
    o.tls_server_name = s.tls_server_name;
    o.auth_token_file = s.auth_token_file;
    copy_sending(s, o);
    return o;
}

client_settings from_options(const client::options& o) {
    client_settings s;
    s.to_host = o.host;
    s.to_port = o.port;
    s.connect_timeout = o.connect_timeout;
    s.sender_id = o.sender_id;
    s.resume_retry_for = o.retry_for;
    s.resume_max_replay_bytes = o.max_replay_bytes;
    s.max_frame_bytes = o.max_frame_bytes;
    s.max_depth = o.max_depth;
    s.read_max_block_bytes = o.read_max_block_bytes;
    s.read_max_block_objects = o.read_max_block_objects;
    s.read_max_decoded_bytes = o.read_max_decoded_bytes;
    s.send_buffer = o.send_buffer;
    s.recv_buffer = o.recv_buffer;
    s.nodelay = o.nodelay;
    s.tls_enabled = o.tls;
    s.tls_ca_file = o.tls_ca_file;
    s.tls_cert_file = o.tls_cert_file;
    s.tls_key_file = o.tls_key_file;
    s.tls_server_name = o.tls_server_name;
    s.auth_token_file = o.auth_token_file;
    copy_sending(o, s);
    return s;
}

client_settings::operator client::options() const {
    return to_options(*this);
}

}  // namespace objwire::config
