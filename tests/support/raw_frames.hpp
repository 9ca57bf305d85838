// Frames built byte by byte from docs/PROTOCOL.md alone, for the raw peers of the tests
// (tests/integration/table_attack.cpp, relay_flood.cpp): no objwire code, so a test that uses
// them checks the daemon against the document, not against its own encoder. Standard library
// only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace objwire::test::raw {

using bytes_t = std::vector<std::uint8_t>;

// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), continuing from `crc`.
inline std::uint32_t crc32c(const std::uint8_t* p, std::size_t n, std::uint32_t crc = 0) {
    static const auto table = [] {
        std::vector<std::uint32_t> t(256);
        for (std::uint32_t i = 0; i < 256; ++i) {
            std::uint32_t c = i;
            for (int k = 0; k < 8; ++k)
                c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
            t[i] = c;
        }
        return t;
    }();
    crc = ~crc;
    for (std::size_t i = 0; i < n; ++i)
        crc = table[(crc ^ p[i]) & 0xFF] ^ (crc >> 8);
    return ~crc;
}

inline void varint(bytes_t& out, std::uint64_t v) {
    while (v >= 0x80) {
        out.push_back(static_cast<std::uint8_t>(v | 0x80));
        v >>= 7;
    }
    out.push_back(static_cast<std::uint8_t>(v));
}

// `n` bytes little-endian.
inline void le(bytes_t& out, std::uint64_t v, int n) {
    for (int i = 0; i < n; ++i)
        out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}

// Section 2: the 24-byte header (codec none, raw_len = payload_len), then the payload.
inline bytes_t frame(std::uint8_t kind, std::uint64_t sequence, const bytes_t& payload) {
    bytes_t f;
    f.push_back(kind);
    f.push_back(0);
    f.push_back(0);  // codec none
    f.push_back(0);
    le(f, payload.size(), 4);
    le(f, sequence, 8);
    le(f, payload.size(), 4);
    std::uint32_t crc = crc32c(f.data(), 20);
    crc = crc32c(payload.data(), payload.size(), crc);
    le(f, crc, 4);
    f.insert(f.end(), payload.begin(), payload.end());
    return f;
}

}  // namespace objwire::test::raw
