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
#include <cstring>
#include <limits>
#include <string>
#include <system_error>
#include <utility>

#include <objwire/typed_traits.hpp>
#include "proto/lazy_value.hpp"

namespace objwire::typed {

enum class typed_errc {
    wrong_type = 1,      // a stored value of another kind than the field's type
    out_of_range,        // an integer that does not fit the field's type
    unknown_enumerator,  // a name that is none of the enum's enumerators
    wrong_record,        // a record of another type than the one asked for
};
const std::error_category& typed_category() noexcept;
inline std::error_code make_error_code(typed_errc e) noexcept {
    return {static_cast<int>(e), typed_category()};
}

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

template <class I>
bool read_integer(const value& v, I& out, read_context& cx) {
    const auto* i = v.get_if<std::int64_t>();
    if (!i) return cx.fail(typed_errc::wrong_type, "integer", v);
    if (!std::in_range<I>(*i)) return cx.fail(typed_errc::out_of_range, "integer", v);
    out = static_cast<I>(*i);
    return true;
}

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
        if constexpr (!is_transient<T>(decltype(d)::name)) {
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

template <class V>
bool read_value(const value& raw, V& out, detail::read_context& cx) {
    value scratch;
    const value& v = detail::expanded(raw, scratch, cx);
    if (cx.status) return false;
    if constexpr (std::is_same_v<V, bool>) {
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
        if (const auto* i = v.get_if<std::int64_t>()) {
            std::underlying_type_t<V> u{};
            if (!detail::read_integer(v, u, cx)) return false;
            out = static_cast<V>(u);
            return true;
        }
        if constexpr (described_enum<V>) {
            const auto* s = v.get_if<std::string>();
            if (!s) return cx.fail(typed_errc::wrong_type, "enumerator name or integer", v);
            if (!boost::describe::enum_from_string(s->c_str(), out))
                return cx.fail(typed_errc::unknown_enumerator, "'" + *s + "' names no enumerator");
        } else {
            return cx.fail(typed_errc::wrong_type, "integer", v);
        }
    } else if constexpr (std::is_same_v<V, std::string>) {
        const auto* s = v.get_if<std::string>();
        if (!s) return cx.fail(typed_errc::wrong_type, "string", v);
        out = *s;
    } else if constexpr (std::is_convertible_v<const V&, std::string_view>) {
        static_assert(sizeof(V) == 0, "objwire::typed: read strings into std::string");
    } else if constexpr (is_byte_vector<V>) {
        const auto* b = v.get_if<objwire::bytes>();
        if (!b) return cx.fail(typed_errc::wrong_type, "bytes", v);
        out.resize(b->data.size());
        if (!b->data.empty()) std::memcpy(out.data(), b->data.data(), b->data.size());
    } else if constexpr (is_vector<V>::value) {
        const auto* l = v.get_if<list>();
        if (!l) return cx.fail(typed_errc::wrong_type, "list", v);
        out.clear();
        out.resize(l->size());
        const std::size_t at = cx.path.size();
        for (std::size_t i = 0; i < l->size(); ++i) {
            cx.path.append("[").append(std::to_string(i)).append("]");
            if (!read_value((*l)[i], out[i], cx)) return false;
            cx.path.resize(at);
        }
    } else if constexpr (is_optional<V>::value) {
        if (v.is_null()) {
            out.reset();
            return true;
        }
        if (!out) out.emplace();
        return read_value(v, *out, cx);
    } else if constexpr (is_string_map<V>::value) {
        const auto* m = v.get_if<map>();
        if (!m) return cx.fail(typed_errc::wrong_type, "map", v);
        out.clear();
        const std::size_t at = cx.path.size();
        for (const auto& [k, x] : *m) {
            cx.path.append("[\"").append(k).append("\"]");
            if (!read_value(x, out[k], cx)) return false;
            cx.path.resize(at);
        }
    } else if constexpr (is_shared_ptr<V>::value) {
        using pointee = typename V::element_type;
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
    } else if constexpr (described_record<V>) {
        if (const auto* ref = v.get_if<object_ref>()) {  // a shared object read as a plain copy
            const value* body = cx.object(ref->index);
            if (!body) return cx.fail(typed_errc::wrong_type, "record", v);
            return read_record(*body, out, cx);
        }
        return read_record(v, out, cx);
    } else {
        static_assert(sizeof(V) == 0, "objwire::typed: no wire form for this field type");
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

}  // namespace objwire::typed

template <>
struct std::is_error_code_enum<objwire::typed::typed_errc> : std::true_type {};
