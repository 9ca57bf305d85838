#include "proto/columns.hpp"

#include "proto/wire.hpp"

namespace objwire {

bool has_columns(std::span<const std::uint8_t> payload) {
    return !payload.empty() && payload[0] == wire::tag_columns;
}

std::uint64_t column_directory::section_bytes() const {
    std::uint64_t sum = 0;
    for (std::size_t i = 0; i < count; ++i)
        sum += lengths[i];
    return sum;
}

proto_errc read_column_directory(std::span<const std::uint8_t> in, std::uint64_t max_bytes,
                                 column_directory& out) {
    byte_reader r(in);
    if (r.u8() != wire::tag_columns) return proto_errc::bad_columns;
    const std::uint64_t count = r.varint();
    if (!r.ok()) return r.error();
    if (count < 2 || count > max_sections) return proto_errc::bad_columns;
    out.count = static_cast<std::size_t>(count);
    std::uint64_t sum = 0;
    for (std::size_t i = 0; i < out.count; ++i) {
        const std::uint64_t n = r.varint();
        if (!r.ok()) return r.error();
        if (n > max_bytes - sum) return proto_errc::bad_columns;  // sum stays <= max_bytes
        sum += n;
        out.lengths[i] = static_cast<std::uint32_t>(n);
    }
    out.header_bytes = in.size() - r.remaining();
    return proto_errc::ok;
}

proto_errc read_column_payload(std::span<const std::uint8_t> payload, column_directory& out) {
    if (auto e = read_column_directory(payload, payload.size(), out); e != proto_errc::ok) return e;
    if (out.header_bytes + out.section_bytes() != payload.size()) return proto_errc::bad_columns;
    return proto_errc::ok;
}

std::span<const std::uint8_t> column_section(std::span<const std::uint8_t> payload,
                                             const column_directory& d, std::size_t i) {
    std::size_t at = d.header_bytes;
    for (std::size_t k = 0; k < i; ++k)
        at += d.lengths[k];
    return payload.subspan(at, d.lengths[i]);
}

std::size_t column_sections::bytes() const {
    std::size_t sum = 0;
    for (const auto& b : buffers_)
        sum += b.size();
    return sum;
}

void column_sections::clear() {
    for (auto& b : buffers_)
        b.clear();
}

column_sections::mark column_sections::position() const {
    mark m{};
    for (std::size_t i = 0; i < max_field_sections; ++i)
        m[i] = buffers_[i].size();
    return m;
}

void column_sections::truncate(const mark& m) {
    for (std::size_t i = 0; i < max_field_sections; ++i)
        buffers_[i].resize(m[i]);
}

void column_sections::move_tail(const mark& m, column_sections& to) {
    for (std::size_t i = 0; i < max_field_sections; ++i) {
        to.buffers_[i].clear();
        to.buffers_[i].append(buffers_[i].span().subspan(m[i]));
        buffers_[i].resize(m[i]);
    }
}

void column_sections::append(const column_sections& from) {
    for (std::size_t i = 0; i < max_field_sections; ++i)
        buffers_[i].append(from.buffers_[i].span());
}

void column_sections::write_payload(std::span<const std::uint8_t> main, byte_buffer& out) const {
    std::size_t used = 1;  // at least one field section: a directory of the main alone is not one
    for (std::size_t i = 0; i < max_field_sections; ++i)
        if (!buffers_[i].empty()) used = i + 1;
    out.put_u8(wire::tag_columns);
    out.put_varint(1 + used);
    out.put_varint(main.size());
    for (std::size_t i = 0; i < used; ++i)
        out.put_varint(buffers_[i].size());
    out.append(main);
    for (std::size_t i = 0; i < used; ++i)
        out.append(buffers_[i].span());
}

}  // namespace objwire
