// A decoded MessagePack object (tests/bench/msgpack_wire.hpp) converted into a struct described
// with BOOST_DESCRIBE_STRUCT, its strings copied into the struct's own std::strings: what
// msgpack-cxx's `handle.get().convert(s)` does for a struct declared with MSGPACK_DEFINE (an
// array of the fields' values, by position) or MSGPACK_DEFINE_MAP (a map keyed by field name).
// The msgpack peer's receiver does this in its --struct mode (tests/bench/msgpack_peer.cpp).
//
// Fields are std::int64_t (from a positive or negative integer that fits), double (from a
// float64: the peer's sender writes every floating value so) and std::string (from a str). An
// object of another shape is refused: an array of another length, a map without every field
// exactly once or with a key that is not a field, a value of another kind.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>

#include <boost/describe/members.hpp>
#include <boost/mp11/algorithm.hpp>

#include "tests/bench/msgpack_wire.hpp"

namespace objwire::msgpack_wire {

template <class T>
using struct_fields = boost::describe::describe_members<T, boost::describe::mod_public>;

template <class T>
constexpr std::size_t field_count = boost::mp11::mp_size<struct_fields<T>>::value;

// --- One field -------------------------------------------------------------------------------

inline bool to_field(const node& n, std::int64_t& out) {
    if (n.type == kind::integer) {
        out = n.as.integer;
        return true;
    }
    if (n.type != kind::uinteger || n.as.uinteger > std::numeric_limits<std::int64_t>::max())
        return false;
    out = static_cast<std::int64_t>(n.as.uinteger);
    return true;
}

inline bool to_field(const node& n, double& out) {
    if (n.type != kind::float64) return false;
    out = n.as.float64;
    return true;
}

inline bool to_field(const node& n, std::string& out) {
    if (n.type != kind::str) return false;
    out.assign(n.text());
    return true;
}

// --- The struct ------------------------------------------------------------------------------

namespace detail {

template <template <class...> class L, class... D>
constexpr std::array<std::string_view, sizeof...(D)> names_of(L<D...>) {
    return {std::string_view(D::name)...};
}

// The index of the field named `key`, field_count<T> when none is.
template <class T>
std::size_t field_named(std::string_view key) {
    static constexpr auto names = names_of(struct_fields<T>{});
    std::size_t i = 0;
    while (i < names.size() && names[i] != key)
        ++i;
    return i;
}

// Field `i` of `out` from `n`.
template <class T>
bool to_field_at(const node& n, std::size_t i, T& out) {
    return boost::mp11::mp_with_index<field_count<T>>(i, [&](auto index) {
        using field = boost::mp11::mp_at_c<struct_fields<T>, decltype(index)::value>;
        return to_field(n, out.*field::pointer);
    });
}

template <class T>
bool from_array(const decoder& d, const node& n, T& out) {
    if (n.type != kind::array || n.size != field_count<T>) return false;
    bool ok = true;
    std::uint32_t i = 0;
    boost::mp11::mp_for_each<struct_fields<T>>(
        [&](auto field) { ok = ok && to_field(d.at(n.as.first + i++), out.*field.pointer); });
    return ok;
}

// Keys in any order; as many pairs as fields and none twice means every field is there.
template <class T>
bool from_map(const decoder& d, const node& n, T& out) {
    static_assert(field_count<T> <= 64, "one bit per field in `seen`");
    if (n.type != kind::map || n.size != field_count<T>) return false;
    std::uint64_t seen = 0;
    for (std::uint32_t pair = 0; pair < n.size; ++pair) {
        const node& key = d.at(n.as.first + 2 * pair);
        if (key.type != kind::str) return false;
        const std::size_t i = field_named<T>(key.text());
        if (i == field_count<T> || ((seen >> i) & 1) != 0) return false;
        seen |= std::uint64_t{1} << i;
        if (!to_field_at(d.at(n.as.first + 2 * pair + 1), i, out)) return false;
    }
    return true;
}

}  // namespace detail

// The object `d` decoded last, as a `T`: by position when `form` is array, by field name when
// it is map. False when its shape does not match T's (`out` is then partly assigned).
template <class T>
bool to_struct(const decoder& d, record_form form, T& out) {
    return form == record_form::array ? detail::from_array(d, d.root(), out)
                                      : detail::from_map(d, d.root(), out);
}

// --- The sink --------------------------------------------------------------------------------

// A checksum of a struct, modulo 2^64: its strings' lengths, its integers and its doubles' bits.
// Summed over the objects received it is the check value the peer reports, equal to the one of
// the records sent.
template <class T>
std::uint64_t struct_check(const T& s) {
    std::uint64_t sum = 0;
    boost::mp11::mp_for_each<struct_fields<T>>([&](auto field) {
        const auto& v = s.*field.pointer;
        using V = std::remove_cvref_t<decltype(v)>;
        if constexpr (std::is_same_v<V, std::string>)
            sum += v.size();
        else if constexpr (std::is_same_v<V, double>)
            sum += std::bit_cast<std::uint64_t>(v);
        else
            sum += static_cast<std::uint64_t>(v);
    });
    return sum;
}

}  // namespace objwire::msgpack_wire
