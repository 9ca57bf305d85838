// The rules a string setting follows beyond its type (config/schema.hpp).
#include "config/schema.hpp"
#include "config/toml_document.hpp"

#include "proto/reset_policy.hpp"

namespace objwire::config::detail {

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
    if (hp) return "";
    // convert() writes the value before the reason: not twice.
    auto why = hp.error().message;
    if (const auto quoted = quote_toml(text) + " "; why.starts_with(quoted))
        why.erase(0, quoted.size());
    return why + " (or \"\" for off)";
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

}  // namespace objwire::config::detail
