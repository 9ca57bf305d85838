#include "config/client_options.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <optional>
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
    std::pair{&client::options::max_async_sends, &client_settings::max_async_sends},
    std::pair{&client::options::compression_level, &client_settings::compression_level},
    std::pair{&client::options::compression_min_frame_bytes,
              &client_settings::compression_min_frame_bytes},
    std::pair{&client::options::transient, &client_settings::transient},
    std::pair{&client::options::lazy_fields, &client_settings::lazy_fields},
    std::pair{&client::options::lazy_min_bytes, &client_settings::lazy_min_bytes},
    std::pair{&client::options::relay_path, &client_settings::relay_path});

template <class Copy>
void for_each_same_field(Copy copy) {
    std::apply([&](const auto&... field) { (copy(field.first, field.second), ...); }, same_fields);
}

// Each key's field of client::options (client.to is two: host and port).
constexpr std::array<std::pair<std::string_view, std::string_view>, 34> field_of_key{{
    {"client.to", "host"},
    {"client.connect_timeout", "connect_timeout"},
    {"client.sender_id", "sender_id"},
    {"resume.retry_for", "retry_for"},
    {"resume.max_replay_bytes", "max_replay_bytes"},
    {"batch.max_bytes", "batch_max_bytes"},
    {"batch.linger", "linger"},
    {"reset.policy", "reset"},
    {"reset.table_budget", "table_budget"},
    {"flow.max_in_flight", "max_in_flight"},
    {"flow.max_async_sends", "max_async_sends"},
    {"limits.max_frame_bytes", "max_frame_bytes"},
    {"limits.max_depth", "max_depth"},
    {"read.max_block_bytes", "read_max_block_bytes"},
    {"read.max_block_objects", "read_max_block_objects"},
    {"read.max_decoded_bytes", "read_max_decoded_bytes"},
    {"compression.policy", "compression"},
    {"compression.codec", "codec"},
    {"compression.level", "compression_level"},
    {"compression.min_frame_bytes", "compression_min_frame_bytes"},
    {"compression.link_bandwidth", "link_bits_per_second"},
    {"socket.send_buffer", "send_buffer"},
    {"socket.recv_buffer", "recv_buffer"},
    {"socket.nodelay", "nodelay"},
    {"tls.enabled", "tls"},
    {"tls.ca_file", "tls_ca_file"},
    {"tls.cert_file", "tls_cert_file"},
    {"tls.key_file", "tls_key_file"},
    {"tls.server_name", "tls_server_name"},
    {"auth.token_file", "auth_token_file"},
    {"lazy.fields", "lazy_fields"},
    {"lazy.min_bytes", "lazy_min_bytes"},
    {"lazy.codec", "lazy_codec"},
    {"types.NAME.transient", "transient"},
}};

// "types.Order.transient" is the key "types.NAME.transient".
std::string_view schema_key(std::string_view key) {
    if (key.starts_with("types.") && key.ends_with(".transient")) return "types.NAME.transient";
    return key;
}

// The line of `message` ("options:LINE:COL: ...") and the text after its place.
std::optional<std::pair<std::uint32_t, std::string_view>> split_place(std::string_view message) {
    const auto first = message.find(':');
    const auto second = message.find(':', first + 1);
    const auto third = message.find(':', second + 1);
    if (third == std::string_view::npos) return std::nullopt;
    std::uint32_t line = 0;
    const auto digits = message.substr(first + 1, second - first - 1);
    if (std::from_chars(digits.data(), digits.data() + digits.size(), line).ec != std::errc{})
        return std::nullopt;
    auto rest = message.substr(third + 1);
    if (rest.starts_with(' ')) rest.remove_prefix(1);
    return std::pair{line, rest};
}

// A size, duration or bandwidth is written in TOML as a string ("8MiB"); in C++ it is a number.
std::string unquoted_if_number(std::string_view key, std::string display) {
    const auto keys = client_keys();
    const auto it = std::find_if(keys.begin(), keys.end(),
                                 [&](const key_info& k) { return k.name == schema_key(key); });
    const bool number = it != keys.end() &&
                        (it->kind == "size" || it->kind == "duration" || it->kind == "bandwidth");
    if (number && display.size() >= 2 && display.front() == '"')
        return display.substr(1, display.size() - 2);
    return display;
}

// `'client.to' = "H:P" REASON`: the port's range, or the host.
std::string host_port_error(const client::options& o, std::string_view reason) {
    if (reason.find("out of range") != std::string_view::npos) {
        std::string port_reason(reason);  // the port alone: "allowed 1..65535"
        if (const auto at = port_reason.find("HOST:PORT, port "); at != std::string::npos)
            port_reason.erase(at, 16);
        return "options.port = " + std::to_string(o.port) + " " + port_reason;
    }
    return "options.host = \"" + o.host + "\" " + std::string(reason);
}

// REST of a message that names `key` first: `'KEY' = DISPLAY REASON` or `'KEY' REASON`.
std::string field_error(const client::options& o, std::string_view key, std::string_view rest) {
    const std::string quoted = "'" + std::string(key) + "'";
    if (!rest.starts_with(quoted)) return std::string(rest);
    rest.remove_prefix(quoted.size());
    std::string display;
    if (rest.starts_with(" = ")) {
        rest.remove_prefix(3);
        const auto end = rest.starts_with('"') ? rest.find('"', 1) + 1 : rest.find(' ');
        display = std::string(rest.substr(0, end));
        rest.remove_prefix(std::min(end, rest.size()));
    }
    if (rest.starts_with(' ')) rest.remove_prefix(1);
    if (key == "client.to") return host_port_error(o, rest);
    std::string field(option_field(key));
    if (key.starts_with("types."))
        field += "[\"" + std::string(key.substr(6, key.size() - 16)) + "\"]";
    std::string out = "options." + field;
    if (!display.empty()) out += " = " + unquoted_if_number(key, display);
    return out + " " + std::string(rest);
}

}  // namespace

std::string_view option_field(std::string_view key) {
    const auto k = schema_key(key);
    for (const auto& [name, field] : field_of_key)
        if (name == k) return field;
    return {};
}

std::string options_error(const client::options& o, std::string_view toml,
                          std::string_view settings_error) {
    const auto first_line = settings_error.substr(0, settings_error.find('\n'));
    const auto place = split_place(first_line);
    const auto lines = key_lines(toml, "options");
    if (!place || !lines) return std::string(first_line);
    const auto at = std::find_if(lines->begin(), lines->end(),
                                 [&](const key_line& l) { return l.line == place->first; });
    if (at == lines->end()) return std::string(place->second);
    return field_error(o, at->key, place->second);
}

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
