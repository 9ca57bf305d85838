// Reading described structs back from stored messages (include/objwire/typed.hpp writes them).
// Fields are matched by name, so a reader built against an older or newer struct still reads: a
// field the record lacks keeps its default, a record field the struct lacks is skipped. A field
// whose stored value cannot become the struct's type is an error naming the type, the field and the
// message's offset. docs/LIBRARY.md, "Schema evolution".
//
//   Trade t;
//   if (auto st = objwire::typed::decode(stored.value, t, stored.offset)) report(st.detail);
//
// Widening is allowed (an integer into a floating-point field; any integer that fits the
// field's type), narrowing that loses the value is not. Shared objects come back as shared
// pointers to one object per stored object; a cycle of std::shared_ptr is a cycle the program
// must break to free it (reset one link), as with any shared_ptr cycle.
#pragma once

#include <boost/describe/enum_from_string.hpp>
#include <charconv>
#include <cstring>
#include <limits>
#include <string>
#include <system_error>
#include <utility>
#include <variant>

#include <objwire/typed_traits.hpp>
#include <objwire/vocabulary.hpp>

namespace objwire::typed {

enum class typed_errc {
    wrong_type = 1,      // a stored value of another kind than the field's type
    out_of_range,        // an integer that does not fit the field's type
    unknown_enumerator,  // a name that is none of the enum's enumerators
    wrong_record,        // a record of another type than the one asked for
    refused_value,       // a value the field type's wire_form<T>::from_wire refused
};
const std::error_category& typed_category() noexcept;
inline std::error_code make_error_code(typed_errc e) noexcept {
    return {static_cast<int>(e), typed_category()};
}

}  // namespace objwire::typed

// Before the first assignment of a typed_errc to an error_code below: clang rejects a
// specialization after that use.
template <>
struct std::is_error_code_enum<objwire::typed::typed_errc> : std::true_type {};

namespace objwire::typed {

// What went wrong, with the type, field and offset in `detail`; false: nothing.
struct decode_status {
    std::error_code code;
    std::string detail;
    explicit operator bool() const { return static_cast<bool>(code); }
};

namespace detail {

// The message being read: its objects (each made once, for identity and cycles), where it is,
// and the path to the value being read, for errors.
class read_context {
  public:
    read_context(const message& m, std::uint64_t offset) : m_(m), offset_(offset) {
        made_.resize(m.objects.size());
    }

    const value* object(std::uint32_t index) const {
        return index < m_.objects.size() ? &m_.objects[index] : nullptr;
    }
    std::shared_ptr<void>& made(std::uint32_t index) { return made_[index]; }

    std::string path;  // "Trade.legs[2].px"
    decode_status status;

    bool fail(typed_errc e, std::string_view expected, const value& found);
    bool fail(typed_errc e, std::string text);

  private:
    const message& m_;
    std::uint64_t offset_;
    std::vector<std::shared_ptr<void>> made_;
};

const char* kind_name(const value& v);

// A lazy value expanded, or v itself.
const value& expanded(const value& v, value& scratch, read_context& cx);

// std::in_range, for the character types too (which it does not take).
template <class I>
bool fits(std::int64_t i) {
    if constexpr (is_character<I>) {
        using as = std::conditional_t<std::is_signed_v<I>, std::int64_t, std::uint64_t>;
        return std::in_range<as>(i) &&
               static_cast<as>(i) >= static_cast<as>(std::numeric_limits<I>::min()) &&
               static_cast<as>(i) <= static_cast<as>(std::numeric_limits<I>::max());
    } else {
        return std::in_range<I>(i);
    }
}

template <class I>
bool read_integer(const value& v, I& out, read_context& cx) {
    const auto* i = v.get_if<std::int64_t>();
    if (!i) return cx.fail(typed_errc::wrong_type, "integer", v);
    if (!fits<I>(*i)) return cx.fail(typed_errc::out_of_range, "integer", v);
    out = static_cast<I>(*i);
    return true;
}

// Appends "[i]" to the path while one element is read.
class path_segment {
  public:
    path_segment(read_context& cx, std::string_view open, std::string_view text,
                 std::string_view close)
        : cx_(cx), at_(cx.path.size()) {
        cx.path.append(open).append(text).append(close);
    }
    path_segment(const path_segment&) = delete;
    path_segment& operator=(const path_segment&) = delete;
    ~path_segment() { cx_.path.resize(at_); }

  private:
    read_context& cx_;
    std::size_t at_;
};

}  // namespace detail

template <class V>
bool read_value(const value& raw, V& out, detail::read_context& cx);

// Out of line: a struct's reader is one function per type, whatever nests it (which also
// keeps GCC's -Wmaybe-uninitialized from tracing a whole struct through its callers).
template <described_record T>
[[gnu::noinline]] bool read_record(const value& v, T& out, detail::read_context& cx) {
    const auto* r = v.get_if<record>();
    if (!r || !r->type) return cx.fail(typed_errc::wrong_type, "record", v);
    if (r->type->name != record_name<T>())
        return cx.fail(typed_errc::wrong_record, "a record " + std::string(record_name<T>()) +
                                                     ", found a record " + r->type->name);
    const std::size_t at = cx.path.size();
    bool ok = true;
    boost::mp11::mp_for_each<described_members<T>>([&](auto d) {
        if constexpr (is_sent_member<T, decltype(d)>()) {
            if (!ok) return;
            const int i = r->type->field_index(d.name);
            if (i < 0 || static_cast<std::size_t>(i) >= r->fields.size()) return;  // added field
            cx.path.append(".").append(d.name);
            ok = read_value(r->fields[static_cast<std::size_t>(i)], out.*d.pointer, cx);
            cx.path.resize(at);
        }
    });
    return ok;
}

namespace detail {

template <class E>
bool read_enum(const value& v, E& out, read_context& cx) {
    if (v.get_if<std::int64_t>()) {
        std::underlying_type_t<E> u{};
        if (!read_integer(v, u, cx)) return false;
        out = static_cast<E>(u);
        return true;
    }
    if constexpr (described_enum<E>) {
        const auto* s = v.get_if<std::string>();
        if (!s) return cx.fail(typed_errc::wrong_type, "enumerator name or integer", v);
        if (boost::describe::enum_from_string(s->c_str(), out)) return true;
        if constexpr (has_enum_fallback<E>) {
            out = enum_traits<E>::fallback;  // a newer writer's enumerator
            return true;
        } else {
            return cx.fail(typed_errc::unknown_enumerator,
                           "'" + *s + "' names no enumerator of " + std::string(spelled_name<E>()));
        }
    } else {
        return cx.fail(typed_errc::wrong_type, "integer", v);
    }
}

template <class C>
bool read_list(const value& v, C& out, read_context& cx) {
    const auto* l = v.get_if<list>();
    if (!l) return cx.fail(typed_errc::wrong_type, "list", v);
    if constexpr (is_std_array<C>::value) {
        if (l->size() != out.size())
            return cx.fail(typed_errc::wrong_type,
                           "expected a list of " + std::to_string(out.size()) +
                               ", found a list of " + std::to_string(l->size()));
    } else {
        out.clear();
    }
    if constexpr (is_vector<C>::value) out.resize(l->size());
    for (std::size_t i = 0; i < l->size(); ++i) {
        const path_segment at(cx, "[", std::to_string(i), "]");
        if constexpr (std::is_same_v<C, std::vector<bool>>) {
            bool b = false;
            if (!read_value((*l)[i], b, cx)) return false;
            out[i] = b;
        } else if constexpr (is_vector<C>::value || is_std_array<C>::value) {
            if (!read_value((*l)[i], out[i], cx)) return false;
        } else if constexpr (requires { out.emplace_back(); }) {  // deque, list
            if (!read_value((*l)[i], out.emplace_back(), cx)) return false;
        } else {  // the sets
            typename C::value_type x{};
            if (!read_value((*l)[i], x, cx)) return false;
            out.insert(std::move(x));
        }
    }
    return true;
}

template <class M>
bool read_map(const value& v, M& out, read_context& cx) {
    const auto* m = v.get_if<map>();
    if (!m) return cx.fail(typed_errc::wrong_type, "map", v);
    out.clear();
    for (const auto& [k, x] : *m) {
        const path_segment at(cx, "[\"", k, "\"]");
        if constexpr (is_integer_map<M>::value) {
            typename M::key_type key{};
            const auto [end, ec] = std::from_chars(k.data(), k.data() + k.size(), key);
            if (ec != std::errc{} || end != k.data() + k.size())
                return cx.fail(typed_errc::wrong_type,
                               "expected an integer key, found '" + k + "'");
            if (!read_value(x, out[key], cx)) return false;
        } else {
            if (!read_value(x, out[k], cx)) return false;
        }
    }
    return true;
}

template <class T>
bool read_tuple(const value& v, T& out, read_context& cx) {
    constexpr std::size_t n = std::tuple_size_v<T>;
    const auto* l = v.get_if<list>();
    if (!l) return cx.fail(typed_errc::wrong_type, "list", v);
    if (l->size() != n)
        return cx.fail(typed_errc::wrong_type, "expected a list of " + std::to_string(n) +
                                                   ", found a list of " +
                                                   std::to_string(l->size()));
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
        const auto element = [&](std::size_t i, auto& x) {
            const path_segment at(cx, "[", std::to_string(i), "]");
            return read_value((*l)[i], x, cx);
        };
        return (element(I, std::get<I>(out)) && ...);
    }
    (std::make_index_sequence<n>{});
}

template <class V>
bool read_variant(const value& v, V& out, read_context& cx) {
    const auto* r = v.get_if<record>();
    if (!r || !r->type || r->type->name != variant_record_type()->name)
        return cx.fail(typed_errc::wrong_type, "a record variant", v);
    const int index_at = r->type->field_index("index");
    const int value_at = r->type->field_index("value");
    std::int64_t index = -1;
    if (index_at < 0 || static_cast<std::size_t>(index_at) >= r->fields.size())
        return cx.fail(typed_errc::wrong_type, "expected a variant with an index");
    if (!read_value(r->fields[static_cast<std::size_t>(index_at)], index, cx)) return false;
    if (index < 0 || static_cast<std::uint64_t>(index) >= std::variant_size_v<V>)
        return cx.fail(typed_errc::out_of_range,
                       "variant index " + std::to_string(index) + " out of the field's " +
                           std::to_string(std::variant_size_v<V>) + " alternatives");
    const value null;
    const value& body = value_at >= 0 && static_cast<std::size_t>(value_at) < r->fields.size()
                            ? r->fields[static_cast<std::size_t>(value_at)]
                            : null;
    return boost::mp11::mp_with_index<std::variant_size_v<V>>(
        static_cast<std::size_t>(index), [&](auto i) {
            auto& x = out.template emplace<i>();
            if constexpr (std::is_same_v<std::decay_t<decltype(x)>, std::monostate>) {
                return body.is_null() ? true : cx.fail(typed_errc::wrong_type, "null", body);
            } else {
                const path_segment at(cx, "<", std::to_string(i), ">");
                return read_value(body, x, cx);
            }
        });
}

template <class P>
bool read_shared(const value& v, P& out, read_context& cx) {
    using pointee = std::remove_const_t<typename P::element_type>;
    if (v.is_null()) {
        out.reset();
        return true;
    }
    const auto* ref = v.get_if<object_ref>();
    if (!ref) {  // stored inline: an object of its own
        auto p = std::make_shared<pointee>();
        if (!read_value(v, *p, cx)) return false;
        out = std::move(p);
        return true;
    }
    const value* body = cx.object(ref->index);
    if (!body) return cx.fail(typed_errc::wrong_type, "a shared object", v);
    std::shared_ptr<void>& made = cx.made(ref->index);
    if (made) {  // met before (or being read: a cycle back to it)
        out = std::static_pointer_cast<pointee>(made);
        return true;
    }
    auto p = std::make_shared<pointee>();
    made = p;  // before its body, so a cycle back to it finds it
    out = p;
    return read_value(*body, *p, cx);
}

template <class V>
bool read_wire_form(const value& v, V& out, read_context& cx) {
    typename wire_form<V>::wire_type w{};
    if (!read_value(v, w, cx)) return false;
    if constexpr (std::is_same_v<decltype(wire_form<V>::from_wire(w, out)), void>) {
        wire_form<V>::from_wire(w, out);
        return true;
    } else {
        if (wire_form<V>::from_wire(w, out)) return true;
        return cx.fail(
            typed_errc::refused_value,
            "a value wire_form<" + std::string(spelled_name<V>()) + ">::from_wire refused");
    }
}

}  // namespace detail

template <class V>
bool read_value(const value& raw, V& out, detail::read_context& cx) {
    value scratch;
    const value& v = detail::expanded(raw, scratch, cx);
    if (cx.status) return false;
    if constexpr (has_wire_form<V>) {
        static_assert(readable_wire_form<V>,
                      "objwire::typed: this type's wire_form has no from_wire(const wire_type&, "
                      "T&): it can be sent but not read (docs/LIBRARY.md, \"Your own field "
                      "types\")");
        return detail::read_wire_form(v, out, cx);
    } else if constexpr (std::is_same_v<V, bool>) {
        const auto* b = v.get_if<bool>();
        if (!b) return cx.fail(typed_errc::wrong_type, "bool", v);
        out = *b;
    } else if constexpr (std::is_integral_v<V>) {
        return detail::read_integer(v, out, cx);
    } else if constexpr (std::is_floating_point_v<V>) {
        if (const auto* d = v.get_if<double>())
            out = static_cast<V>(*d);
        else if (const auto* i = v.get_if<std::int64_t>())
            out = static_cast<V>(*i);  // an integer field that became floating point
        else
            return cx.fail(typed_errc::wrong_type, "number", v);
    } else if constexpr (std::is_enum_v<V>) {
        return detail::read_enum(v, out, cx);
    } else if constexpr (std::is_same_v<V, std::string>) {
        const auto* s = v.get_if<std::string>();
        if (!s) return cx.fail(typed_errc::wrong_type, "string", v);
        out = *s;
    } else if constexpr (std::is_convertible_v<const V&, std::string_view>) {
        static_assert(sizeof(V) == 0,
                      "objwire::typed: a std::string_view or const char* field can be sent but "
                      "not read (nothing would own the characters): declare it std::string");
    } else if constexpr (is_byte_vector<V> || is_byte_array<V>) {
        const auto* b = v.get_if<objwire::bytes>();
        if (!b) return cx.fail(typed_errc::wrong_type, "bytes", v);
        if constexpr (is_byte_array<V>) {
            if (b->data.size() != out.size())
                return cx.fail(typed_errc::wrong_type, "expected " + std::to_string(out.size()) +
                                                           " bytes, found " +
                                                           std::to_string(b->data.size()));
        } else {
            out.resize(b->data.size());
        }
        if (!b->data.empty()) std::memcpy(out.data(), b->data.data(), b->data.size());
    } else if constexpr (is_list_form<V>) {
        return detail::read_list(v, out, cx);
    } else if constexpr (is_optional<V>::value) {
        if (v.is_null()) {
            out.reset();
            return true;
        }
        if (!out) out.emplace();
        return read_value(v, *out, cx);
    } else if constexpr (is_unique_ptr<V>::value) {
        if (v.is_null()) {
            out.reset();
            return true;
        }
        auto p = std::make_unique<typename V::element_type>();
        if (!read_value(v, *p, cx)) return false;
        out = std::move(p);
    } else if constexpr (is_string_map<V>::value || is_integer_map<V>::value) {
        return detail::read_map(v, out, cx);
    } else if constexpr (is_tuple_like<V>::value) {
        return detail::read_tuple(v, out, cx);
    } else if constexpr (is_variant<V>::value) {
        return detail::read_variant(v, out, cx);
    } else if constexpr (is_shared_ptr<V>::value) {
        return detail::read_shared(v, out, cx);
    } else if constexpr (described_record<V>) {
        if (const auto* ref = v.get_if<object_ref>()) {  // a shared object read as a plain copy
            const value* body = cx.object(ref->index);
            if (!body) return cx.fail(typed_errc::wrong_type, "record", v);
            return read_record(*body, out, cx);
        }
        return read_record(v, out, cx);
    } else {
        static_assert(sizeof(V) == 0,
                      "objwire::typed: no wire form for this field type (docs/LIBRARY.md lists "
                      "the supported ones; a struct needs BOOST_DESCRIBE_STRUCT, another type a "
                      "specialisation of objwire::typed::wire_form)");
    }
    return true;
}

// The record name of a message's root ("" when it is no record): to tell types apart in a
// stream that carries several.
std::string_view root_record_name(const message& m);

// Reads `out` from a message; `offset` (its journal offset, or its place in a file) goes into
// errors. The struct is read into a T{} (a field the stored record lacks has the struct's
// default) and moved to `out` on success; on an error `out` is left as it was.
template <described_record T>
decode_status decode(const message& m, T& out, std::uint64_t offset = 0) {
    detail::read_context cx(m, offset);
    cx.path = record_name<T>();
    // On the heap: GCC 12 reports a value-initialised aggregate of strings on the stack as
    // "maybe uninitialized" (a false positive that -Werror would make fatal in user code).
    auto fresh = std::make_unique<T>();
    if (read_value(m.root, *fresh, cx)) out = std::move(*fresh);
    return std::move(cx.status);
}

// Whether a message's root is a record T reads (its record name is T's).
template <described_record T>
bool holds(const message& m) {
    return root_record_name(m) == record_name<T>();
}

// Reads a message of one of several record types into the alternative of that name (the
// first one, should two share a name); a record of none of them is wrong_record.
template <described_record... Ts>
decode_status decode(const message& m, std::variant<Ts...>& out, std::uint64_t offset = 0) {
    decode_status status;
    const bool matched = (... || (holds<Ts>(m) && [&] {
                              auto t = std::make_unique<Ts>();  // as decode(): on the heap
                              status = decode(m, *t, offset);
                              if (!status) out = std::move(*t);
                              return true;
                          }()));
    if (!matched) {
        std::string names;
        ((names += (names.empty() ? "" : ", ") + std::string(record_name<Ts>())), ...);
        status.code = typed_errc::wrong_record;
        status.detail =
            "a record of " + names + ", found " +
            (root_record_name(m).empty() ? std::string("no record")
                                         : "a record " + std::string(root_record_name(m))) +
            " (message at offset " + std::to_string(offset) + ")";
    }
    return status;
}

}  // namespace objwire::typed
