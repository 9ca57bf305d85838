// CRC-32C (Castagnoli), the frame checksum: SSE4.2 instruction where the CPU has it, a
// slicing-by-8 table otherwise. Both give the same values (tested).
#pragma once

#include <cstdint>
#include <span>

namespace objwire {

std::uint32_t crc32c(std::span<const std::uint8_t> data, std::uint32_t crc = 0) noexcept;
// The portable implementation, exposed so tests can compare it with the hardware one.
std::uint32_t crc32c_portable(std::span<const std::uint8_t> data, std::uint32_t crc = 0) noexcept;

// Joining checksums without the bytes: crc32c(a + b) == crc32c_combine(crc32c(a), crc32c(b),
// crc32c_shift(b.size())). A payload's checksum and shift are computed once and shared by
// every frame that carries it behind a header of its own (zlib's crc32_combine, Castagnoli
// polynomial): 32 steps per combine, whatever the payload's size.
std::uint32_t crc32c_shift(std::uint64_t bytes) noexcept;
std::uint32_t crc32c_combine(std::uint32_t crc_a, std::uint32_t crc_b,
                             std::uint32_t shift_b) noexcept;

}  // namespace objwire
