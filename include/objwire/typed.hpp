// Sending your own structs: a struct described with BOOST_DESCRIBE_STRUCT travels as a record
// of its public fields, written straight into the frame (no objwire::value tree per object)
// with exactly the bytes the value path writes for the same record. docs/LIBRARY.md.
//
//   struct Trade { std::string sym; double px; std::int64_t qty; };
//   BOOST_DESCRIBE_STRUCT(Trade, (), (sym, px, qty))
//   ...
//   conn.send(Trade{"ACME", 12.5, 100});
//
// Fields: integers (an unsigned one over 2^63-1 is refused with integer_out_of_range, never
// wrapped), floating point, bool, std::string and std::string_view, byte vectors
// (std::vector<std::uint8_t> or <std::byte>) as bytes, std::vector as a list, std::optional
// (absent: null), std::map / std::unordered_map with std::string keys as a map, enums
// (described with BOOST_DESCRIBE_ENUM: by name, otherwise by value), nested described structs
// as records, and std::shared_ptr as a shared object of the message (the same pointee twice is
// one object and a reference; cycles are references back).
#pragma once

#include <cstring>
#include <unordered_map>

#include <objwire/typed_traits.hpp>
#include "proto/typed_writer.hpp"

namespace objwire::typed {

template <class V>
proto_errc write_value(typed_writer& w, const typed_slot& s, const V& v);

template <described_record T>
proto_errc write_record(typed_writer& w, const typed_slot& s, const T& v) {
    typed_record r;
    proto_errc ec = w.begin_record(s, record_type_of<T>(), r);
    if (ec != proto_errc::ok) return ec;
    boost::mp11::mp_for_each<described_members<T>>([&](auto d) {
        if constexpr (!is_transient<T>(decltype(d)::name)) {
            typed_slot f;
            if (ec == proto_errc::ok && r.next(f)) ec = write_value(w, f, v.*d.pointer);
        }
    });
    w.end_record(r);
    return ec;
}

template <class V>
proto_errc write_value(typed_writer& w, const typed_slot& s, const V& v) {
    if constexpr (std::is_same_v<V, bool>) {
        w.boolean(s, v);
    } else if constexpr (std::is_integral_v<V> && std::is_unsigned_v<V> && sizeof(V) >= 8) {
        return w.unsigned_integer(s, v);
    } else if constexpr (std::is_integral_v<V>) {
        w.integer(s, static_cast<std::int64_t>(v));
    } else if constexpr (std::is_floating_point_v<V>) {
        w.floating(s, static_cast<double>(v));
    } else if constexpr (described_enum<V>) {
        if (const std::string_view name = enumerator_name(v); !name.empty())
            return w.string(s, name);
        return write_value(w, s, static_cast<std::underlying_type_t<V>>(v));
    } else if constexpr (std::is_enum_v<V>) {
        return write_value(w, s, static_cast<std::underlying_type_t<V>>(v));
    } else if constexpr (std::is_convertible_v<const V&, std::string_view>) {
        return w.string(s, std::string_view(v));
    } else if constexpr (is_byte_vector<V>) {
        return w.bytes(s, {reinterpret_cast<const std::uint8_t*>(v.data()), v.size()});
    } else if constexpr (is_vector<V>::value) {
        typed_slot e;
        if (auto ec = w.begin_list(s, v.size(), e); ec != proto_errc::ok) return ec;
        for (const auto& x : v)
            if (auto ec = write_value(w, e, x); ec != proto_errc::ok) return ec;
    } else if constexpr (is_optional<V>::value) {
        if (!v) {
            w.null(s);
            return proto_errc::ok;
        }
        return write_value(w, s, *v);  // present: the value itself, in the field's place
    } else if constexpr (is_string_map<V>::value) {
        typed_slot e;
        if (auto ec = w.begin_map(s, v.size(), e); ec != proto_errc::ok) return ec;
        for (const auto& [k, x] : v) {
            if (auto ec = w.map_key(e, k); ec != proto_errc::ok) return ec;
            if (auto ec = write_value(w, e, x); ec != proto_errc::ok) return ec;
        }
    } else if constexpr (is_shared_ptr<V>::value) {
        if (!v) {
            w.null(s);
            return proto_errc::ok;
        }
        bool define = false;
        typed_slot body;
        if (auto ec = w.object(s, v.get(), define, body); ec != proto_errc::ok || !define)
            return ec;
        return write_value(w, body, *v);
    } else if constexpr (described_record<V>) {
        return write_record(w, s, v);
    } else {
        static_assert(sizeof(V) == 0,
                      "objwire::typed: no wire form for this field type (docs/LIBRARY.md lists "
                      "the supported ones; a struct needs BOOST_DESCRIBE_STRUCT)");
    }
    return proto_errc::ok;
}

// The same message as objwire values (what the value path sends for it): for tests, for the
// encoder's lazy packing, and for code that wants to inspect or print it.
class value_builder {
  public:
    template <class V>
    value make(const V& v);

    std::vector<value> take_objects() { return std::move(objects_); }

  private:
    std::unordered_map<const void*, std::uint32_t> index_;
    std::vector<value> objects_;
};

template <class V>
value value_builder::make(const V& v) {
    if constexpr (std::is_same_v<V, bool>) {
        return v;
    } else if constexpr (std::is_integral_v<V> && std::is_unsigned_v<V> && sizeof(V) >= 8) {
        return value(v);  // throws std::out_of_range over INT64_MAX
    } else if constexpr (std::is_integral_v<V>) {
        return static_cast<std::int64_t>(v);
    } else if constexpr (std::is_floating_point_v<V>) {
        return static_cast<double>(v);
    } else if constexpr (described_enum<V>) {
        if (const std::string_view name = enumerator_name(v); !name.empty()) return name;
        return make(static_cast<std::underlying_type_t<V>>(v));
    } else if constexpr (std::is_enum_v<V>) {
        return make(static_cast<std::underlying_type_t<V>>(v));
    } else if constexpr (std::is_convertible_v<const V&, std::string_view>) {
        return std::string_view(v);
    } else if constexpr (is_byte_vector<V>) {
        objwire::bytes b;
        b.data.resize(v.size());
        if (!v.empty()) std::memcpy(b.data.data(), v.data(), v.size());
        return b;
    } else if constexpr (is_vector<V>::value) {
        list l;
        l.reserve(v.size());
        for (const auto& x : v)
            l.push_back(make(x));
        return l;
    } else if constexpr (is_optional<V>::value) {
        return v ? make(*v) : value();
    } else if constexpr (is_string_map<V>::value) {
        map m;
        m.reserve(v.size());
        for (const auto& [k, x] : v)
            m.emplace_back(k, make(x));
        return m;
    } else if constexpr (is_shared_ptr<V>::value) {
        if (!v) return value();
        const auto [it, fresh] =
            index_.try_emplace(v.get(), static_cast<std::uint32_t>(objects_.size()));
        if (fresh) {
            objects_.emplace_back();  // the index is taken before the body: cycles refer to it
            value body = make(*v);
            objects_[it->second] = std::move(body);
        }
        return object_ref{it->second};
    } else if constexpr (described_record<V>) {
        std::vector<value> fields;
        boost::mp11::mp_for_each<described_members<V>>([&](auto d) {
            if constexpr (!is_transient<V>(decltype(d)::name)) fields.push_back(make(v.*d.pointer));
        });
        return record{record_type_of<V>(), std::move(fields)};
    } else {
        static_assert(sizeof(V) == 0, "objwire::typed: no wire form for this field type");
    }
}

template <described_record T>
message to_message(const T& object) {
    value_builder b;
    value root = b.make(object);
    return message(std::move(root), b.take_objects());
}

// One described struct as a message for stream_encoder / sender / connection::send.
template <class T>  // unconstrained: include/objwire/connection.hpp declares it
class record_source final : public typed_source {
    static_assert(described_record<T>,
                  "objwire::typed: describe the struct with BOOST_DESCRIBE_STRUCT, in its own "
                  "namespace (docs/LIBRARY.md, \"Mapping a struct\")");

  public:
    explicit record_source(const T& object) : object_(object) {}
    proto_errc write(typed_writer& w, const typed_slot& root) const override {
        return write_record(w, root, object_);
    }
    message to_message() const override { return typed::to_message(object_); }

  private:
    const T& object_;
};

}  // namespace objwire::typed
