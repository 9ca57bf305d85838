// The value model objwire moves: null, bool, int64, float64, UTF-8 string, bytes, list, map,
// record (a shared type descriptor plus its field values) and, for identity inside one
// message, references to the message's shared objects. A `message` is one unit on the wire: a
// root value plus the objects that are referenced (possibly more than once, possibly in a
// cycle) from it. A lazy value (proto/lazy_value.hpp) is a compressed, self-contained
// sub-value that travels and is stored as its bytes until a reader expands it.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include <objwire/proto/frame.hpp>

namespace objwire {

// A record's type: its name and field names, in order. Immutable and shared by every record
// of the type, so the encoder can recognise it by pointer and the decoder hands out one
// descriptor per table entry instead of one per record.
struct record_type {
    std::string name;
    std::vector<std::string> fields;

    bool operator==(const record_type&) const = default;
    // Index of a field, or -1.
    int field_index(std::string_view field) const;
};
using record_type_ptr = std::shared_ptr<const record_type>;

record_type_ptr make_record_type(std::string name, std::vector<std::string> fields);
// The index of the first field name that repeats an earlier one, or names.size() when they
// are unique: a record type must not name a field twice (the JSON reader and the decoder both
// refuse one). Linear in the names, so a record of a million fields costs no more than a map.
std::size_t first_duplicate_field(const std::vector<std::string>& names);

class value;
using list = std::vector<value>;
using map = std::vector<std::pair<std::string, value>>;  // keeps insertion order

struct null_t {
    bool operator==(const null_t&) const = default;
};

struct bytes {
    std::vector<std::uint8_t> data;
    bool operator==(const bytes&) const = default;
};

struct record {
    record_type_ptr type;
    std::vector<value> fields;  // one per type->fields, same order

    bool operator==(const record& o) const;
};

// Names message::objects[index]; the object's identity is its index.
struct object_ref {
    std::uint32_t index = 0;
    bool operator==(const object_ref&) const = default;
};

// A value compressed on its own (docs/PROTOCOL.md 4.1): the codec, the length of its
// self-contained encoding and the compressed bytes, shared by every copy. Nothing here looks
// inside: proto/lazy_value.hpp packs one from a value and expands it back, under limits.
class lazy_value {
  public:
    lazy_value() = default;
    lazy_value(codec_id codec, std::uint32_t raw_size, std::vector<std::uint8_t> stored);

    codec_id codec() const { return d_ ? d_->codec : codec_id::none; }
    // Bytes of the value's encoding once decompressed (what the wire states).
    std::uint32_t raw_size() const { return d_ ? d_->raw_size : 0; }
    // The compressed bytes, as they travel and are stored.
    std::span<const std::uint8_t> stored() const {
        return d_ ? std::span<const std::uint8_t>(d_->stored) : std::span<const std::uint8_t>{};
    }
    // Same codec, size and bytes: the same encoding (not a comparison of what they expand to).
    bool operator==(const lazy_value& o) const;

  private:
    struct data {
        codec_id codec;
        std::uint32_t raw_size;
        std::vector<std::uint8_t> stored;
    };
    std::shared_ptr<const data> d_;
};

class value {
  public:
    enum class kind : std::uint8_t {
        null,
        boolean,
        integer,
        floating,
        string,
        bytes,
        list,
        map,
        record,
        object_ref,
        lazy
    };
    using storage =
        std::variant<null_t, bool, std::int64_t, double, std::string, objwire::bytes, objwire::list,
                     objwire::map, objwire::record, objwire::object_ref, objwire::lazy_value>;

    value() = default;
    value(std::nullptr_t) {}  // NOLINT
    value(bool b) : v_(b) {}  // NOLINT
    // An unsigned integer over INT64_MAX throws std::out_of_range: the encoding's integers are
    // signed 64-bit, and a silent wrap would store a different number.
    template <class I, std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool>, int> = 0>
    value(I i) : v_(checked_integer(i)) {}              // NOLINT
    value(double d) : v_(d) {}                          // NOLINT
    value(std::string s) : v_(std::move(s)) {}          // NOLINT
    value(std::string_view s) : v_(std::string(s)) {}   // NOLINT
    value(const char* s) : v_(std::string(s)) {}        // NOLINT
    value(objwire::bytes b) : v_(std::move(b)) {}       // NOLINT
    value(objwire::list l) : v_(std::move(l)) {}        // NOLINT
    value(objwire::map m) : v_(std::move(m)) {}         // NOLINT
    value(objwire::record r) : v_(std::move(r)) {}      // NOLINT
    value(objwire::object_ref r) : v_(r) {}             // NOLINT
    value(objwire::lazy_value l) : v_(std::move(l)) {}  // NOLINT

    kind type() const { return static_cast<kind>(v_.index()); }
    bool is_null() const { return type() == kind::null; }

    template <class T>
    const T* get_if() const {
        return std::get_if<T>(&v_);
    }
    template <class T>
    T* get_if() {
        return std::get_if<T>(&v_);
    }
    template <class T>
    const T& get() const {
        return std::get<T>(v_);
    }
    template <class T>
    T& get() {
        return std::get<T>(v_);
    }

    // The held T; any other alternative is first replaced by an empty T. Lets a decoder
    // reuse the storage a value already has.
    template <class T>
    T& ensure() {
        if (!std::holds_alternative<T>(v_)) v_.template emplace<T>();
        return std::get<T>(v_);
    }

    const storage& raw() const { return v_; }
    bool operator==(const value& o) const { return v_ == o.v_; }

  private:
    template <class I>
    static std::int64_t checked_integer(I i) {
        if constexpr (std::is_unsigned_v<I> && sizeof(I) >= sizeof(std::int64_t)) {
            if (i > static_cast<I>(INT64_MAX))
                throw std::out_of_range("objwire::value: unsigned integer " + std::to_string(i) +
                                        " is over 2^63-1, the largest integer a value holds");
        }
        return static_cast<std::int64_t>(i);
    }

    storage v_;
};

inline bool record::operator==(const record& o) const {
    if (type != o.type && (!type || !o.type || *type != *o.type)) return false;
    return fields == o.fields;
}

// One unit on the wire. Objects referenced through object_ref live in `objects`; everything
// else is a tree and travels inline.
struct message {
    message() = default;
    message(value r, std::vector<value> o = {})  // NOLINT: {root, objects} reads naturally
        : root(std::move(r)), objects(std::move(o)) {}

    value root;
    std::vector<value> objects;
    // Opt-in identity across messages: objects[i] with a non-zero shared_keys[i] is kept by
    // both peers under that key. Sent again unchanged it costs a back-reference; changed, its
    // new state is sent (never a stale handle). Sender-side only: decoded messages have none,
    // and equality ignores it.
    std::vector<std::uint64_t> shared_keys;

    bool operator==(const message& o) const { return root == o.root && objects == o.objects; }
};

// dst = s, reusing dst's storage. Strings that fill the same field message after message mostly
// keep their length (a host name, an id): then only the bytes move, without std::string's
// general replace.
inline void assign_text(std::string& dst, std::string_view s) {
    if (dst.size() == s.size())
        std::memmove(dst.data(), s.data(), s.size());
    else
        dst.assign(s);
}

// Whether an object_ref occurs anywhere inside v.
bool contains_object_refs(const value& v);

// Builds a record value of `type` from field values given in order.
value make_record(const record_type_ptr& type, std::vector<value> fields);

// Renumbers `m.objects` into the order an encoder meets them (depth first from the root,
// fields in order) and drops objects nothing references. Decoded messages are always in this
// form, so canonical(original) == decode(encode(original)).
message canonical(const message& m);

}  // namespace objwire
