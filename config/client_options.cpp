#include "config/client_options.hpp"

#include <tuple>
#include <utility>

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

// The fields that hold the same value on both sides: (options member, settings member).
// One list for both directions, so that neither can miss a field the other copies.
constexpr auto same_fields = std::make_tuple(
    std::pair{&client::options::host, &client_settings::to_host},
    std::pair{&client::options::port, &client_settings::to_port},
    std::pair{&client::options::connect_timeout, &client_settings::connect_timeout},
    std::pair{&client::options::sender_id, &client_settings::sender_id},
    std::pair{&client::options::retry_for, &client_settings::resume_retry_for},
    std::pair{&client::options::max_replay_bytes, &client_settings::resume_max_replay_bytes},
    std::pair{&client::options::max_frame_bytes, &client_settings::max_frame_bytes},
    std::pair{&client::options::max_depth, &client_settings::max_depth},
    std::pair{&client::options::read_max_block_bytes, &client_settings::read_max_block_bytes},
    std::pair{&client::options::read_max_block_objects, &client_settings::read_max_block_objects},
    std::pair{&client::options::read_max_decoded_bytes, &client_settings::read_max_decoded_bytes},
    std::pair{&client::options::send_buffer, &client_settings::send_buffer},
    std::pair{&client::options::recv_buffer, &client_settings::recv_buffer},
    std::pair{&client::options::nodelay, &client_settings::nodelay},
    std::pair{&client::options::tls, &client_settings::tls_enabled},
    std::pair{&client::options::tls_ca_file, &client_settings::tls_ca_file},
    std::pair{&client::options::tls_cert_file, &client_settings::tls_cert_file},
    std::pair{&client::options::tls_key_file, &client_settings::tls_key_file},
    std::pair{&client::options::tls_server_name, &client_settings::tls_server_name},
    std::pair{&client::options::auth_token_file, &client_settings::auth_token_file},
    std::pair{&client::options::batch_max_bytes, &client_settings::batch_max_bytes},
    std::pair{&client::options::linger, &client_settings::batch_linger},
    std::pair{&client::options::table_budget, &client_settings::table_budget},
    std::pair{&client::options::max_in_flight, &client_settings::max_in_flight},
    std::pair{&client::options::compression_level, &client_settings::compression_level},
    std::pair{&client::options::compression_min_frame_bytes,
              &client_settings::compression_min_frame_bytes},
    std::pair{&client::options::transient, &client_settings::transient},
    std::pair{&client::options::lazy_fields, &client_settings::lazy_fields},
    std::pair{&client::options::lazy_min_bytes, &client_settings::lazy_min_bytes});

template <class Copy>
void for_each_same_field(Copy copy) {
    std::apply([&](const auto&... field) { (copy(field.first, field.second), ...); }, same_fields);
}

}  // namespace

client::options to_options(const client_settings& s) {
    client::options o;
    for_each_same_field([&](auto to, auto from) { o.*to = s.*from; });
    // The settings hold these as text, checked by the loader.
    if (auto policy = reset_policy::parse(s.reset_policy)) o.reset = *policy;
    o.compression = parse_mode(s.compression_policy).value_or(compression_mode::automatic);
    o.codec = codec_of(s.compression_codec);
    o.link_bits_per_second = bandwidth_of(s.link_bandwidth);
    o.lazy_codec = codec_of(s.lazy_codec);
    return o;
}

client_settings from_options(const client::options& o) {
    client_settings s;
    for_each_same_field([&](auto from, auto to) { s.*to = o.*from; });
    s.reset_policy = o.reset.to_string();
    s.compression_policy = std::string(mode_name(o.compression));
    s.compression_codec = std::string(codec_name(o.codec));
    s.link_bandwidth = bandwidth_text(o.link_bits_per_second);
    s.lazy_codec = std::string(codec_name(o.lazy_codec));
    return s;
}

client_settings::operator client::options() const {
    return to_options(*this);
}

}  // namespace objwire::config
