// Standard base64 (RFC 4648: A-Z a-z 0-9 + /, '=' padding): how bytes values travel in JSON
// ({"$bytes":"..."}, proto/json_writer.hpp) and how the workloads write binary fields.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace objwire {

// The length of the base64 text of `n` bytes, padding included.
constexpr std::size_t base64_length(std::size_t n) {
    return (n + 2) / 3 * 4;
}

// Writes the base64 text of `data` at `out`, base64_length(data.size()) characters, and returns
// the end of what it wrote.
char* write_base64(std::span<const std::uint8_t> data, char* out);

// Appends the base64 text of `data` to `out`.
void append_base64(std::string& out, std::span<const std::uint8_t> data);

// Decodes padded base64 `text` into `out`. nullopt on success; else the offset of the first
// character that is not base64, or text.size() when the length is not a multiple of 4.
std::optional<std::size_t> decode_base64(std::string_view text, std::vector<std::uint8_t>& out);

}  // namespace objwire
