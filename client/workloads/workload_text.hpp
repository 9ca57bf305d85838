// Internal to the workload generators (client/workloads/workloads.hpp): the pieces their JSON lines
// are printed with, into stack buffers - integers, fixed-width hex, small numbers - without a
// string call per piece. Strings and bytes go through proto's JSON writer and base64.
#pragma once

#include <array>
#include <bit>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace objwire::workloads::detail {

// --- JSON text pieces ---

inline char* put(char* p, std::string_view s) {
    std::memcpy(p, s.data(), s.size());
    return p + s.size();
}

inline char* put_int(char* p, std::int64_t i) {
    return std::to_chars(p, p + 20, i).ptr;
}

// The 8 lowercase hex digits of `x`, most significant first, as the bytes of the result in
// memory order: each nibble is spread into its own byte and turned into a digit, all 8 at
// once (no per-digit loop or table).
inline std::uint64_t hex8(std::uint32_t x) {
    std::uint64_t v = x;
    v = (v | v << 16) & 0x0000'FFFF'0000'FFFFULL;
    v = (v | v << 8) & 0x00FF'00FF'00FF'00FFULL;
    v = (v | v << 4) & 0x0F0F'0F0F'0F0F'0F0FULL;  // nibble k in byte k
    // 0x01 in the bytes whose nibble is 10..15, which get 'a' - '0' - 10 = 39 more.
    std::uint64_t letters = ((v + 0x0606'0606'0606'0606ULL) >> 4) & 0x0101'0101'0101'0101ULL;
    v += 0x3030'3030'3030'3030ULL + letters * 39;
    return __builtin_bswap64(v);  // the most significant nibble first in memory (little-endian)
}

inline char* put_hex8(char* p, std::uint32_t x) {
    static_assert(std::endian::native == std::endian::little);
    std::uint64_t digits = hex8(x);
    std::memcpy(p, &digits, 8);
    return p + 8;
}

// The 16 lowercase hex digits of `x`, most significant first (the events' user). With SSE2
// all 16 nibbles are spread into bytes and turned into digits in one register, about a third
// of the instructions of two put_hex8.
inline char* put_hex16(char* p, std::uint64_t x) {
#if defined(__SSE2__)
    const __m128i low_nibbles = _mm_set1_epi8(0x0F);
    __m128i b = _mm_cvtsi64_si128(static_cast<long long>(__builtin_bswap64(x)));  // MSB first
    __m128i high = _mm_and_si128(_mm_srli_epi16(b, 4), low_nibbles);
    __m128i low = _mm_and_si128(b, low_nibbles);
    __m128i nibbles = _mm_unpacklo_epi8(high, low);  // one per byte, in digit order
    // '0' + nibble, and 'a' - '0' - 10 = 39 more for the nibbles 10..15.
    __m128i letters = _mm_and_si128(_mm_cmpgt_epi8(nibbles, _mm_set1_epi8(9)), _mm_set1_epi8(39));
    __m128i digits = _mm_add_epi8(_mm_add_epi8(nibbles, _mm_set1_epi8('0')), letters);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), digits);
    return p + 16;
#else
    return put_hex8(put_hex8(p, static_cast<std::uint32_t>(x >> 32)),
                    static_cast<std::uint32_t>(x));
#endif
}

// Decimal digits of n < 100,000 (the events' {n}) from a table of digit pairs.
inline char* put_below_100000(char* p, std::uint32_t n) {
    static constexpr auto pairs = [] {
        std::array<char, 200> t{};
        for (int i = 0; i < 100; ++i) {
            t[2 * i] = static_cast<char>('0' + i / 10);
            t[2 * i + 1] = static_cast<char>('0' + i % 10);
        }
        return t;
    }();
    auto pair = [&](std::uint32_t two) {
        std::memcpy(p, &pairs[2 * two], 2);
        p += 2;
    };
    if (n < 100) {
        if (n < 10)
            *p++ = static_cast<char>('0' + n);
        else
            pair(n);
        return p;
    }
    std::uint32_t high = n / 100, low = n % 100;  // high < 1000
    if (high < 10)
        *p++ = static_cast<char>('0' + high);
    else if (high < 100)
        pair(high);
    else {
        *p++ = static_cast<char>('0' + high / 100);
        pair(high % 100);
    }
    pair(low);
    return p;
}

inline void append_int(std::string& out, std::int64_t i) {
    char buf[24];
    out.append(buf, put_int(buf, i));
}

}  // namespace objwire::workloads::detail
