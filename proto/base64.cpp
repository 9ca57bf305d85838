#include "proto/base64.hpp"

#include <array>

namespace objwire {
namespace {

constexpr char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// The 6-bit value of each base64 character, -1 for the rest.
constexpr auto values = [] {
    std::array<std::int8_t, 256> t{};
    t.fill(-1);
    for (int i = 0; i < 64; ++i)
        t[static_cast<unsigned char>(alphabet[i])] = static_cast<std::int8_t>(i);
    return t;
}();

}  // namespace

char* write_base64(std::span<const std::uint8_t> data, char* o) {
    const std::size_t n = data.size();
    const std::uint8_t* in = data.data();
    std::size_t i = 0;
    for (; i + 3 <= n; i += 3) {
        const std::uint32_t v =
            (std::uint32_t{in[i]} << 16) | (std::uint32_t{in[i + 1]} << 8) | in[i + 2];
        *o++ = alphabet[v >> 18];
        *o++ = alphabet[(v >> 12) & 63];
        *o++ = alphabet[(v >> 6) & 63];
        *o++ = alphabet[v & 63];
    }
    if (const std::size_t rest = n - i; rest > 0) {
        std::uint32_t v = std::uint32_t{in[i]} << 16;
        if (rest == 2) v |= std::uint32_t{in[i + 1]} << 8;
        *o++ = alphabet[v >> 18];
        *o++ = alphabet[(v >> 12) & 63];
        *o++ = rest == 2 ? alphabet[(v >> 6) & 63] : '=';
        *o++ = '=';
    }
    return o;
}

void append_base64(std::string& out, std::span<const std::uint8_t> data) {
    const std::size_t start = out.size();
    out.resize(start + base64_length(data.size()));
    write_base64(data, out.data() + start);
}

std::optional<std::size_t> decode_base64(std::string_view s, std::vector<std::uint8_t>& out) {
    out.clear();
    const std::size_t n = s.size();
    std::size_t pad = 0;
    if (n >= 1 && s[n - 1] == '=') ++pad;
    if (n >= 2 && s[n - 2] == '=') ++pad;
    const std::size_t body = n - pad;
    for (std::size_t i = 0; i < body; ++i)
        if (values[static_cast<unsigned char>(s[i])] < 0) return i;
    if (n % 4 != 0) return n;
    out.resize(n / 4 * 3 - pad);
    std::uint8_t* o = out.data();
    const auto at = [&](std::size_t k) {
        return static_cast<std::uint32_t>(values[static_cast<unsigned char>(s[k])]);
    };
    std::size_t i = 0;
    for (; i + 4 <= body; i += 4) {
        const std::uint32_t v = (at(i) << 18) | (at(i + 1) << 12) | (at(i + 2) << 6) | at(i + 3);
        *o++ = static_cast<std::uint8_t>(v >> 16);
        *o++ = static_cast<std::uint8_t>(v >> 8);
        *o++ = static_cast<std::uint8_t>(v);
    }
    if (pad == 2) {
        const std::uint32_t v = (at(i) << 18) | (at(i + 1) << 12);
        *o++ = static_cast<std::uint8_t>(v >> 16);
    } else if (pad == 1) {
        const std::uint32_t v = (at(i) << 18) | (at(i + 1) << 12) | (at(i + 2) << 6);
        *o++ = static_cast<std::uint8_t>(v >> 16);
        *o++ = static_cast<std::uint8_t>(v >> 8);
    }
    return std::nullopt;
}

}  // namespace objwire
