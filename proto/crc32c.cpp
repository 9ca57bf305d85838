#include "proto/crc32c.hpp"

#include <array>
#include <cstring>

#if defined(__x86_64__)
#include <nmmintrin.h>
#endif

namespace objwire {
namespace {

using table_t = std::array<std::array<std::uint32_t, 256>, 8>;

constexpr table_t make_tables() {
    table_t t{};
    for (std::uint32_t i = 0; i < 256; ++i) {
        std::uint32_t c = i;
        for (int k = 0; k < 8; ++k)
            c = (c >> 1) ^ (0x82F63B78u & (0u - (c & 1u)));
        t[0][i] = c;
    }
    for (std::uint32_t i = 0; i < 256; ++i)
        for (int s = 1; s < 8; ++s)
            t[s][i] = (t[s - 1][i] >> 8) ^ t[0][t[s - 1][i] & 0xFF];
    return t;
}

constexpr table_t tables = make_tables();

#if defined(__x86_64__)
// The crc32 instruction takes three cycles and can start one each cycle: three independent
// streams over adjacent blocks keep it busy, and their states are joined by "shifting" a state
// over a block of zero bytes, which is linear in the state - a lookup per byte of it.
constexpr std::size_t long_block = 8192;
constexpr std::size_t short_block = 256;

struct zeros_shift {
    std::array<std::array<std::uint32_t, 256>, 4> by_byte{};
    std::uint32_t operator()(std::uint32_t c) const {
        return by_byte[0][c & 0xFF] ^ by_byte[1][(c >> 8) & 0xFF] ^ by_byte[2][(c >> 16) & 0xFF] ^
               by_byte[3][c >> 24];
    }
};

__attribute__((target("sse4.2"))) zeros_shift make_zeros_shift(std::size_t bytes) {
    std::array<std::uint32_t, 32> basis{};
    for (std::size_t bit = 0; bit < 32; ++bit) {
        std::uint64_t c = std::uint32_t{1} << bit;
        for (std::size_t i = 0; i < bytes; i += 8)
            c = _mm_crc32_u64(c, 0);
        basis[bit] = static_cast<std::uint32_t>(c);
    }
    zeros_shift z;
    for (std::size_t k = 0; k < 4; ++k)
        for (std::uint32_t v = 0; v < 256; ++v)
            for (std::size_t b = 0; b < 8; ++b)
                if ((v >> b) & 1u) z.by_byte[k][v] ^= basis[8 * k + b];
    return z;
}

// Three streams over `block`-byte thirds of p[0, 3 * block), continuing state c.
template <std::size_t block>
__attribute__((target("sse4.2"))) std::uint64_t crc_three_blocks(std::uint64_t c,
                                                                 const std::uint8_t* p,
                                                                 const zeros_shift& shift) {
    std::uint64_t c1 = 0;
    std::uint64_t c2 = 0;
    for (std::size_t i = 0; i < block; i += 8) {
        std::uint64_t w0;
        std::uint64_t w1;
        std::uint64_t w2;
        std::memcpy(&w0, p + i, 8);
        std::memcpy(&w1, p + block + i, 8);
        std::memcpy(&w2, p + 2 * block + i, 8);
        c = _mm_crc32_u64(c, w0);
        c1 = _mm_crc32_u64(c1, w1);
        c2 = _mm_crc32_u64(c2, w2);
    }
    c = shift(static_cast<std::uint32_t>(c)) ^ c1;
    return shift(static_cast<std::uint32_t>(c)) ^ c2;
}

__attribute__((target("sse4.2"))) std::uint32_t crc32c_hw(const std::uint8_t* p, std::size_t n,
                                                          std::uint32_t crc) {
    static const zeros_shift long_shift = make_zeros_shift(long_block);
    static const zeros_shift short_shift = make_zeros_shift(short_block);
    std::uint64_t c = ~crc;
    for (; n >= 3 * long_block; n -= 3 * long_block, p += 3 * long_block)
        c = crc_three_blocks<long_block>(c, p, long_shift);
    for (; n >= 3 * short_block; n -= 3 * short_block, p += 3 * short_block)
        c = crc_three_blocks<short_block>(c, p, short_shift);
    while (n >= 8) {
        std::uint64_t w;
        std::memcpy(&w, p, 8);
        c = _mm_crc32_u64(c, w);
        p += 8;
        n -= 8;
    }
    auto c32 = static_cast<std::uint32_t>(c);
    while (n--)
        c32 = _mm_crc32_u8(c32, *p++);
    return ~c32;
}

bool have_sse42() {
    static const bool has = __builtin_cpu_supports("sse4.2");
    return has;
}
#endif

}  // namespace

std::uint32_t crc32c_portable(std::span<const std::uint8_t> data, std::uint32_t crc) noexcept {
    const std::uint8_t* p = data.data();
    std::size_t n = data.size();
    std::uint32_t c = ~crc;
    while (n >= 8) {
        std::uint32_t lo;
        std::uint32_t hi;
        std::memcpy(&lo, p, 4);
        std::memcpy(&hi, p + 4, 4);
        lo ^= c;
        c = tables[7][lo & 0xFF] ^ tables[6][(lo >> 8) & 0xFF] ^ tables[5][(lo >> 16) & 0xFF] ^
            tables[4][lo >> 24] ^ tables[3][hi & 0xFF] ^ tables[2][(hi >> 8) & 0xFF] ^
            tables[1][(hi >> 16) & 0xFF] ^ tables[0][hi >> 24];
        p += 8;
        n -= 8;
    }
    while (n--)
        c = (c >> 8) ^ tables[0][(c ^ *p++) & 0xFF];
    return ~c;
}

namespace {
constexpr std::uint32_t reflected_poly = 0x82F63B78u;

// a * b modulo the polynomial, bit-reflected as the checksum is.
std::uint32_t multiply_mod(std::uint32_t a, std::uint32_t b) noexcept {
    std::uint32_t product = 0;
    for (std::uint32_t m = 1u << 31; m != 0; m >>= 1) {
        if (a & m) product ^= b;
        b = (b & 1u) ? (b >> 1) ^ reflected_poly : b >> 1;
    }
    return product;
}
}  // namespace

std::uint32_t crc32c_shift(std::uint64_t bytes) noexcept {
    // x^(8 * bytes) modulo the polynomial, by squaring: x^(2^k) for k = 3, 4, ...
    std::uint32_t power = 1u << 31;   // x^0
    std::uint32_t square = 1u << 23;  // x^8
    for (; bytes != 0; bytes >>= 1) {
        if (bytes & 1u) power = multiply_mod(square, power);
        square = multiply_mod(square, square);
    }
    return power;
}

std::uint32_t crc32c_combine(std::uint32_t crc_a, std::uint32_t crc_b,
                             std::uint32_t shift_b) noexcept {
    return multiply_mod(shift_b, crc_a) ^ crc_b;
}

std::uint32_t crc32c(std::span<const std::uint8_t> data, std::uint32_t crc) noexcept {
#if defined(__x86_64__)
    if (have_sse42()) return crc32c_hw(data.data(), data.size(), crc);
#endif
    return crc32c_portable(data, crc);
}

}  // namespace objwire
