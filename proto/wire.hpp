// Tag bytes of the value encoding (docs/PROTOCOL.md, "Values"). One byte says what follows;
// the compact ranges put the commonest items - a known string, a known record type, a small
// integer, a small change of an integer field - in that single byte.
#pragma once

#include <cstdint>

namespace objwire::wire {

inline constexpr std::uint8_t tag_null = 0x00;
inline constexpr std::uint8_t tag_false = 0x01;
inline constexpr std::uint8_t tag_true = 0x02;
inline constexpr std::uint8_t tag_int = 0x03;         // zigzag varint
inline constexpr std::uint8_t tag_float64 = 0x04;     // 8 bytes, IEEE 754, little endian
inline constexpr std::uint8_t tag_string = 0x05;      // varint length, UTF-8 bytes
inline constexpr std::uint8_t tag_string_new = 0x06;  // as tag_string, then inserted in the table
inline constexpr std::uint8_t tag_string_ref = 0x07;  // varint table id
inline constexpr std::uint8_t tag_bytes = 0x08;       // varint length, bytes
inline constexpr std::uint8_t tag_list = 0x09;        // varint count, values
inline constexpr std::uint8_t tag_map = 0x0A;         // varint count, (string, value) pairs
inline constexpr std::uint8_t tag_record_new = 0x0B;  // type descriptor (inserted), fields
inline constexpr std::uint8_t tag_record = 0x0C;      // varint type id, fields
inline constexpr std::uint8_t tag_object_def = 0x0D;  // next object handle, then its value
inline constexpr std::uint8_t tag_object_ref = 0x0E;  // varint object handle
inline constexpr std::uint8_t tag_reset = 0x0F;       // top level only: clear the table
inline constexpr std::uint8_t tag_record_inline = 0x10;  // type descriptor (not inserted), fields
inline constexpr std::uint8_t tag_int_delta = 0x11;      // record field only: zigzag varint change
inline constexpr std::uint8_t tag_object_keep = 0x12;    // as object_def, then kept in the table
inline constexpr std::uint8_t tag_object_kept = 0x13;    // varint table id of a kept object
inline constexpr std::uint8_t tag_columns = 0x14;        // payload start only: column directory
inline constexpr std::uint8_t tag_hex_string = 0x15;     // varint k >= 2, k bytes: 2k hex digits
inline constexpr std::uint8_t tag_lazy = 0x16;  // codec, raw size, stored size, compressed value

inline constexpr std::uint8_t short_delta = 0x20;       // 0x20..0x3F: field change -8..23
inline constexpr std::uint8_t short_string_ref = 0x40;  // 0x40..0x7F: string id 0..63
inline constexpr std::uint8_t short_record = 0x80;      // 0x80..0xBF: record of type id 0..63
inline constexpr std::uint8_t short_int = 0xC0;         // 0xC0..0xFF: integer -16..47
inline constexpr std::uint32_t short_id_limit = 64;
inline constexpr std::int64_t short_int_min = -16;
inline constexpr std::int64_t short_int_max = 47;
inline constexpr std::int64_t short_delta_min = -8;
inline constexpr std::int64_t short_delta_max = 23;

}  // namespace objwire::wire
