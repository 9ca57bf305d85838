// The field lists every control payload is made of (docs/PROTOCOL.md section 3): each field a
// varint key, a varint length and that many bytes of value, a number filling its value exactly,
// text UTF-8 of at most max_control_string bytes. Shared by the control payloads
// (proto/control.cpp) and the stats payload (proto/metric_families.cpp).
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>

#include "proto/byte_buffer.hpp"
#include "proto/byte_reader.hpp"
#include "proto/errors.hpp"
#include "proto/utf8.hpp"

namespace objwire::fields {

inline constexpr std::size_t max_control_string = 4096;

class field_writer {
  public:
    explicit field_writer(byte_buffer& out) : out_(out) {}
    void number(std::uint64_t key, std::uint64_t v) {
        byte_buffer tmp;
        tmp.put_varint(v);
        bytes(key, tmp.span());
    }
    void text(std::uint64_t key, std::string_view s) {
        out_.put_varint(key);
        out_.put_varint(s.size());
        out_.append(s);
    }
    void bytes(std::uint64_t key, std::span<const std::uint8_t> b) {
        out_.put_varint(key);
        out_.put_varint(b.size());
        out_.append(b);
    }

  private:
    byte_buffer& out_;
};

// Calls on_field(key, reader over the value) for each field; unknown keys are the callee's to
// skip. The value must be consumed exactly when the callee reads it.
inline proto_errc read_fields(
    byte_reader& in, const std::function<proto_errc(std::uint64_t, byte_reader&)>& on_field) {
    while (!in.at_end()) {
        std::uint64_t key = in.varint();
        std::uint64_t len = in.varint();
        if (!in.ok()) return in.error();
        if (len > in.remaining()) return proto_errc::truncated;
        byte_reader field(in.take(static_cast<std::size_t>(len)));
        if (auto e = on_field(key, field); e != proto_errc::ok) return e;
        if (!field.ok()) return field.error();
    }
    return in.ok() ? proto_errc::ok : in.error();
}

inline proto_errc read_number(byte_reader& f, std::uint64_t& out, std::uint64_t max = UINT64_MAX) {
    out = f.varint();
    if (!f.ok()) return f.error();
    if (!f.at_end()) return proto_errc::trailing_bytes;
    if (out > max) return proto_errc::bad_handshake;
    return proto_errc::ok;
}

template <class T>
inline proto_errc read_into(byte_reader& f, T& out) {
    std::uint64_t v;
    if (auto e = read_number(f, v, static_cast<std::uint64_t>(static_cast<T>(~T{0})));
        e != proto_errc::ok)
        return e;
    out = static_cast<T>(v);
    return proto_errc::ok;
}

inline proto_errc read_text(byte_reader& f, std::string& out) {
    if (f.remaining() > max_control_string) return proto_errc::string_too_long;
    auto s = f.take_chars(f.remaining());
    if (!is_valid_utf8(s)) return proto_errc::invalid_utf8;
    out.assign(s);
    return proto_errc::ok;
}

}  // namespace objwire::fields
