// Internal to the workload generators (client/workloads/workloads.hpp): their random numbers
// (splitmix64, as docs/WORKLOADS.md defines it) and writing a generated message into the
// previous one's storage, so a benchmark's message loop allocates nothing once warm.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "proto/value.hpp"

namespace objwire::workloads::detail {

// docs/WORKLOADS.md: all arithmetic unsigned 64-bit with wrap-around.
class splitmix64 {
  public:
    explicit splitmix64(std::uint64_t seed) : state_(seed) {}

    std::uint64_t next() {
        state_ += 0x9E3779B97F4A7C15ULL;
        std::uint64_t z = state_;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31);
    }
    std::uint64_t below(std::uint64_t n) { return next() % n; }

  private:
    std::uint64_t state_;
};

// --- Writing into an existing message without giving up its storage ---

inline void assign_int(value& v, std::int64_t i) {
    if (auto* p = v.get_if<std::int64_t>())
        *p = i;
    else
        v = value(i);
}

inline void assign_double(value& v, double d) {
    if (auto* p = v.get_if<double>())
        *p = d;
    else
        v = value(d);
}

inline void assign_string(value& v, std::string_view s) {
    if (auto* p = v.get_if<std::string>())
        assign_text(*p, s);
    else
        v = value(s);
}

// The string `v` holds, which it becomes first if it holds anything else. (ensure() checks
// the alternative twice.)
inline std::string& string_in(value& v) {
    if (auto* text = v.get_if<std::string>()) [[likely]]
        return *text;
    return v.ensure<std::string>();
}

// Copies n bytes, lo <= n <= hi (both known to the compiler), as two fixed-size copies per
// `lo` bytes from either end that overlap in the middle: no call to memcpy, no loop.
template <std::size_t lo, std::size_t hi>
inline void copy_between(char* dst, const char* src, std::size_t n) {
    static_assert(lo <= hi && hi <= 4 * lo);
    std::memcpy(dst, src, lo);
    std::memcpy(dst + n - lo, src + n - lo, lo);
    if constexpr (hi > 2 * lo) {
        if (n > 2 * lo) {
            std::memcpy(dst + lo, src + lo, lo);
            std::memcpy(dst + n - 2 * lo, src + n - 2 * lo, lo);
        }
    }
}

// v = s, where lo <= s.size() <= hi, for strings whose length changes between messages (the
// events' level and msg). resize() shortens in place and lengthens within the capacity the
// string already has (its final size is soon reached), and the bytes go in by copy_between:
// this skips the general std::string::_M_replace that assign() goes through, which has to
// handle a source inside the string itself.
template <std::size_t lo, std::size_t hi>
inline void assign_string_between(value& v, std::string_view s) {
    auto& text = string_in(v);
    text.resize(s.size());
    copy_between<lo, hi>(text.data(), s.data(), s.size());
}

// v = the N characters of s, for strings of one fixed length (the events' host, service,
// user): from the second message on only the bytes move, in one copy of a size the compiler
// knows, so no call.
template <std::size_t N>
inline void assign_fixed_string(value& v, const std::array<char, N>& s) {
    auto& text = string_in(v);
    if (text.size() == N)
        std::memcpy(text.data(), s.data(), N);
    else
        text.assign(s.data(), N);
}

inline void assign_ref(value& v, std::uint32_t index) {
    if (auto* p = v.get_if<object_ref>())
        p->index = index;
    else
        v = value(object_ref{index});
}

// Makes `v` a record of `type`, keeping its field vector when it already is a record.
[[gnu::noinline]] inline std::vector<value>& remake_record(value& v, const record_type_ptr& type) {
    auto* r = v.get_if<record>();
    if (r == nullptr) {
        v = value(record{type, {}});
        r = v.get_if<record>();
    }
    if (r->type != type) r->type = type;
    r->fields.resize(type->fields.size());
    return r->fields;
}

// The same, with the case of every message after a workload's first (`v` already is the
// record, of this type) checked inline.
inline std::vector<value>& assign_record(value& v, const record_type_ptr& type) {
    auto* r = v.get_if<record>();
    if (r != nullptr && r->type == type && r->fields.size() == type->fields.size())
        return r->fields;
    return remake_record(v, type);
}

inline list& assign_list(value& v, std::size_t size) {
    auto* l = v.get_if<list>();
    if (l == nullptr) {
        v = value(list{});
        l = v.get_if<list>();
    }
    l->resize(size);
    return *l;
}

inline std::vector<std::uint8_t>& assign_bytes(value& v) {
    auto* b = v.get_if<bytes>();
    if (b == nullptr) {
        v = value(bytes{});
        b = v.get_if<bytes>();
    }
    return b->data;
}

}  // namespace objwire::workloads::detail
