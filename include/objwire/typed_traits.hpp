// How a described struct maps to a record: its field names come from Boost.Describe
// (BOOST_DESCRIBE_STRUCT), its record name and transient fields from the type itself or from
// objwire::typed::record_traits. Shared by the typed writer (include/objwire/typed.hpp) and reader
// (include/objwire/typed_read.hpp). docs/LIBRARY.md, "Mapping a struct".
//
//   struct Trade {
//       std::string sym; double px; std::int64_t qty; std::string note;
//       static constexpr std::string_view objwire_name = "Trade";          // optional
//       static constexpr std::array<std::string_view, 1> objwire_transient{"note"};  // optional
//   };
//   BOOST_DESCRIBE_STRUCT(Trade, (), (sym, px, qty, note))
//
// For a type you cannot change, specialise record_traits instead of the two members.
#pragma once

#include <boost/describe/class.hpp>
#include <boost/describe/enum.hpp>
#include <boost/describe/enumerators.hpp>
#include <boost/describe/members.hpp>
#include <boost/mp11/algorithm.hpp>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "proto/value.hpp"

namespace objwire::typed {

// Specialise for a type you cannot change:
//   template <> struct objwire::typed::record_traits<lib::Point> {
//       static constexpr std::string_view name = "Point";
//       static constexpr std::array<std::string_view, 0> transient{};
//   };
template <class T>
struct record_traits {};

// Members described by BOOST_DESCRIBE_STRUCT / BOOST_DESCRIBE_CLASS: the public ones, those of
// described bases first.
template <class T>
using described_members = boost::describe::describe_members<T, boost::describe::mod_public |
                                                                   boost::describe::mod_inherited>;

template <class T>
concept described_record = std::is_class_v<T> && boost::describe::has_describe_members<T>::value;

template <class E>
concept described_enum = std::is_enum_v<E> && boost::describe::has_describe_enumerators<E>::value;

namespace detail {

// The unqualified name of T, from the compiler's spelling of this function's signature.
template <class T>
std::string_view spelled_name() {
    std::string_view s = __PRETTY_FUNCTION__;
    const auto at = s.find("T = ");
    if (at == std::string_view::npos) return "record";
    s.remove_prefix(at + 4);
    s = s.substr(0, s.find_first_of(";]"));
    // The last component outside template arguments.
    int nesting = 0;
    std::size_t start = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '<') ++nesting;
        if (s[i] == '>') --nesting;
        if (nesting == 0 && s[i] == ':' && i + 1 < s.size() && s[i + 1] == ':') start = i + 2;
    }
    return s.substr(start);
}

template <class T>
constexpr std::span<const std::string_view> transient_fields() {
    if constexpr (requires { record_traits<T>::transient; })
        return record_traits<T>::transient;
    else if constexpr (requires { T::objwire_transient; })
        return T::objwire_transient;
    else
        return {};
}

}  // namespace detail

// The record name T travels under: record_traits<T>::name, T::objwire_name, or T's own
// unqualified name.
template <class T>
std::string_view record_name() {
    if constexpr (requires { record_traits<T>::name; })
        return record_traits<T>::name;
    else if constexpr (requires { T::objwire_name; })
        return T::objwire_name;
    else
        return detail::spelled_name<T>();
}

// Whether a field of T is declared transient: it is never sent and never read.
template <class T>
constexpr bool is_transient(std::string_view field) {
    for (std::string_view f : detail::transient_fields<T>())
        if (f == field) return true;
    return false;
}

// The record type T is sent as: its name and its described fields less the transient ones.
// Made once per type and shared, so the encoder recognises it by pointer.
template <described_record T>
const record_type_ptr& record_type_of() {
    static const record_type_ptr type = [] {
        std::vector<std::string> fields;
        boost::mp11::mp_for_each<described_members<T>>([&](auto d) {
            if (!is_transient<T>(d.name)) fields.emplace_back(d.name);
        });
        return make_record_type(std::string(record_name<T>()), std::move(fields));
    }();
    return type;
}

// Field types: what a value of each C++ type is on the wire.
template <class T>
struct is_shared_ptr : std::false_type {};
template <class T>
struct is_shared_ptr<std::shared_ptr<T>> : std::true_type {};
template <class T>
struct is_optional : std::false_type {};
template <class T>
struct is_optional<std::optional<T>> : std::true_type {};
template <class T>
struct is_vector : std::false_type {};
template <class T, class A>
struct is_vector<std::vector<T, A>> : std::true_type {};
template <class T>
struct is_string_map : std::false_type {};
template <class V, class C, class A>
struct is_string_map<std::map<std::string, V, C, A>> : std::true_type {};
template <class V, class H, class E, class A>
struct is_string_map<std::unordered_map<std::string, V, H, E, A>> : std::true_type {};

// Byte vectors travel as bytes, not as lists of small integers.
template <class T>
inline constexpr bool is_byte_vector =
    std::is_same_v<T, std::vector<std::uint8_t>> || std::is_same_v<T, std::vector<std::byte>>;

// The name of an enumerator of a described enum, or empty for a value that has none.
template <described_enum E>
std::string_view enumerator_name(E e) {
    std::string_view name;
    boost::mp11::mp_for_each<boost::describe::describe_enumerators<E>>([&](auto d) {
        if (d.value == e) name = d.name;
    });
    return name;
}

}  // namespace objwire::typed
