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

#include <array>
#include <boost/describe/class.hpp>
#include <boost/describe/enum.hpp>
#include <boost/describe/enumerators.hpp>
#include <boost/describe/members.hpp>
#include <boost/mp11/algorithm.hpp>
#include <chrono>
#include <cstdint>
#include <deque>
#include <list>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <variant>
#include <vector>

#include <objwire/vocabulary.hpp>

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

// The customization point for a field type's wire form: specialise wire_form<T> to send T as
// a type that already has one, and to read it back (docs/LIBRARY.md, "Your own field types").
//
//   template <> struct objwire::typed::wire_form<shop::money> {
//       using wire_type = std::int64_t;                          // what travels
//       static wire_type to_wire(const shop::money& m) { return m.cents; }
//       static bool from_wire(const wire_type& cents, shop::money& out) {
//           out = shop::money{cents};
//           return true;                                         // false: refused on reading
//       }
//   };
//
// from_wire may also return void (every wire value is acceptable). A type with only to_wire
// can be sent but not read.
template <class T>
struct wire_form {};

template <class T>
concept has_wire_form = requires(const T& v) {
    typename wire_form<T>::wire_type;
    wire_form<T>::to_wire(v);
};

template <class T>
concept readable_wire_form = has_wire_form<T> &&
    requires(const typename wire_form<T>::wire_type& w, T& out) {
    wire_form<T>::from_wire(w, out);
};

// std::u8string: a string, as std::string (its UTF-8 is checked on sending like any string's).
template <>
struct wire_form<std::u8string> {
    using wire_type = std::string;
    static std::string to_wire(const std::u8string& s) { return {s.begin(), s.end()}; }
    static void from_wire(const std::string& s, std::u8string& out) {
        out.assign(s.begin(), s.end());
    }
};

// A std::chrono duration travels as the count of its own ticks: an integer for an integer
// representation (std::chrono::milliseconds{1500} is 1500), a float64 for a floating one. The
// unit is the C++ type's, not the wire's: read it into the same period (or convert after).
template <class Rep, class Period>
struct wire_form<std::chrono::duration<Rep, Period>> {
    using wire_type = Rep;
    static Rep to_wire(const std::chrono::duration<Rep, Period>& d) { return d.count(); }
    static void from_wire(const Rep& ticks, std::chrono::duration<Rep, Period>& out) {
        out = std::chrono::duration<Rep, Period>(ticks);
    }
};

// A system_clock time point travels as integer nanoseconds since the Unix epoch (UTC), whatever
// its own duration, so a reader may use another one: ±292 years around 1970 fit.
template <class Duration>
struct wire_form<std::chrono::time_point<std::chrono::system_clock, Duration>> {
    using time_point = std::chrono::time_point<std::chrono::system_clock, Duration>;
    using wire_type = std::int64_t;
    static std::int64_t to_wire(const time_point& t) {
        return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
    }
    static void from_wire(const std::int64_t& ns, time_point& out) {
        out = time_point(std::chrono::duration_cast<Duration>(std::chrono::nanoseconds(ns)));
    }
};

// Field types: what a value of each C++ type is on the wire.
template <class T>
struct is_shared_ptr : std::false_type {};
template <class T>
struct is_shared_ptr<std::shared_ptr<T>> : std::true_type {};
template <class T>
struct is_unique_ptr : std::false_type {};
template <class T>
struct is_unique_ptr<std::unique_ptr<T>> : std::true_type {};
template <class T>
struct is_optional : std::false_type {};
template <class T>
struct is_optional<std::optional<T>> : std::true_type {};
template <class T>
struct is_vector : std::false_type {};
template <class T, class A>
struct is_vector<std::vector<T, A>> : std::true_type {};
template <class T>
struct is_std_array : std::false_type {};
template <class T, std::size_t N>
struct is_std_array<std::array<T, N>> : std::true_type {};
template <class T>
struct is_string_map : std::false_type {};
template <class V, class C, class A>
struct is_string_map<std::map<std::string, V, C, A>> : std::true_type {};
template <class V, class H, class E, class A>
struct is_string_map<std::unordered_map<std::string, V, H, E, A>> : std::true_type {};
template <class T>
struct is_variant : std::false_type {};
template <class... T>
struct is_variant<std::variant<T...>> : std::true_type {};
template <class T>
struct is_tuple_like : std::false_type {};
template <class A, class B>
struct is_tuple_like<std::pair<A, B>> : std::true_type {};
template <class... T>
struct is_tuple_like<std::tuple<T...>> : std::true_type {};

// The character types: sent as their integer code, read back into the same type.
template <class T>
inline constexpr bool is_character =
    std::is_same_v<T, char> || std::is_same_v<T, wchar_t> || std::is_same_v<T, char8_t> ||
    std::is_same_v<T, char16_t> || std::is_same_v<T, char32_t>;

// Integer map keys travel as their decimal text: the wire's map keys are strings.
template <class K>
inline constexpr bool is_integer_key =
    std::is_integral_v<K> && !std::is_same_v<K, bool> && !is_character<K>;
template <class T>
struct is_integer_map : std::false_type {};
template <class K, class V, class C, class A>
struct is_integer_map<std::map<K, V, C, A>> : std::bool_constant<is_integer_key<K>> {};
template <class K, class V, class H, class E, class A>
struct is_integer_map<std::unordered_map<K, V, H, E, A>> : std::bool_constant<is_integer_key<K>> {};

// Containers other than std::vector that travel as a list, like it.
template <class T>
struct is_other_sequence : std::false_type {};
template <class T, class A>
struct is_other_sequence<std::deque<T, A>> : std::true_type {};
template <class T, class A>
struct is_other_sequence<std::list<T, A>> : std::true_type {};
template <class T, class C, class A>
struct is_other_sequence<std::set<T, C, A>> : std::true_type {};
template <class T, class C, class A>
struct is_other_sequence<std::multiset<T, C, A>> : std::true_type {};
template <class T, class H, class E, class A>
struct is_other_sequence<std::unordered_set<T, H, E, A>> : std::true_type {};
template <class T, class H, class E, class A>
struct is_other_sequence<std::unordered_multiset<T, H, E, A>> : std::true_type {};

// Byte vectors and byte arrays travel as bytes, not as lists of small integers.
template <class T>
inline constexpr bool is_byte_vector =
    std::is_same_v<T, std::vector<std::uint8_t>> || std::is_same_v<T, std::vector<std::byte>>;
template <class T>
inline constexpr bool is_byte_array = false;
template <std::size_t N>
inline constexpr bool is_byte_array<std::array<std::uint8_t, N>> = true;
template <std::size_t N>
inline constexpr bool is_byte_array<std::array<std::byte, N>> = true;

// Any container that travels as a list.
template <class T>
inline constexpr bool is_list_form =
    !is_byte_vector<T> && !is_byte_array<T> &&
    (is_vector<T>::value || is_std_array<T>::value || is_other_sequence<T>::value);

// Whether a field of type V has a wire form, as write_value() and value_builder::make() take
// it: containers, pointers, tuples and variants by their elements; a described struct counts
// as one (its own members are checked where it is written, which also ends the recursion of
// a struct that holds itself through a pointer).
template <class V>
constexpr bool has_field_form() {
    if constexpr (!std::is_same_v<V, std::remove_cv_t<V>>)  // shared_ptr<const T>'s element
        return has_field_form<std::remove_cv_t<V>>();
    else if constexpr (has_wire_form<V> || std::is_arithmetic_v<V> || std::is_enum_v<V> ||
                       std::is_convertible_v<const V&, std::string_view> || is_byte_vector<V> ||
                       is_byte_array<V> || described_record<V> || std::is_same_v<V, std::monostate>)
        return true;
    else if constexpr (is_list_form<V> || is_optional<V>::value)
        return has_field_form<typename V::value_type>();
    else if constexpr (is_unique_ptr<V>::value || is_shared_ptr<V>::value)
        return has_field_form<typename V::element_type>();
    else if constexpr (is_string_map<V>::value || is_integer_map<V>::value)
        return has_field_form<typename V::mapped_type>();
    else if constexpr (is_tuple_like<V>::value || is_variant<V>::value)
        return []<template <class...> class L, class... A>(std::type_identity<L<A...>>) {
            return (has_field_form<A>() && ...);
        }(std::type_identity<V>{});
    else
        return false;
}

// A member's name as a template argument, so that a compiler error shows it
// (`Member = objwire::typed::member_name<5>{"lock"}`).
template <std::size_t N>
struct member_name {
    char text[N]{};
    constexpr member_name(const char* s) {
        for (std::size_t i = 0; i + 1 < N; ++i)
            text[i] = s[i];
    }
};

template <class D>
constexpr auto member_name_of() {
    constexpr std::size_t length = std::char_traits<char>::length(D::name);
    return member_name<length + 1>(D::name);
}

// Instantiated only for a member that has no wire form: the error's first line names the
// struct, the member and its type.
template <class Record, auto Member, class Type>
constexpr void member_has_no_wire_form() {
    static_assert(sizeof(Type) == 0,
                  "objwire: member has no wire form (Record, Member and Type above name it): give "
                  "its type one (BOOST_DESCRIBE_STRUCT, a specialisation of "
                  "objwire::typed::wire_form; docs/LIBRARY.md lists the supported types) or make "
                  "the member transient");
}

// Whether member D of the described struct T has a wire form; stops the compile, naming it,
// when not.
template <class T, class D>
constexpr bool member_has_wire_form() {
    using M = std::remove_cvref_t<decltype(std::declval<const T&>().*D::pointer)>;
    if constexpr (has_field_form<M>()) {
        return true;
    } else {
        member_has_no_wire_form<T, member_name_of<D>(), M>();
        return false;
    }
}

// Whether member D of T is sent and read: not transient (then its type is never looked at),
// and with a wire form (else the compile stops, naming it).
template <class T, class D>
constexpr bool is_sent_member() {
    if constexpr (is_transient<T>(D::name))
        return false;
    else
        return member_has_wire_form<T, D>();
}

// The record type a std::variant field travels as: the alternative's index and its value.
inline const record_type_ptr& variant_record_type() {
    static const record_type_ptr type = make_record_type("variant", {"index", "value"});
    return type;
}

// What a reader does with a described enum's name it does not know (a newer writer's
// enumerator): by default the read fails naming the field and the name. Specialise to read
// such a name as a fallback enumerator instead:
//   template <> struct objwire::typed::enum_traits<shop::status> {
//       static constexpr shop::status fallback = shop::status::unknown;
//   };
template <class E>
struct enum_traits {};

template <class E>
concept has_enum_fallback = requires {
    { enum_traits<E>::fallback } -> std::convertible_to<E>;
};

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
