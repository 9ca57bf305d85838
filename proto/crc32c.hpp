// CRC-32C (Castagnoli), the frame checksum: SSE4.2 instruction where the CPU has it, a
// slicing-by-8 table otherwise. Both give the same values (tested).
#pragma once

#include <cstdint>
#include <span>

namespace objwire {

std::uint32_t crc32c(std::span<const std::uint8_t> data, std::uint32_t crc = 0) noexcept;
// The portable implementation, exposed so tests can compare it with the hardware one.
std::uint32_t crc32c_portable(std::span<const std::uint8_t> data, std::uint32_t crc = 0) noexcept;

}  // namespace objwire
