// The encoder's word-at-a-time helpers for literal strings, which are most of the bytes it
// writes: packing lowercase hex digits eight at a time (the same result as try_pack_hex in
// proto/hex_string.hpp, which the decoder's side and the tests keep as the plain definition),
// and copying a short string while noting whether it is all ASCII, so the UTF-8 check of a
// short ASCII string costs no second pass.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "proto/byte_buffer.hpp"
#include "proto/hex_string.hpp"
#include "proto/wire.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace objwire::literal_detail {

static_assert(std::endian::native == std::endian::little,
              "the word-at-a-time string helpers read bytes in little-endian order");

inline constexpr std::uint64_t ones = 0x0101010101010101ull;
inline constexpr std::uint64_t high_bits = 0x8080808080808080ull;

inline std::uint64_t load8(const void* p) {
    std::uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
}
inline std::uint32_t load4(const void* p) {
    std::uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
}

// The 8 bytes of x (first byte lowest) as lowercase hex digits, packed two a byte into the low
// 4 bytes of `packed` (first digit in the high nibble of the first byte); false when a byte is
// not a lowercase hex digit.
inline bool pack_hex8(std::uint64_t x, std::uint32_t& packed) {
    // For a byte b < 0x80, b + (0x80 - lo) has its high bit set iff b >= lo, and
    // b + (0x7F - hi) iff b > hi; neither carries into the next byte. A byte >= 0x80 may
    // carry, but it fails the check by itself (its own high bit), so the result stays right.
    const std::uint64_t digit = (x + ones * (0x80 - '0')) & ~(x + ones * (0x7F - '9'));
    const std::uint64_t letter = (x + ones * (0x80 - 'a')) & ~(x + ones * (0x7F - 'f'));
    if (((digit | letter) & ~x & high_bits) != high_bits) return false;
    // '0'..'9' are 0x30..0x39 and 'a'..'f' 0x61..0x66: the low nibble, plus 9 for a letter.
    const std::uint64_t nibbles = (x & (ones * 0x0F)) + ((letter & high_bits) >> 7) * 9;
    // Byte 2j of t: (digit 2j << 4) | digit 2j+1; then the even bytes moved together.
    std::uint64_t t = ((nibbles << 4) | (nibbles >> 8)) & 0x00FF00FF00FF00FFull;
    t = (t | (t >> 8)) & 0x0000FFFF0000FFFFull;
    t = (t | (t >> 16)) & 0xFFFFFFFFull;
    packed = static_cast<std::uint32_t>(t);
    return true;
}

#if defined(__SSE2__)
// pack_hex8 for 16 digits at once (SSE2 is part of x86-64): 16 bytes at p to 8 at out.
inline bool pack_hex16(const char* p, std::uint8_t* out) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    // Signed byte comparisons: a byte >= 0x80 is negative, so neither a digit nor a letter.
    const __m128i digit = _mm_and_si128(_mm_cmpgt_epi8(x, _mm_set1_epi8('0' - 1)),
                                        _mm_cmplt_epi8(x, _mm_set1_epi8('9' + 1)));
    const __m128i letter = _mm_and_si128(_mm_cmpgt_epi8(x, _mm_set1_epi8('a' - 1)),
                                         _mm_cmplt_epi8(x, _mm_set1_epi8('f' + 1)));
    if (_mm_movemask_epi8(_mm_or_si128(digit, letter)) != 0xFFFF) return false;
    const __m128i nibbles = _mm_add_epi8(_mm_and_si128(x, _mm_set1_epi8(0x0F)),
                                         _mm_and_si128(letter, _mm_set1_epi8(9)));
    // 16-bit lane j holds digits 2j (low byte) and 2j+1: (digit 2j << 4) | digit 2j+1.
    const __m128i pairs =
        _mm_or_si128(_mm_slli_epi16(_mm_and_si128(nibbles, _mm_set1_epi16(0x000F)), 4),
                     _mm_srli_epi16(nibbles, 8));
    _mm_storel_epi64(reinterpret_cast<__m128i*>(out), _mm_packus_epi16(pairs, pairs));
    return true;
}
#endif

}  // namespace objwire::literal_detail

namespace objwire {

// try_pack_hex, a word at a time: packs `s` into out[0, s.size() / 2) and says true when it
// is an even number (at least hex_string_min_digits) of lowercase hex digits; false otherwise
// (out then holds garbage).
inline bool pack_hex_words(std::string_view s, std::uint8_t* out) {
    using namespace literal_detail;
    const std::size_t n = s.size();
    if (n < hex_string_min_digits || n % 2 != 0) return false;
    const char* p = s.data();
    std::uint32_t packed;
    if (n < 8) {  // 4 or 6 digits, padded with '0' to a word; only n / 2 bytes are stored
        char word[8] = {'0', '0', '0', '0', '0', '0', '0', '0'};
        std::memcpy(word, p, n);
        if (!pack_hex8(load8(word), packed)) return false;
        std::memcpy(out, &packed, n / 2);
        return true;
    }
    std::size_t i = 0;
#if defined(__SSE2__)
    if (n >= 16) {
        for (; i + 16 <= n; i += 16) {
            if (!pack_hex16(p + i, out + i / 2)) return false;
        }
        // The last 16 digits again, overlapping: n - 16 is even, so they pack to the last 8.
        return i == n || pack_hex16(p + n - 16, out + (n - 16) / 2);
    }
#endif
    for (; i + 8 <= n; i += 8) {
        if (!pack_hex8(load8(p + i), packed)) return false;
        std::memcpy(out + i / 2, &packed, 4);
    }
    // The last 8 digits again, overlapping: n - 8 is even, so they pack to the last 4 bytes.
    if (i < n) {
        if (!pack_hex8(load8(p + n - 8), packed)) return false;
        std::memcpy(out + (n - 8) / 2, &packed, 4);
    }
    return true;
}

// Strings up to this length are copied by copy_short_ascii; longer ones by memcpy, then checked.
inline constexpr std::size_t short_literal_max = 64;

// Copies s (at most short_literal_max bytes) to `to` and says whether every byte is ASCII.
inline bool copy_short_ascii(std::string_view s, std::uint8_t* to) {
    using namespace literal_detail;
    const std::size_t n = s.size();
    const char* p = s.data();
    if (n >= 8) {
        std::uint64_t seen = 0;
        std::size_t i = 0;
        for (; i + 8 <= n; i += 8) {
            const std::uint64_t w = load8(p + i);
            seen |= w;
            std::memcpy(to + i, &w, 8);
        }
        if (i < n) {  // the last word, overlapping the one before
            const std::uint64_t w = load8(p + n - 8);
            seen |= w;
            std::memcpy(to + n - 8, &w, 8);
        }
        return (seen & high_bits) == 0;
    }
    if (n >= 4) {
        const std::uint32_t a = load4(p);
        const std::uint32_t b = load4(p + n - 4);
        std::memcpy(to, &a, 4);
        std::memcpy(to + n - 4, &b, 4);
        return ((a | b) & 0x80808080u) == 0;
    }
    if (n == 0) return true;
    // 1..3 bytes: the first, middle and last cover them all.
    const auto first = static_cast<std::uint8_t>(p[0]);
    const auto middle = static_cast<std::uint8_t>(p[n / 2]);
    const auto last = static_cast<std::uint8_t>(p[n - 1]);
    to[0] = first;
    to[n / 2] = middle;
    to[n - 1] = last;
    return ((first | middle | last) & 0x80) == 0;
}

// A float64 value: its tag and the 8 bytes of the double, little-endian.
inline void put_float(byte_buffer& out, double d) {
    std::uint8_t* p = out.prepare(9);
    p[0] = wire::tag_float64;
    store_le(p + 1, std::bit_cast<std::uint64_t>(d));
    out.commit(9);
}

// `tag`, the length and the bytes of a literal (string or bytes).
inline void put_literal(byte_buffer& out, std::uint8_t tag, const void* p, std::size_t n) {
    out.put_u8(tag);
    out.put_varint(n);
    out.append(p, n);
}

}  // namespace objwire
