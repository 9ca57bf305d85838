// A bounds-checked reader over a byte span: every read says whether the bytes were there, and
// the first failure sticks, so a decoder checks once per structure instead of once per byte.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include <objwire/proto/byte_buffer.hpp>
#include <objwire/proto/errors.hpp>

namespace objwire {

class byte_reader {
  public:
    byte_reader() = default;
    explicit byte_reader(std::span<const std::uint8_t> in)
        : p_(in.data()), end_(in.data() + in.size()) {}

    std::size_t remaining() const { return static_cast<std::size_t>(end_ - p_); }
    bool at_end() const { return p_ == end_; }
    const std::uint8_t* position() const { return p_; }
    proto_errc error() const { return err_; }
    bool ok() const { return err_ == proto_errc::ok; }
    void fail(proto_errc e) {
        if (err_ == proto_errc::ok) err_ = e;
        p_ = end_;
    }

    std::uint8_t u8() {
        if (p_ == end_) return fail(proto_errc::truncated), 0;
        return *p_++;
    }
    template <class T>
    T fixed() {
        if (remaining() < sizeof(T)) return fail(proto_errc::truncated), T{};
        T v = load_le<T>(p_);
        p_ += sizeof(T);
        return v;
    }
    std::uint64_t varint() {
        // Fast path: one byte.
        if (p_ != end_ && *p_ < 0x80) return *p_++;
        std::uint64_t v = 0;
        for (unsigned shift = 0; shift < 64; shift += 7) {
            if (p_ == end_) return fail(proto_errc::truncated), 0;
            std::uint8_t b = *p_++;
            if (shift == 63 && b > 1) return fail(proto_errc::bad_varint), 0;
            v |= static_cast<std::uint64_t>(b & 0x7F) << shift;
            if (b < 0x80) return v;
        }
        return fail(proto_errc::bad_varint), 0;
    }
    std::span<const std::uint8_t> take(std::size_t n) {
        if (remaining() < n) return fail(proto_errc::truncated), std::span<const std::uint8_t>{};
        std::span<const std::uint8_t> s(p_, n);
        p_ += n;
        return s;
    }
    std::string_view take_chars(std::size_t n) {
        auto s = take(n);
        return {reinterpret_cast<const char*>(s.data()), s.size()};
    }

  private:
    const std::uint8_t* p_ = nullptr;
    const std::uint8_t* end_ = nullptr;
    proto_errc err_ = proto_errc::ok;
};

}  // namespace objwire
