// Internal to objwire::config: what a key of the settings schema is - its kind, default,
// range, doc line and the binding to its settings field - and the rules its strings follow.
// The key tables themselves are daemon_keys.cpp and client_keys.cpp; converting a value for a
// key is convert.hpp, applying and printing are apply.cpp and render.cpp.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "config/settings.hpp"

namespace objwire::config::detail {

enum class value_kind {
    string,
    integer,
    boolean,
    size,
    duration,
    bandwidth,
    host_port,
    enumeration,
    string_list  // a TOML array of strings
};

// A validated value on its way into (or out of) a settings field. Numbers are in base units:
// bytes, microseconds, bits per second; a host_port is {text = host, number = port}.
struct typed_value {
    std::uint64_t number = 0;
    std::string text;
    bool flag = false;
    // string_list: the items; for a key with a NAME component, the items per name instead.
    std::vector<std::string> list;
    std::vector<std::pair<std::string, std::vector<std::string>>> named;
    bool operator==(const typed_value&) const = default;
};

template <class S>
struct accessor {
    void (*set)(S&, const typed_value&) = nullptr;
    typed_value (*get)(const S&) = nullptr;
};

template <class S>
struct key_def {
    std::string_view name;  // full dotted name
    value_kind kind = value_kind::string;
    std::string_view default_text;  // as to_toml prints it (a test checks it against S{})
    std::uint64_t min = 0;          // numeric kinds, in base units; host_port: the port
    std::uint64_t max = 0;
    std::uint64_t resolution = 1;  // durations: microseconds per step of the field
    std::span<const std::string_view> choices = {};  // enumeration
    std::string_view doc;
    accessor<S> access;
    // Extra rule for strings: returns why `text` is not acceptable, or "".
    std::string (*check)(std::string_view text) = nullptr;
    std::string_view check_doc = {};  // the rule in a few words, for key_info::allowed
    // Keys like "types.NAME.transient": the index of the path component that is a name the
    // user chooses (0: none). Such a key is set once per name.
    std::size_t name_component = 0;
};

// ---- field bindings ---------------------------------------------------------------------

template <class T>
struct member_traits;
template <class S, class F>
struct member_traits<F S::*> {
    using settings = S;
    using field = F;
};

template <class T>
struct is_chrono_duration : std::false_type {};
template <class R, class P>
struct is_chrono_duration<std::chrono::duration<R, P>> : std::true_type {};

template <auto M>
void set_field(typename member_traits<decltype(M)>::settings& s, const typed_value& v) {
    using field = typename member_traits<decltype(M)>::field;
    if constexpr (std::is_same_v<field, std::string>) {
        s.*M = v.text;
    } else if constexpr (std::is_same_v<field, std::vector<std::string>>) {
        s.*M = v.list;
    } else if constexpr (std::is_same_v<field, bool>) {
        s.*M = v.flag;
    } else if constexpr (is_chrono_duration<field>::value) {
        s.*M = std::chrono::duration_cast<field>(
            std::chrono::microseconds(static_cast<std::int64_t>(v.number)));
    } else {
        s.*M = static_cast<field>(v.number);
    }
}

template <auto M>
typed_value get_field(const typename member_traits<decltype(M)>::settings& s) {
    using field = typename member_traits<decltype(M)>::field;
    typed_value v;
    if constexpr (std::is_same_v<field, std::string>) {
        v.text = s.*M;
    } else if constexpr (std::is_same_v<field, std::vector<std::string>>) {
        v.list = s.*M;
    } else if constexpr (std::is_same_v<field, bool>) {
        v.flag = s.*M;
    } else if constexpr (is_chrono_duration<field>::value) {
        v.number = static_cast<std::uint64_t>(
            std::chrono::duration_cast<std::chrono::microseconds>(s.*M).count());
    } else {
        v.number = static_cast<std::uint64_t>(s.*M);
    }
    return v;
}

template <auto M>
constexpr accessor<typename member_traits<decltype(M)>::settings> bind() {
    return {&set_field<M>, &get_field<M>};
}

template <auto Host, auto Port>
constexpr accessor<typename member_traits<decltype(Host)>::settings> bind_host_port() {
    using S = typename member_traits<decltype(Host)>::settings;
    return {[](S& s, const typed_value& v) {
                s.*Host = v.text;
                s.*Port = static_cast<std::uint16_t>(v.number);
            },
            [](const S& s) {
                typed_value v;
                v.number = s.*Port;
                v.text = s.*Host;
                return v;
            }};
}

// A map of lists by name ([types.NAME] transient = [...]): setting one name replaces its list,
// an empty list removes the name, other names stay.
template <auto M>
constexpr accessor<typename member_traits<decltype(M)>::settings> bind_named_lists() {
    using S = typename member_traits<decltype(M)>::settings;
    return {[](S& s, const typed_value& v) {
                for (const auto& [name, items] : v.named) {
                    if (items.empty()) {
                        (s.*M).erase(name);
                    } else {
                        (s.*M)[name] = items;
                    }
                }
            },
            [](const S& s) {
                typed_value v;
                v.named.assign((s.*M).begin(), (s.*M).end());
                return v;
            }};
}

// ---- string rules (key_rules.cpp) ---------------------------------------------------------
// Each returns why `text` is not acceptable, or "".

std::string check_not_empty(std::string_view text);
// A plain file name inside server.data_dir.
std::string check_file_name(std::string_view text);
// A file name, or "-" for stdout.
std::string check_jsonl_file(std::string_view text);
// HOST:PORT, or "" for off.
std::string check_optional_host_port(std::string_view text);
std::string check_reset_policy(std::string_view text);
std::string check_sender_id(std::string_view text);
std::string check_accepted_codec(std::string_view text);
std::string check_lazy_field(std::string_view text);
std::string check_link_bandwidth(std::string_view text);

// ---- choices and units of the tables -----------------------------------------------------

inline constexpr std::array<std::string_view, 7> log_levels{"trace", "debug",    "info", "warn",
                                                            "error", "critical", "off"};
inline constexpr std::array<std::string_view, 4> sink_kinds{"journal", "jsonl", "nats", "forward"};
inline constexpr std::array<std::string_view, 3> fsync_policies{"always", "interval", "never"};
inline constexpr std::array<std::string_view, 3> compression_policies{"never", "always", "auto"};
inline constexpr std::array<std::string_view, 3> compression_codecs{"zlib", "zstd", "lz4"};

inline constexpr std::uint64_t us_per_ms = 1000;
inline constexpr std::uint64_t us_per_s = 1000 * us_per_ms;

// ---- the schemas ----------------------------------------------------------------------

template <class S>
struct schema {
    std::string_view program;        // "objwired"
    std::string_view other_program;  // "objwire"
    std::span<const key_def<S>> keys;
    std::vector<std::string_view> other_keys;  // the other program's key names
};

// Each program's keys in printing order (daemon_keys.cpp, client_keys.cpp).
std::span<const key_def<daemon_settings>> daemon_key_table();
std::span<const key_def<client_settings>> client_key_table();

// The schemas, each knowing the other program's key names for its messages (schema.cpp).
const schema<daemon_settings>& daemon_schema();
const schema<client_settings>& client_schema();

// An empty OBJWIRE_* variable is as if unset, except for an address that "" turns off
// (metrics.listen, forward.to): there it means "" - a container turns metrics off with
// OBJWIRE_METRICS_LISTEN= when its image sets an address.
template <class S>
bool empty_turns_off(const key_def<S>& key) {
    return key.check == &check_optional_host_port;
}

}  // namespace objwire::config::detail
