// The JSON-lines reader's values (client/jsonl/jsonl_reader_impl.hpp): the root, scalars, arrays
// and bytes. Objects are read in client/jsonl/jsonl_objects.cpp.
#include <array>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "proto/base64.hpp"

#include "client/jsonl/jsonl_diagnostics.hpp"
#include "client/jsonl/jsonl_reader_impl.hpp"

namespace objwire {

bool jsonl_reader::impl::parse_root(od::document& doc, value& dst) {
    od::json_type t;
    if (auto e = doc.type().get(t)) return fail_json(e);
    if (t == od::json_type::object) {
        od::object o;
        if (auto e = doc.get_object().get(o)) return fail_json(e);
        return parse_object(o, dst);
    }
    if (t == od::json_type::array) {
        od::array a;
        if (auto e = doc.get_array().get(a)) return fail_json(e);
        return parse_array(a, dst);
    }
    // A scalar document cannot be taken as an ondemand::value: read it through the
    // document's own getters (which also check that nothing follows it).
    return parse_scalar(doc, t, dst);
}

// Values, objects and arrays go by reference, and fields and elements are read in place:
// simdjson builds each with narrow stores, and copying one whole right after (a 16-byte load)
// stalls on store forwarding - it was a third of parse_object's time (perf annotate).
bool jsonl_reader::impl::parse_value(od::value& v, value& dst) {
    od::json_type t;
    if (auto e = v.type().get(t)) return fail_json(e);
    if (t != od::json_type::object && t != od::json_type::array) return parse_scalar(v, t, dst);
    // The parse recurses: bound the depth (the root container is level 1).
    if (++depth_ >= max_depth) {
        return fail(token_start(v), too_deep_message(max_depth));
    }
    bool ok;
    if (t == od::json_type::object) {
        od::object o;
        if (auto e = v.get_object().get(o)) return fail_json(e);
        ok = parse_object(o, dst);
    } else {
        od::array a;
        if (auto e = v.get_array().get(a)) return fail_json(e);
        ok = parse_array(a, dst);
    }
    --depth_;
    return ok;
}

const char* jsonl_reader::impl::token_start(od::document& d) {
    const char* p = nullptr;
    return d.current_location().get(p) ? nullptr : p;
}

template <class Source>  // od::value or od::document
bool jsonl_reader::impl::parse_scalar(Source& src, od::json_type t, value& dst) {
    const char* at = token_start(src);
    switch (t) {
        case od::json_type::string: {
            std::string_view s;
            if (auto e = src.get_string().get(s)) return fail_json(e, at);
            assign_text(reuse_as<std::string>(dst), s);
            return true;
        }
        case od::json_type::number: {
            if constexpr (std::is_same_v<Source, od::value>) {
                if (quick_number(src, at, dst)) return true;
            }
            // Not get_number(): in simdjson 3.0.1 it returns 0.0 for doubles of 19 or more
            // digits (its slow path writes to a copy of the result).
            od::number_type nt;
            if (auto e = src.get_number_type().get(nt)) return fail_json(e, at);
            if (nt == od::number_type::floating_point_number) {
                double d;
                if (auto e = src.get_double().get(d)) return fail_json(e, at);
                set(dst, d);
                return true;
            }
            std::int64_t i;
            auto e = nt == od::number_type::signed_integer ? src.get_int64().get(i)
                                                           : simdjson::NUMBER_OUT_OF_RANGE;
            if (e) return fail_integer(e, at);
            set(dst, i);
            return true;
        }
        case od::json_type::boolean: {
            bool b;
            if (auto e = src.get_bool().get(b)) return fail_json(e, at);
            set(dst, b);
            return true;
        }
        case od::json_type::null: {
            bool is_null = false;
            if (auto e = src.is_null().get(is_null)) return fail_json(e, at);
            if (!is_null) return fail_json(simdjson::N_ATOM_ERROR, at);
            dst = nullptr;
            return true;
        }
        default:
            return fail_json(simdjson::TAPE_ERROR, at);
    }
}

// An integer simdjson would not give as int64: out of range, or not a number at all.
bool jsonl_reader::impl::fail_integer(simdjson::error_code e, const char* at) {
    if (e != simdjson::TRAILING_CONTENT && at) {
        std::size_t n = 0, digits = 0;
        std::size_t room = static_cast<std::size_t>(base_ + line_size_ - at);
        if (n < room && at[n] == '-') ++n;
        while (n < room && at[n] >= '0' && at[n] <= '9')
            ++n, ++digits;
        bool ends = n == room || at[n] == ' ' || at[n] == '\t' || at[n] == '\r' || at[n] == ',' ||
                    at[n] == ']' || at[n] == '}';
        if (ends && digits >= 19 && at[at[0] == '-' ? 1 : 0] != '0') {
            return fail(at, integer_out_of_range_message({at, n}));
        }
    }
    return fail_json(e, at);
}

bool jsonl_reader::impl::parse_array(od::array& a, value& dst) {
    list& l = reuse_as<list>(dst);
    std::size_t n = 0;
    for (auto element : a) {
        if (auto e = element.error()) return fail_json(e);
        od::value& v = element.value_unsafe();  // in place, as parse_object's fields
        if (n == l.size()) l.emplace_back();
        if (!parse_value(v, l[n])) return false;
        ++n;
    }
    l.resize(n);
    return true;
}

bool jsonl_reader::impl::parse_bytes(od::value& v, value& dst) {
    const char* where = token_start(v);
    std::string_view s;
    if (v.get_string().get(s)) return fail(where, "\"$bytes\" must be a string of base64");
    auto bad = decode_base64(s, reuse_as<bytes>(dst).data);
    if (!bad) return true;
    std::size_t offset = *bad;
    // Point at the bad character, unless escapes make raw and decoded offsets differ.
    bool escaped = std::memchr(where, '\\', s.size() + 1) != nullptr;
    const char* at = escaped ? where : where + 1 + offset;
    std::string msg = "\"$bytes\" is not valid base64 (";
    if (offset < s.size() && s[offset] != '=')
        msg += "unexpected character '" + std::string(1, s[offset]) + "'";
    else if (offset < s.size())
        msg += "'=' padding before the end";
    else
        msg += "length " + std::to_string(s.size()) + " is not a multiple of 4";
    return fail(at, msg + "); use standard base64 (A-Z a-z 0-9 + /) with '=' padding");
}

}  // namespace objwire
