// A growable byte buffer that appends without zero-filling, and the little-endian and varint
// primitives every encoder in proto/ writes with. Reused across frames so steady-state
// encoding allocates nothing.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string_view>

namespace objwire {

// Writes v as a varint at p (room for 10 bytes) and returns the bytes written.
inline std::size_t write_varint(std::uint8_t* p, std::uint64_t v) {
    std::size_t n = 0;
    while (v >= 0x80) {
        p[n++] = static_cast<std::uint8_t>(v | 0x80);
        v >>= 7;
    }
    p[n++] = static_cast<std::uint8_t>(v);
    return n;
}

class byte_buffer {
  public:
    byte_buffer() = default;
    explicit byte_buffer(std::size_t capacity) { reserve(capacity); }
    byte_buffer(byte_buffer&&) noexcept = default;
    byte_buffer& operator=(byte_buffer&&) noexcept = default;

    std::uint8_t* data() { return data_.get(); }
    const std::uint8_t* data() const { return data_.get(); }
    std::size_t size() const { return size_; }
    std::size_t capacity() const { return capacity_; }
    bool empty() const { return size_ == 0; }
    std::span<const std::uint8_t> span() const { return {data_.get(), size_}; }
    std::span<std::uint8_t> span() { return {data_.get(), size_}; }

    void clear() { size_ = 0; }
    void reserve(std::size_t n) {
        if (n > capacity_) grow_to(n);
    }
    // As reserve, but the capacity becomes exactly n: for a buffer whose memory is accounted
    // and bounded, where doubling would hold up to twice what it needs.
    void reserve_exact(std::size_t n) {
        if (n > capacity_) reallocate(n);
    }
    // Makes room for n more bytes and returns where they go; commit() makes them part of size.
    std::uint8_t* prepare(std::size_t n) {
        if (capacity_ - size_ < n) grow_to(size_ + n);
        return data_.get() + size_;
    }
    void commit(std::size_t n) { size_ += n; }
    void resize(std::size_t n) {
        reserve(n);
        size_ = n;
    }
    // Drops the first n bytes, moving the rest to the front.
    void consume_front(std::size_t n) {
        if (n >= size_) {
            size_ = 0;
            return;
        }
        std::memmove(data_.get(), data_.get() + n, size_ - n);
        size_ -= n;
    }

    void append(const void* p, std::size_t n) {
        if (n == 0) return;
        std::memcpy(prepare(n), p, n);
        size_ += n;
    }
    void append(std::span<const std::uint8_t> s) { append(s.data(), s.size()); }
    void append(std::string_view s) { append(s.data(), s.size()); }
    void put_u8(std::uint8_t v) {
        *prepare(1) = v;
        ++size_;
    }
    void put_u16(std::uint16_t v) { put_le(v); }
    void put_u32(std::uint32_t v) { put_le(v); }
    void put_u64(std::uint64_t v) { put_le(v); }
    void put_varint(std::uint64_t v) { size_ += write_varint(prepare(10), v); }

  private:
    template <class T>
    void put_le(T v) {
        std::uint8_t* p = prepare(sizeof(T));
        for (std::size_t i = 0; i < sizeof(T); ++i)
            p[i] = static_cast<std::uint8_t>(v >> (8 * i));
        size_ += sizeof(T);
    }
    void grow_to(std::size_t n) {
        std::size_t cap = capacity_ ? capacity_ : 256;
        while (cap < n)
            cap *= 2;
        reallocate(cap);
    }
    void reallocate(std::size_t cap) {
        auto fresh = std::make_unique_for_overwrite<std::uint8_t[]>(cap);
        if (size_) std::memcpy(fresh.get(), data_.get(), size_);
        data_ = std::move(fresh);
        capacity_ = cap;
    }

    std::unique_ptr<std::uint8_t[]> data_;
    std::size_t size_ = 0;
    std::size_t capacity_ = 0;
};

inline std::uint64_t zigzag_encode(std::int64_t v) {
    return (static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63);
}
inline std::int64_t zigzag_decode(std::uint64_t v) {
    return static_cast<std::int64_t>(v >> 1) ^ -static_cast<std::int64_t>(v & 1);
}

template <class T>
T load_le(const std::uint8_t* p) {
    T v = 0;
    for (std::size_t i = 0; i < sizeof(T); ++i)
        v |= static_cast<T>(p[i]) << (8 * i);
    return v;
}

template <class T>
void store_le(std::uint8_t* p, T v) {
    for (std::size_t i = 0; i < sizeof(T); ++i)
        p[i] = static_cast<std::uint8_t>(v >> (8 * i));
}

}  // namespace objwire
