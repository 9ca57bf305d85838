// The column layout of a frame payload (docs/PROTOCOL.md 4.2): the fields of each message's root
// record travel in sections of their own - field i in field section min(i, 7) - and everything
// else in the main section. Values do not change, only where their bytes sit, so a general
// compressor given one context per section (zstd-stream does, section 2.1) finds the repeats
// of a column next to each other: on `events`, 72 raw bytes per object compress to about 26
// instead of 33. Used only while compressing across frames; sans-I/O.
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include <objwire/proto/byte_buffer.hpp>
#include <objwire/proto/byte_reader.hpp>
#include <objwire/proto/errors.hpp>

namespace objwire {

inline constexpr std::size_t max_field_sections = 8;
inline constexpr std::size_t max_sections = 1 + max_field_sections;

// Field i of a root record: its field section (0-based, without the main section).
constexpr std::size_t field_section(std::size_t field) {
    return field < max_field_sections ? field : max_field_sections - 1;
}

// A payload in column layout starts with tag_columns (0x14), which no payload otherwise does.
bool has_columns(std::span<const std::uint8_t> payload);

// The directory at the start of a column payload: the tag, the section count (2..9, main
// first) and each section's length. `header_bytes` is the directory's own size.
struct column_directory {
    std::size_t header_bytes = 0;
    std::size_t count = 0;
    std::array<std::uint32_t, max_sections> lengths{};
    std::uint64_t section_bytes() const;
};

// Reads a directory from the start of `in`; bad_columns when the count is out of range or the
// sections would add up to more than `max_bytes`. Says nothing of what follows it.
proto_errc read_column_directory(std::span<const std::uint8_t> in, std::uint64_t max_bytes,
                                 column_directory& out);
// Reads a column payload's directory and checks that its sections are exactly the rest.
proto_errc read_column_payload(std::span<const std::uint8_t> payload, column_directory& out);
// Section i of a column payload whose directory was read.
std::span<const std::uint8_t> column_section(std::span<const std::uint8_t> payload,
                                             const column_directory& d, std::size_t i);

// The sender's field sections while a frame in column layout is open; the main section is
// the frame's own buffer. Reused across frames.
class column_sections {
  public:
    std::span<byte_buffer> fields() { return buffers_; }
    std::size_t bytes() const;
    void clear();

    // Sizes of every field section, to take back or move a message's bytes.
    using mark = std::array<std::size_t, max_field_sections>;
    mark position() const;
    void truncate(const mark& m);
    // Moves what was written after `m` into `to` (cleared first).
    void move_tail(const mark& m, column_sections& to);
    void append(const column_sections& from);

    // Appends the directory, `main` and the field sections (the trailing empty ones left out)
    // to `out`: a whole column payload.
    void write_payload(std::span<const std::uint8_t> main, byte_buffer& out) const;
    // The largest directory write_payload() writes, for frame size checks.
    static constexpr std::size_t max_directory_bytes = 2 + max_sections * 5;

  private:
    std::array<byte_buffer, max_field_sections> buffers_;
};

}  // namespace objwire
