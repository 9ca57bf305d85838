// Strings of lowercase hex digits - ids, hashes, trace ids - travel packed two digits a byte
// (wire tag 0x15, docs/PROTOCOL.md section 4): a 16-digit id costs 10 bytes instead of 18.
// Only literal strings of an even length of at least 4 qualify, so the packed form is always
// shorter and a string has one form.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace objwire {

inline constexpr std::size_t hex_string_min_digits = 4;

namespace hex_detail {
// Value of each byte as a lowercase hex digit, -1 for any other byte.
constexpr auto digit_values = [] {
    std::array<std::int8_t, 256> t{};
    for (auto& v : t)
        v = -1;
    for (int c = '0'; c <= '9'; ++c)
        t[static_cast<std::size_t>(c)] = static_cast<std::int8_t>(c - '0');
    for (int c = 'a'; c <= 'f'; ++c)
        t[static_cast<std::size_t>(c)] = static_cast<std::int8_t>(c - 'a' + 10);
    return t;
}();
}  // namespace hex_detail

// Packs `s` into out[0, s.size() / 2) and says true when it qualifies; false as soon as a
// byte is not a lowercase hex digit (out then holds garbage). One pass: the check is the
// packing, and ordinary text stops at its first letter past 'f'.
inline bool try_pack_hex(std::string_view s, std::uint8_t* out) {
    if (s.size() < hex_string_min_digits || s.size() % 2 != 0) return false;
    const auto* p = reinterpret_cast<const unsigned char*>(s.data());
    for (std::size_t i = 0; i < s.size(); i += 2) {
        const int hi = hex_detail::digit_values[p[i]];
        const int lo = hex_detail::digit_values[p[i + 1]];
        if ((hi | lo) < 0) return false;
        out[i / 2] = static_cast<std::uint8_t>((hi << 4) | lo);
    }
    return true;
}

namespace hex_detail {
// The two digits of each byte value: one 2-byte copy per byte instead of two lookups.
constexpr auto digit_pairs = [] {
    std::array<std::array<char, 2>, 256> t{};
    constexpr char digits[] = "0123456789abcdef";
    for (std::size_t b = 0; b < 256; ++b)
        t[b] = {digits[b >> 4], digits[b & 0x0F]};
    return t;
}();
}  // namespace hex_detail

// The digits of `packed`, replacing what `out` held.
inline void unpack_hex(const std::uint8_t* packed, std::size_t n, std::string& out) {
    out.resize(n * 2);
    char* o = out.data();
    for (std::size_t i = 0; i < n; ++i)
        std::memcpy(o + 2 * i, hex_detail::digit_pairs[packed[i]].data(), 2);
}

}  // namespace objwire
