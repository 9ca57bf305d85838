// The hash of the encoder's string index and type map. std::hash (murmur over bytes) was a
// tenth of encoding `events`; strings here are mostly short (field values, names), so this
// one reads at most two overlapping words for up to 16 bytes and mixes with one 128-bit
// multiply (the wyhash construction). Not keyed: the table's own budget and probe bound, not
// the hash, are what a hostile peer meets.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

namespace objwire {

namespace string_hash_detail {

__extension__ typedef unsigned __int128 u128;  // g++ and clang; -Wpedantic knows no __int128

inline std::uint64_t mix(std::uint64_t a, std::uint64_t b) {
    const u128 r = static_cast<u128>(a) * b;
    return static_cast<std::uint64_t>(r) ^ static_cast<std::uint64_t>(r >> 64);
}
inline std::uint64_t load8(const unsigned char* p) {
    std::uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
}
inline std::uint64_t load4(const unsigned char* p) {
    std::uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
}

inline constexpr std::uint64_t k0 = 0xa0761d6478bd642full;
inline constexpr std::uint64_t k1 = 0xe7037ed1a0b428dbull;
inline constexpr std::uint64_t k2 = 0x8ebc6af09c88c6e3ull;

}  // namespace string_hash_detail

inline std::uint64_t hash_string(std::string_view s) {
    using namespace string_hash_detail;
    const auto* p = reinterpret_cast<const unsigned char*>(s.data());
    std::size_t n = s.size();
    std::uint64_t seed = k0;
    std::uint64_t a = 0;
    std::uint64_t b = 0;
    if (n <= 16) {
        if (n >= 8) {
            a = load8(p);
            b = load8(p + n - 8);
        } else if (n >= 4) {
            a = load4(p);
            b = load4(p + n - 4);
        } else if (n > 0) {
            a = (std::uint64_t{p[0]} << 16) | (std::uint64_t{p[n >> 1]} << 8) | p[n - 1];
        }
    } else {
        // Whole 16-byte steps, then the last 16 bytes (overlapping the last step's if need be:
        // the string is longer than 16, so they lie inside it).
        const unsigned char* end = p + n;
        while (n > 16) {
            seed = mix(load8(p) ^ k1, load8(p + 8) ^ seed);
            p += 16;
            n -= 16;
        }
        a = load8(end - 16);
        b = load8(end - 8);
    }
    return mix(k1 ^ s.size(), mix(a ^ k1, b ^ seed) ^ k2);
}

// A word that, with the length, identifies a string of up to whole_print_max bytes exactly
// (it holds all of them) and a longer one by its last 8 bytes: what the encoder's memos and
// the table's cache of short strings compare first, or only.
inline constexpr std::size_t whole_print_max = 8;
inline std::uint64_t string_print(std::string_view s) {
    using namespace string_hash_detail;
    const std::size_t n = s.size();
    const auto* p = reinterpret_cast<const unsigned char*>(s.data());
    if (n >= 8) return load8(p + n - 8);
    if (n >= 4) return load4(p) | load4(p + n - 4) << 32;
    if (n == 0) return 0;
    return std::uint64_t{p[0]} | std::uint64_t{p[n / 2]} << 8 | std::uint64_t{p[n - 1]} << 16;
}

// Equality for the index's keys, which are mostly short: up to 16 bytes in two overlapping
// words (as the hash reads them) instead of a call to memcmp.
inline bool same_string(std::string_view x, std::string_view y) {
    using namespace string_hash_detail;
    const std::size_t n = x.size();
    if (n != y.size()) return false;
    const auto* p = reinterpret_cast<const unsigned char*>(x.data());
    const auto* q = reinterpret_cast<const unsigned char*>(y.data());
    if (n >= 8 && n <= 16)
        return ((load8(p) ^ load8(q)) | (load8(p + n - 8) ^ load8(q + n - 8))) == 0;
    if (n >= 4 && n < 8)
        return ((load4(p) ^ load4(q)) | (load4(p + n - 4) ^ load4(q + n - 4))) == 0;
    return n == 0 || std::memcmp(p, q, n) == 0;
}

}  // namespace objwire
