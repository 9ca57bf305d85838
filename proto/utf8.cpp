#include "proto/utf8.hpp"

#include <cstdint>
#include <cstring>

namespace objwire {
namespace {

// Validates one multi-byte sequence at p (lead byte >= 0x80); returns its length or 0.
std::size_t sequence_length(const unsigned char* p, const unsigned char* end) {
    const unsigned char c = p[0];
    const std::size_t left = static_cast<std::size_t>(end - p);
    auto cont = [&](std::size_t i) { return i < left && (p[i] & 0xC0) == 0x80; };
    if (c >= 0xC2 && c <= 0xDF) return cont(1) ? 2 : 0;
    if (c >= 0xE0 && c <= 0xEF) {
        if (!cont(1) || !cont(2)) return 0;
        if (c == 0xE0 && p[1] < 0xA0) return 0;  // overlong
        if (c == 0xED && p[1] > 0x9F) return 0;  // surrogates
        return 3;
    }
    if (c >= 0xF0 && c <= 0xF4) {
        if (!cont(1) || !cont(2) || !cont(3)) return 0;
        if (c == 0xF0 && p[1] < 0x90) return 0;  // overlong
        if (c == 0xF4 && p[1] > 0x8F) return 0;  // above U+10FFFF
        return 4;
    }
    return 0;
}

}  // namespace

namespace {
bool ascii_word(const unsigned char* p) {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    return (w & 0x8080808080808080ULL) == 0;
}
// Two words at once: one test for sixteen bytes.
bool ascii_pair(const unsigned char* p) {
    std::uint64_t w[2];
    std::memcpy(w, p, 16);
    return ((w[0] | w[1]) & 0x8080808080808080ULL) == 0;
}
}  // namespace

bool is_valid_utf8(std::string_view s) noexcept {
    auto p = reinterpret_cast<const unsigned char*>(s.data());
    const auto end = p + s.size();
    // Most text is ASCII: whole words, the last one overlapping the one before, decide it
    // without a byte-by-byte tail.
    if (s.size() >= 8) {
        while (end - p >= 16 && ascii_pair(p))
            p += 16;
        if (end - p >= 8 && ascii_word(p)) p += 8;
        if (end - p < 8 && ascii_word(end - 8)) return true;
    }
    while (p < end) {
        if (end - p >= 8) {
            std::uint64_t w;
            std::memcpy(&w, p, 8);
            if ((w & 0x8080808080808080ULL) == 0) {
                p += 8;
                continue;
            }
        }
        if (*p < 0x80) {
            ++p;
            continue;
        }
        std::size_t n = sequence_length(p, end);
        if (n == 0) return false;
        p += n;
    }
    return true;
}

}  // namespace objwire
