// Sending your own structs: a struct described with BOOST_DESCRIBE_STRUCT travels as a record
// of its public fields, written straight into the frame (no objwire::value tree per object)
// with exactly the bytes the value path writes for the same record. docs/LIBRARY.md.
//
//   struct Trade { std::string sym; double px; std::int64_t qty; };
//   BOOST_DESCRIBE_STRUCT(Trade, (), (sym, px, qty))
//   ...
//   conn.send(Trade{"ACME", 12.5, 100});
//
// Fields (docs/LIBRARY.md, "Field types", has the table): integers (an unsigned one over
// 2^63-1 is refused with integer_out_of_range, never wrapped), characters, floating point,
// bool, strings, byte vectors and byte arrays as bytes, std::vector, std::array, std::deque,
// std::list and the sets as lists, std::pair and std::tuple as lists of their elements,
// std::optional and std::unique_ptr (absent: null), maps with std::string or integer keys,
// std::variant as a record "variant" {index, value}, enums (described with
// BOOST_DESCRIBE_ENUM: by name, otherwise by value), std::chrono durations and system_clock
// time points, nested described structs as records, std::shared_ptr as a shared object of the
// message (the same pointee twice is one object and a reference; cycles are references back),
// and any type given a wire form with objwire::typed::wire_form<T>.
//
// A refused write names the field: record_source::refused_at() is "Order.items[3].name".
#pragma once

#include <cstring>
#include <unordered_map>

#include <objwire/typed_traits.hpp>
#include <objwire/vocabulary.hpp>

namespace objwire::typed {

// The path of the value a write was refused at ("Order.items[3].name"), built only as the
// refusal unwinds: a write that succeeds pays nothing for it.
class write_path {
  public:
    proto_errc unwind(proto_errc ec, std::string_view segment) {
        if (ec != proto_errc::ok) text_.insert(0, segment);
        return ec;
    }
    const std::string& text() const { return text_; }
    void clear() { text_.clear(); }

  private:
    std::string text_;
};

template <class V>
proto_errc write_value(typed_writer& w, const typed_slot& s, const V& v, write_path& at);

template <described_record T>
proto_errc write_record(typed_writer& w, const typed_slot& s, const T& v, write_path& at) {
    typed_record r;
    proto_errc ec = w.begin_record(s, record_type_of<T>(), r);
    if (ec != proto_errc::ok) return ec;
    boost::mp11::mp_for_each<described_members<T>>([&](auto d) {
        if constexpr (is_sent_member<T, decltype(d)>()) {
            typed_slot f;
            if (ec == proto_errc::ok && r.next(f)) {
                ec = write_value(w, f, v.*d.pointer, at);
                if (ec != proto_errc::ok) at.unwind(ec, "." + std::string(d.name));
            }
        }
    });
    w.end_record(r);
    return ec;
}

namespace detail {

inline std::string index_segment(std::size_t i) {
    return "[" + std::to_string(i) + "]";
}

template <class C>
proto_errc write_list(typed_writer& w, const typed_slot& s, const C& c, write_path& at) {
    typed_slot e;
    if (auto ec = w.begin_list(s, std::size(c), e); ec != proto_errc::ok) return ec;
    std::size_t i = 0;
    for (const auto& x : c) {
        if (auto ec = write_value(w, e, x, at); ec != proto_errc::ok)
            return at.unwind(ec, index_segment(i));
        ++i;
    }
    return proto_errc::ok;
}

template <class M>
proto_errc write_map(typed_writer& w, const typed_slot& s, const M& m, write_path& at) {
    typed_slot e;
    if (auto ec = w.begin_map(s, m.size(), e); ec != proto_errc::ok) return ec;
    for (const auto& [k, x] : m) {
        std::string text;
        std::string_view key;
        if constexpr (std::is_integral_v<std::decay_t<decltype(k)>>) {
            text = std::to_string(k);
            key = text;
        } else {
            key = k;
        }
        proto_errc ec = w.map_key(e, key);
        if (ec == proto_errc::ok) ec = write_value(w, e, x, at);
        if (ec != proto_errc::ok) return at.unwind(ec, "[\"" + std::string(key) + "\"]");
    }
    return proto_errc::ok;
}

template <class T>
proto_errc write_tuple(typed_writer& w, const typed_slot& s, const T& t, write_path& at) {
    typed_slot e;
    constexpr std::size_t n = std::tuple_size_v<T>;
    if (auto ec = w.begin_list(s, n, e); ec != proto_errc::ok) return ec;
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
        proto_errc ec = proto_errc::ok;
        const auto element = [&](std::size_t i, const auto& x) {
            ec = write_value(w, e, x, at);
            if (ec != proto_errc::ok) at.unwind(ec, index_segment(i));
            return ec == proto_errc::ok;
        };
        (element(I, std::get<I>(t)) && ...);
        return ec;
    }
    (std::make_index_sequence<n>{});
}

template <class V>
proto_errc write_variant(typed_writer& w, const typed_slot& s, const V& v, write_path& at) {
    typed_record r;
    if (auto ec = w.begin_record(s, variant_record_type(), r); ec != proto_errc::ok) return ec;
    proto_errc ec = proto_errc::ok;
    typed_slot f;
    if (r.next(f)) w.integer(f, static_cast<std::int64_t>(v.index()));
    if (r.next(f)) {
        ec = std::visit(
            [&](const auto& x) -> proto_errc {
                if constexpr (std::is_same_v<std::decay_t<decltype(x)>, std::monostate>) {
                    w.null(f);
                    return proto_errc::ok;
                } else {
                    const proto_errc e = write_value(w, f, x, at);
                    if (e != proto_errc::ok) at.unwind(e, "<" + std::to_string(v.index()) + ">");
                    return e;
                }
            },
            v);
    }
    w.end_record(r);
    return ec;
}

}  // namespace detail

template <class V>
proto_errc write_value(typed_writer& w, const typed_slot& s, const V& v, write_path& at) {
    if constexpr (has_wire_form<V>) {
        return write_value(w, s, wire_form<V>::to_wire(v), at);
    } else if constexpr (std::is_same_v<V, bool>) {
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
        return write_value(w, s, static_cast<std::underlying_type_t<V>>(v), at);
    } else if constexpr (std::is_enum_v<V>) {
        return write_value(w, s, static_cast<std::underlying_type_t<V>>(v), at);
    } else if constexpr (std::is_convertible_v<const V&, std::string_view>) {
        return w.string(s, std::string_view(v));
    } else if constexpr (is_byte_vector<V> || is_byte_array<V>) {
        return w.bytes(s, {reinterpret_cast<const std::uint8_t*>(v.data()), v.size()});
    } else if constexpr (is_list_form<V>) {
        return detail::write_list(w, s, v, at);
    } else if constexpr (is_optional<V>::value || is_unique_ptr<V>::value) {
        if (!v) {
            w.null(s);
            return proto_errc::ok;
        }
        return write_value(w, s, *v, at);  // present: the value itself, in the field's place
    } else if constexpr (is_string_map<V>::value || is_integer_map<V>::value) {
        return detail::write_map(w, s, v, at);
    } else if constexpr (is_tuple_like<V>::value) {
        return detail::write_tuple(w, s, v, at);
    } else if constexpr (is_variant<V>::value) {
        return detail::write_variant(w, s, v, at);
    } else if constexpr (is_shared_ptr<V>::value) {
        if (!v) {
            w.null(s);
            return proto_errc::ok;
        }
        bool define = false;
        typed_slot body;
        if (auto ec = w.object(s, v.get(), define, body); ec != proto_errc::ok || !define)
            return ec;
        return write_value(w, body, *v, at);
    } else if constexpr (described_record<V>) {
        return write_record(w, s, v, at);
    } else {
        static_assert(sizeof(V) == 0,
                      "objwire::typed: no wire form for this field type (docs/LIBRARY.md lists "
                      "the supported ones; a struct needs BOOST_DESCRIBE_STRUCT, another type a "
                      "specialisation of objwire::typed::wire_form)");
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
    if constexpr (has_wire_form<V>) {
        return make(wire_form<V>::to_wire(v));
    } else if constexpr (std::is_same_v<V, bool>) {
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
    } else if constexpr (is_byte_vector<V> || is_byte_array<V>) {
        objwire::bytes b;
        b.data.resize(v.size());
        if (!v.empty()) std::memcpy(b.data.data(), v.data(), v.size());
        return b;
    } else if constexpr (is_list_form<V>) {
        list l;
        l.reserve(std::size(v));
        for (const auto& x : v)
            l.push_back(make(x));
        return l;
    } else if constexpr (is_optional<V>::value || is_unique_ptr<V>::value) {
        return v ? make(*v) : value();
    } else if constexpr (is_string_map<V>::value) {
        map m;
        m.reserve(v.size());
        for (const auto& [k, x] : v)
            m.emplace_back(k, make(x));
        return m;
    } else if constexpr (is_integer_map<V>::value) {
        map m;
        m.reserve(v.size());
        for (const auto& [k, x] : v)
            m.emplace_back(std::to_string(k), make(x));
        return m;
    } else if constexpr (is_tuple_like<V>::value) {
        return std::apply([&](const auto&... x) { return value(list{make(x)...}); }, v);
    } else if constexpr (is_variant<V>::value) {
        value alternative = std::visit(
            [&](const auto& x) -> value {
                if constexpr (std::is_same_v<std::decay_t<decltype(x)>, std::monostate>)
                    return value();
                else
                    return make(x);
            },
            v);
        std::vector<value> fields;
        fields.emplace_back(static_cast<std::int64_t>(v.index()));
        fields.push_back(std::move(alternative));
        return record{variant_record_type(), std::move(fields)};
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
            if constexpr (is_sent_member<V, decltype(d)>()) fields.push_back(make(v.*d.pointer));
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
        at_.clear();
        const proto_errc ec = write_record(w, root, object_, at_);
        if (ec != proto_errc::ok) at_.unwind(ec, record_name<T>());  // its name costs a parse
        return ec;
    }
    message to_message() const override { return typed::to_message(object_); }
    // Where the last write() was refused ("Order.items[3].name"); empty after one that was not.
    const std::string& refused_at() const { return at_.text(); }

  private:
    const T& object_;
    mutable write_path at_;
};

}  // namespace objwire::typed
