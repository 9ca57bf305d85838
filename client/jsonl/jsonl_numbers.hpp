// Numbers of JSON text read without simdjson: the integers and plain decimals that most
// lines hold (timestamps, ids, measurements), in fewer instructions than its general parser.
#pragma once

#include <cstdint>
#include <cstring>

namespace objwire::jsonl_detail {

// Whether the 8 bytes in `chunk` are all ASCII digits (simdjson's test, without its call).
inline bool eight_digits(std::uint64_t chunk) {
    return ((chunk & 0xF0F0F0F0F0F0F0F0) |
            (((chunk + 0x0606060606060606) & 0xF0F0F0F0F0F0F0F0) >> 4)) == 0x3333333333333333;
}

// The value of 8 ASCII digits, first digit in the lowest byte.
inline std::uint32_t eight_digit_value(std::uint64_t chunk) {
    const std::uint64_t mask = 0x000000FF000000FF;
    const std::uint64_t mul1 = 0x000F424000000064;  // 100 + (1000000 << 32)
    const std::uint64_t mul2 = 0x0000271000000001;  // 1 + (10000 << 32)
    chunk -= 0x3030303030303030;
    chunk = (chunk * 10) + (chunk >> 8);
    chunk = (((chunk & mask) * mul1) + (((chunk >> 16) & mask) * mul2)) >> 32;
    return static_cast<std::uint32_t>(chunk);
}

// What a number token at p is, read without simdjson: an integer of 1 to 18 digits (no
// leading zero) followed by a byte that may end one - then `x` holds it; a decimal fraction
// without exponent whose digits make at most 2^53 - then `d` holds it, the one division by an
// exact power of ten giving the correctly rounded double as simdjson's own fast path does;
// another number with a fraction or an exponent; or anything else (longer, malformed...),
// left to simdjson. Reads up to 16 bytes from p: the line is followed by at least
// SIMDJSON_PADDING bytes.
enum class number_shape { integer, decimal, fraction, other };
[[gnu::always_inline]] inline bool is_digit(char c) {
    return static_cast<unsigned char>(c - '0') < 10;
}
[[gnu::always_inline]] inline bool ends_number(char c) {
    return c == ',' || c == '}' || c == ']' || c == ' ' || c == '\t' || c == '\r' || c == '\n';
}
[[gnu::always_inline]] inline number_shape read_number(const char* p, std::int64_t& x, double& d) {
    static constexpr double powers_of_ten[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,
                                               1e7,  1e8,  1e9,  1e10, 1e11, 1e12, 1e13,
                                               1e14, 1e15, 1e16, 1e17, 1e18};
    const bool negative = *p == '-';
    p += negative;
    const char* digits = p;
    std::uint64_t v = 0;
    for (int i = 0; i < 2; ++i) {  // the long ones (timestamps, ids) 8 digits at a time
        std::uint64_t chunk;
        std::memcpy(&chunk, p, 8);
        if (!eight_digits(chunk)) break;
        v = v * 100000000 + eight_digit_value(chunk);
        p += 8;
    }
    while (is_digit(*p) && p - digits < 19)
        v = 10 * v + static_cast<unsigned char>(*p++ - '0');
    const auto count = p - digits;
    if (count == 0 || (count > 1 && *digits == '0')) return number_shape::other;
    if (*p == '.') {
        const char* fraction = ++p;
        while (is_digit(*p) && (p - fraction) + count < 19)
            v = 10 * v + static_cast<unsigned char>(*p++ - '0');
        const auto places = p - fraction;
        if (places == 0 || !ends_number(*p) || v > (std::uint64_t{1} << 53))
            return number_shape::fraction;  // an exponent, more digits, or malformed
        d = static_cast<double>(v) / powers_of_ten[places];
        if (negative) d = -d;
        return number_shape::decimal;
    }
    if (*p == 'e' || *p == 'E') return number_shape::fraction;
    if (count > 18 || !ends_number(*p)) return number_shape::other;  // 18 digits cannot overflow
    x = negative ? -static_cast<std::int64_t>(v) : static_cast<std::int64_t>(v);
    return number_shape::integer;
}

}  // namespace objwire::jsonl_detail
