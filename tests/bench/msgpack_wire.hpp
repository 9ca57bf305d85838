// MessagePack (https://github.com/msgpack/msgpack/blob/master/spec.md), the subset the msgpack
// peer benchmark (tests/bench/msgpack_peer.cpp) sends: nil, false/true, positive and negative
// fixint, uint8..64, int8..64, float64, fixstr/str8/16/32, fixarray/array16/32 and
// fixmap/map16/32. Written by hand because Debian's msgpack-c packages pull in a Boost older
// than the one objwire builds with. Integers take their smallest form, as msgpack-c packs them.
//
// The decoder builds a value tree per object the way msgpack-c's unpacker does: one node per
// value in an arena reused object after object, strings referencing the input, arrays and maps
// as runs of child nodes (a map's run is key, value, key, value, ...).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "proto/value.hpp"

namespace objwire::msgpack_wire {

// --- Writing -------------------------------------------------------------------------------

// The big-endian bytes of `v`, `bytes` of them, after the type byte `tag`.
inline void put_tagged(std::string& out, std::uint8_t tag, std::uint64_t v, int bytes) {
    char buf[9];
    buf[0] = static_cast<char>(tag);
    for (int i = 0; i < bytes; ++i)
        buf[1 + i] = static_cast<char>(v >> (8 * (bytes - 1 - i)));
    out.append(buf, static_cast<std::size_t>(1 + bytes));
}

inline void put_nil(std::string& out) {
    out.push_back(static_cast<char>(0xc0));
}
inline void put_bool(std::string& out, bool b) {
    out.push_back(static_cast<char>(b ? 0xc3 : 0xc2));
}

inline void put_uint(std::string& out, std::uint64_t v) {
    if (v < 0x80)
        out.push_back(static_cast<char>(v));  // positive fixint
    else if (v <= 0xff)
        put_tagged(out, 0xcc, v, 1);
    else if (v <= 0xffff)
        put_tagged(out, 0xcd, v, 2);
    else if (v <= 0xffffffff)
        put_tagged(out, 0xce, v, 4);
    else
        put_tagged(out, 0xcf, v, 8);
}

// A non-negative value goes as unsigned; a negative one as the smallest intN that holds it.
inline void put_int(std::string& out, std::int64_t v) {
    if (v >= 0) return put_uint(out, static_cast<std::uint64_t>(v));
    const auto bits = static_cast<std::uint64_t>(v);
    if (v >= -32)
        out.push_back(static_cast<char>(bits));  // negative fixint, 111xxxxx
    else if (v >= INT8_MIN)
        put_tagged(out, 0xd0, bits, 1);
    else if (v >= INT16_MIN)
        put_tagged(out, 0xd1, bits, 2);
    else if (v >= INT32_MIN)
        put_tagged(out, 0xd2, bits, 4);
    else
        put_tagged(out, 0xd3, bits, 8);
}

inline void put_float64(std::string& out, double d) {
    put_tagged(out, 0xcb, std::bit_cast<std::uint64_t>(d), 8);
}

inline void put_str(std::string& out, std::string_view s) {
    const auto n = s.size();
    if (n < 32)
        out.push_back(static_cast<char>(0xa0 | n));
    else if (n <= 0xff)
        put_tagged(out, 0xd9, n, 1);
    else if (n <= 0xffff)
        put_tagged(out, 0xda, n, 2);
    else
        put_tagged(out, 0xdb, n, 4);
    out.append(s);
}

inline void put_array_header(std::string& out, std::size_t n) {
    if (n < 16)
        out.push_back(static_cast<char>(0x90 | n));
    else if (n <= 0xffff)
        put_tagged(out, 0xdc, n, 2);
    else
        put_tagged(out, 0xdd, n, 4);
}

inline void put_map_header(std::string& out, std::size_t pairs) {
    if (pairs < 16)
        out.push_back(static_cast<char>(0x80 | pairs));
    else if (pairs <= 0xffff)
        put_tagged(out, 0xde, pairs, 2);
    else
        put_tagged(out, 0xdf, pairs, 4);
}

// How a record travels: `map` with its field names as keys (self-describing, what a program
// writing msgpack without a schema sends), or `array` of its field values in order.
enum class record_form { map, array };

void put_value(std::string& out, const value& v, record_form form);

inline void put_record(std::string& out, const record& r, record_form form) {
    if (form == record_form::array) {
        put_array_header(out, r.fields.size());
        for (const auto& f : r.fields)
            put_value(out, f, form);
        return;
    }
    put_map_header(out, r.fields.size());
    for (std::size_t i = 0; i < r.fields.size(); ++i) {
        put_str(out, r.type->fields[i]);
        put_value(out, r.fields[i], form);
    }
}

inline void put_list(std::string& out, const list& l, record_form form) {
    put_array_header(out, l.size());
    for (const auto& e : l)
        put_value(out, e, form);
}

inline void put_map(std::string& out, const map& m, record_form form) {
    put_map_header(out, m.size());
    for (const auto& [k, e] : m) {
        put_str(out, k);
        put_value(out, e, form);
    }
}

// Appends `v`. Bytes, shared-object references and lazy values have no place in this subset.
inline void put_value(std::string& out, const value& v, record_form form) {
    switch (v.type()) {
        case value::kind::null:
            return put_nil(out);
        case value::kind::boolean:
            return put_bool(out, v.get<bool>());
        case value::kind::integer:
            return put_int(out, v.get<std::int64_t>());
        case value::kind::floating:
            return put_float64(out, v.get<double>());
        case value::kind::string:
            return put_str(out, v.get<std::string>());
        case value::kind::list:
            return put_list(out, v.get<list>(), form);
        case value::kind::map:
            return put_map(out, v.get<map>(), form);
        case value::kind::record:
            return put_record(out, v.get<record>(), form);
        default:
            throw std::invalid_argument("msgpack_wire: no bytes, references or lazy values");
    }
}

// --- Reading -------------------------------------------------------------------------------

enum class kind : std::uint8_t { nil, boolean, uinteger, integer, float64, str, array, map };

// One decoded value. `size`: a string's bytes, an array's elements, a map's pairs; `first`:
// the arena index of an array's or map's first child.
struct node {
    kind type = kind::nil;
    std::uint32_t size = 0;
    union {
        bool boolean;
        std::uint64_t uinteger;
        std::int64_t integer;
        double float64;
        const char* str;
        std::uint32_t first;
    } as{};

    std::string_view text() const { return {as.str, size}; }
};

enum class decode_status { done, incomplete, malformed };

class decoder {
  public:
    // Decodes the object that starts at in[pos]. done: `pos` is past it and root() is its
    // tree (valid until the next call, strings pointing into `in`); incomplete: `in` ends
    // inside it, `pos` unchanged.
    decode_status next(std::span<const std::uint8_t> in, std::size_t& pos) {
        nodes_.clear();
        nodes_.emplace_back();
        p_ = in.data() + pos;
        end_ = in.data() + in.size();
        const auto s = parse(0, 0);
        if (s == decode_status::done) pos = static_cast<std::size_t>(p_ - in.data());
        return s;
    }

    const node& root() const { return nodes_[0]; }
    const node& at(std::uint32_t i) const { return nodes_[i]; }
    // Nodes of the last object decoded (one per value, keys included).
    std::size_t size() const { return nodes_.size(); }

  private:
    static constexpr int max_depth = 64;

    bool has(std::size_t n) const { return static_cast<std::size_t>(end_ - p_) >= n; }

    // The next `n` bytes as a big-endian number (has(n) checked by the caller).
    std::uint64_t take(int n) {
        std::uint64_t v = 0;
        for (int i = 0; i < n; ++i)
            v = (v << 8) | *p_++;
        return v;
    }

    decode_status parse(std::uint32_t slot, int depth) {
        if (depth > max_depth) return decode_status::malformed;
        if (!has(1)) return decode_status::incomplete;
        const std::uint8_t tag = *p_++;
        if (tag < 0x80) return set_uint(slot, tag);
        if (tag >= 0xe0) return set_int(slot, static_cast<std::int8_t>(tag));
        if (tag >= 0xa0 && tag < 0xc0) return str(slot, tag & 0x1f);
        if (tag >= 0x90 && tag < 0xa0) return children(slot, kind::array, tag & 0x0f, depth);
        if (tag < 0x90) return children(slot, kind::map, tag & 0x0f, depth);
        return tagged(slot, tag, depth);
    }

    // The forms after a tag byte of 0xc0-0xdf.
    decode_status tagged(std::uint32_t slot, std::uint8_t tag, int depth) {
        switch (tag) {
            case 0xc0:
                return decode_status::done;  // the slot is nil already
            case 0xc2:
                return set_bool(slot, false);
            case 0xc3:
                return set_bool(slot, true);
            case 0xcb:
                return sized(8, [&](std::uint64_t v) { return set_float(slot, v); });
            case 0xcc:
                return unsigned_of(slot, 1);
            case 0xcd:
                return unsigned_of(slot, 2);
            case 0xce:
                return unsigned_of(slot, 4);
            case 0xcf:
                return unsigned_of(slot, 8);
            case 0xd0:
                return signed_of(slot, 1);
            case 0xd1:
                return signed_of(slot, 2);
            case 0xd2:
                return signed_of(slot, 4);
            case 0xd3:
                return signed_of(slot, 8);
            case 0xd9:
                return sized(1, [&](std::uint64_t n) { return str(slot, n); });
            case 0xda:
                return sized(2, [&](std::uint64_t n) { return str(slot, n); });
            case 0xdb:
                return sized(4, [&](std::uint64_t n) { return str(slot, n); });
            case 0xdc:
                return sized(2, [&](std::uint64_t n) { return array(slot, n, depth); });
            case 0xdd:
                return sized(4, [&](std::uint64_t n) { return array(slot, n, depth); });
            case 0xde:
                return sized(2, [&](std::uint64_t n) { return pairs(slot, n, depth); });
            case 0xdf:
                return sized(4, [&](std::uint64_t n) { return pairs(slot, n, depth); });
            default:
                return decode_status::malformed;  // bin, ext, float32: not in this subset
        }
    }

    // Reads an n-byte length or payload, then hands it on.
    template <class Then>
    decode_status sized(int n, Then then) {
        if (!has(static_cast<std::size_t>(n))) return decode_status::incomplete;
        return then(take(n));
    }

    decode_status set_bool(std::uint32_t slot, bool b) {
        nodes_[slot].type = kind::boolean;
        nodes_[slot].as.boolean = b;
        return decode_status::done;
    }
    decode_status set_uint(std::uint32_t slot, std::uint64_t v) {
        nodes_[slot].type = kind::uinteger;
        nodes_[slot].as.uinteger = v;
        return decode_status::done;
    }
    decode_status set_int(std::uint32_t slot, std::int64_t v) {
        nodes_[slot].type = kind::integer;
        nodes_[slot].as.integer = v;
        return decode_status::done;
    }
    decode_status set_float(std::uint32_t slot, std::uint64_t bits) {
        nodes_[slot].type = kind::float64;
        nodes_[slot].as.float64 = std::bit_cast<double>(bits);
        return decode_status::done;
    }
    decode_status unsigned_of(std::uint32_t slot, int n) {
        return sized(n, [&](std::uint64_t v) { return set_uint(slot, v); });
    }
    // intN: the n bytes are two's complement, sign-extended from bit 8n-1.
    decode_status signed_of(std::uint32_t slot, int n) {
        return sized(n, [&](std::uint64_t v) {
            const int shift = 64 - 8 * n;
            return set_int(slot, static_cast<std::int64_t>(v << shift) >> shift);
        });
    }

    decode_status str(std::uint32_t slot, std::uint64_t n) {
        if (!has(n)) return decode_status::incomplete;
        nodes_[slot].type = kind::str;
        nodes_[slot].size = static_cast<std::uint32_t>(n);
        nodes_[slot].as.str = reinterpret_cast<const char*>(p_);
        p_ += n;
        return decode_status::done;
    }

    decode_status array(std::uint32_t slot, std::uint64_t n, int depth) {
        return children(slot, kind::array, n, depth);
    }
    decode_status pairs(std::uint32_t slot, std::uint64_t n, int depth) {
        return children(slot, kind::map, n, depth);
    }

    // An array of n values or a map of n pairs: its children take consecutive arena slots.
    decode_status children(std::uint32_t slot, kind k, std::uint64_t n, int depth) {
        const std::uint64_t count = k == kind::map ? 2 * n : n;
        // Each child takes at least one byte: a count past the input is truncated or a lie.
        if (!has(count)) return decode_status::incomplete;
        const auto first = static_cast<std::uint32_t>(nodes_.size());
        nodes_.resize(nodes_.size() + count);
        nodes_[slot].type = k;
        nodes_[slot].size = static_cast<std::uint32_t>(n);
        nodes_[slot].as.first = first;
        for (std::uint64_t i = 0; i < count; ++i) {
            const auto s = parse(first + static_cast<std::uint32_t>(i), depth + 1);
            if (s != decode_status::done) return s;
        }
        return decode_status::done;
    }

    std::vector<node> nodes_;
    const std::uint8_t* p_ = nullptr;
    const std::uint8_t* end_ = nullptr;
};

}  // namespace objwire::msgpack_wire
