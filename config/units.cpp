// Value syntax shared by config files and command-line flags: sizes, durations, bandwidths and
// HOST:PORT, parsed strictly and printed back in their largest exact unit.
#include <algorithm>
#include <array>
#include <cctype>
#include <limits>

#include "config/convert.hpp"
#include "config/settings.hpp"
#include "config/toml_document.hpp"

namespace objwire::config {
namespace {

using detail::quote_toml;

struct unit {
    std::string_view name;  // lowercase
    std::uint64_t factor;
};

constexpr std::array size_units{
    unit{"", 1},
    unit{"b", 1},
    unit{"kib", kibibyte},
    unit{"mib", mebibyte},
    unit{"gib", gibibyte},
    unit{"tib", 1024 * gibibyte},
    unit{"kb", 1000},
    unit{"mb", 1000 * 1000},
    unit{"gb", 1000 * 1000 * 1000},
    unit{"tb", 1000ULL * 1000 * 1000 * 1000},
};

// In microseconds. A bare number has no unit here: parse_duration refuses it (but 0).
constexpr std::array duration_units{
    unit{"us", 1},
    unit{"\xC2\xB5s", 1},  // µs (micro sign)
    unit{"\xCE\xBCs", 1},  // μs (Greek mu)
    unit{"ms", 1000},
    unit{"s", 1000 * 1000},
    unit{"m", 60 * 1000 * 1000},
    unit{"min", 60 * 1000 * 1000},
    unit{"h", 3600ULL * 1000 * 1000},
};

constexpr std::array bandwidth_units{
    unit{"", 1},
    unit{"bit", 1},
    unit{"bps", 1},
    unit{"kbit", 1000},
    unit{"kbps", 1000},
    unit{"mbit", 1000 * 1000},
    unit{"mbps", 1000 * 1000},
    unit{"gbit", 1000 * 1000 * 1000},
    unit{"gbps", 1000 * 1000 * 1000},
    unit{"tbit", 1000ULL * 1000 * 1000 * 1000},
    unit{"tbps", 1000ULL * 1000 * 1000 * 1000},
};

std::string lowercase(std::string_view s) {
    std::string out(s);
    for (char& c : out)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
        s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
        s.remove_suffix(1);
    return s;
}

bool is_digit(char c) {
    return c >= '0' && c <= '9';
}

// What a quantity is, for messages: "size", the unit list and an example.
struct quantity {
    std::string_view what;
    std::string_view units_help;
    std::string_view example;
};

constexpr quantity size_quantity{"size", "B, KiB, MiB, GiB, TiB, KB, MB, GB or TB", "64KiB"};
constexpr quantity duration_quantity{"duration", "us, ms, s, m or h", "250ms"};
constexpr quantity bandwidth_quantity{
    "bandwidth", "bit, kbit, Mbit, Gbit or Tbit per second, or KB/s, MB/s, GB/s", "100Mbit"};

error invalid(std::string_view text, const quantity& q, std::string_view why) {
    return error{quote_toml(text) + " is not a valid " + std::string(q.what) + ": " +
                 std::string(why)};
}

// "<digits>[ ]<unit>" -> number * unit factor, every failure explained.
template <std::size_t N>
outcome<std::uint64_t> parse_quantity(std::string_view original, std::string_view input,
                                      const quantity& q, const std::array<unit, N>& units) {
    // `original` is what the user wrote (for messages), `input` the part to parse.
    const std::string_view text = trim(input);
    const std::string example = " (e.g. \"" + std::string(q.example) + "\")";
    if (text.empty()) return invalid(original, q, "it is empty" + example);
    if (text.front() == '-') return invalid(original, q, "it cannot be negative");
    std::size_t i = 0;
    std::uint64_t number = 0;
    bool overflow = false;
    for (; i < text.size() && is_digit(text[i]); ++i) {
        const auto digit = static_cast<std::uint64_t>(text[i] - '0');
        if (number > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) overflow = true;
        number = number * 10 + digit;
    }
    if (i == 0) return invalid(original, q, "expected a whole number and a unit" + example);
    if (i < text.size() && (text[i] == '.' || text[i] == ',')) {
        return invalid(original, q, "use a whole number of a smaller unit" + example);
    }
    const std::string_view unit_text = trim(text.substr(i));
    const std::string unit_name = lowercase(unit_text);
    const unit* found = nullptr;
    for (const auto& u : units) {
        if (u.name == unit_name) found = &u;
    }
    if (found == nullptr) {
        return invalid(original, q,
                       "unknown unit '" + std::string(unit_text) + "' (use " +
                           std::string(q.units_help) + ")" + example);
    }
    if (overflow || number > std::numeric_limits<std::uint64_t>::max() / found->factor) {
        return invalid(original, q, "it is too large");
    }
    return number * found->factor;
}

// The largest unit of `units` (ordered small to large, no aliases) that divides `n` exactly.
template <std::size_t N>
std::string format_quantity(std::uint64_t n, const std::array<std::string_view, N>& names,
                            const std::array<std::uint64_t, N>& factors) {
    for (std::size_t i = N; i-- > 0;) {
        if (n != 0 && n % factors[i] == 0)
            return std::to_string(n / factors[i]) + std::string(names[i]);
    }
    return std::to_string(n) + std::string(names[0]);
}

bool is_hostname_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_';
}

// Hex groups, ':' and '.' (embedded IPv4), then optionally a zone: "fe80::1%eth0".
bool is_ipv6_address(std::string_view text) {
    const auto percent = text.find('%');
    const auto address = text.substr(0, percent);
    const bool address_ok = std::all_of(address.begin(), address.end(), [](char c) {
        return std::isxdigit(static_cast<unsigned char>(c)) || c == ':' || c == '.';
    });
    if (!address_ok || percent == std::string_view::npos) return address_ok;
    const auto zone = text.substr(percent + 1);
    return !zone.empty() && std::all_of(zone.begin(), zone.end(), is_hostname_char);
}

}  // namespace

std::string detail::duration_without_unit(std::string_view number) {
    const std::string n(number);
    return "has no unit: write \"" + n + "s\" or \"" + n +
           "ms\" (a duration takes us, ms, s, m or h; only 0 goes without one)";
}

outcome<std::uint64_t> parse_size(std::string_view text) {
    return parse_quantity(text, text, size_quantity, size_units);
}

outcome<std::chrono::microseconds> parse_duration(std::string_view text) {
    const std::string_view t = trim(text);
    if (!t.empty() && std::all_of(t.begin(), t.end(), is_digit)) {
        if (t.find_first_not_of('0') == std::string_view::npos) return std::chrono::microseconds(0);
        return error{quote_toml(t) + " " + detail::duration_without_unit(t)};
    }
    auto us = parse_quantity(text, text, duration_quantity, duration_units);
    if (!us) return us.error();
    if (*us > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
        return invalid(text, duration_quantity, "it is too large");
    }
    return std::chrono::microseconds(static_cast<std::int64_t>(*us));
}

outcome<std::uint64_t> parse_bandwidth(std::string_view text) {
    const std::string_view t = trim(text);
    std::string_view stripped = t;
    if (stripped.size() > 2 && stripped.substr(stripped.size() - 2) == "/s") {
        stripped.remove_suffix(2);
    }
    // A capital B means bytes ("MB/s", "MBps", "KB"): read as bytes per second, times 8.
    std::size_t digits = 0;
    while (digits < stripped.size() && is_digit(stripped[digits]))
        ++digits;
    const std::string_view unit_text = trim(stripped.substr(digits));
    const bool bytes = !unit_text.empty() && unit_text.find('B') != std::string_view::npos &&
                       lowercase(unit_text).find("bit") == std::string::npos;
    if (bytes) {
        std::string as_size(stripped.substr(0, digits));
        std::string unit(unit_text);
        if (unit.size() > 2 && lowercase(unit.substr(unit.size() - 2)) == "ps")
            unit.resize(unit.size() - 2);
        as_size += unit;
        auto per_second = parse_quantity(text, as_size, bandwidth_quantity, size_units);
        if (!per_second) return per_second;
        if (*per_second > std::numeric_limits<std::uint64_t>::max() / 8) {
            return invalid(text, bandwidth_quantity, "it is too large");
        }
        return *per_second * 8;
    }
    // "100mb" could be either; a factor of 8 is too much to guess.
    const std::string lower = lowercase(unit_text);
    if (lower == "kb" || lower == "mb" || lower == "gb" || lower == "tb") {
        const std::string n(stripped.substr(0, digits));
        const std::string p(1,
                            static_cast<char>(std::toupper(static_cast<unsigned char>(lower[0]))));
        return invalid(text, bandwidth_quantity,
                       "'" + std::string(unit_text) + "' is ambiguous: write \"" + n +
                           (p == "K" ? "k" : p) + "bit\" (bits per second) or \"" + n + p +
                           "B/s\" (bytes per second)");
    }
    return parse_quantity(text, stripped, bandwidth_quantity, bandwidth_units);
}

std::string decimal_size_note(std::string_view text) {
    const std::string_view t = trim(text);
    std::size_t digits = 0;
    while (digits < t.size() && is_digit(t[digits]))
        ++digits;
    const std::string unit = lowercase(trim(t.substr(digits)));
    constexpr std::array<std::string_view, 4> decimal{"kb", "mb", "gb", "tb"};
    constexpr std::array<std::string_view, 4> binary{"KiB", "MiB", "GiB", "TiB"};
    const auto at = std::find(decimal.begin(), decimal.end(), unit);
    const auto bytes = parse_size(text);
    if (at == decimal.end() || !bytes) return {};
    const auto i = static_cast<std::size_t>(at - decimal.begin());
    const std::string n(t.substr(0, digits));
    return quote_toml(text) + " is read as " + std::to_string(*bytes) +
           " bytes (KB, MB, GB and TB are powers of 1000); for powers of 1024 write \"" + n +
           std::string(binary[i]) + "\"";
}

outcome<host_port> parse_host_port(std::string_view original) {
    const std::string_view text = trim(original);
    const auto bad = [&](std::string_view why) {
        return error{quote_toml(original) + " is not a valid HOST:PORT: " + std::string(why)};
    };
    constexpr std::string_view example = " (e.g. \"127.0.0.1:7878\" or \"[::1]:7878\")";
    if (text.empty()) return bad(std::string("it is empty") + std::string(example));
    host_port out;
    std::string_view port_text;
    if (text.front() == '[') {
        const auto close = text.find(']');
        if (close == std::string_view::npos) return bad("missing ']' after the IPv6 address");
        out.host = std::string(text.substr(1, close - 1));
        if (out.host.empty()) return bad("empty IPv6 address between '[' and ']'");
        if (!is_ipv6_address(out.host)) return bad("'" + out.host + "' is not an IPv6 address");
        if (out.host.find(':') == std::string::npos) {
            return bad("brackets are for IPv6 addresses only; write '" + out.host + ":PORT'");
        }
        if (close + 1 >= text.size() || text[close + 1] != ':') {
            return bad("missing ':PORT' after ']'" + std::string(example));
        }
        port_text = text.substr(close + 2);
    } else {
        const auto colon = text.rfind(':');
        if (colon == std::string_view::npos) return bad("missing ':PORT'" + std::string(example));
        const std::string_view host = text.substr(0, colon);
        if (host.find(':') != std::string_view::npos) {
            return bad("an IPv6 address needs brackets, e.g. \"[::1]:7878\"");
        }
        // ":9464" is refused, not taken as every address: listening on the network is a
        // decision the file should show (docs/DECISIONS.md).
        if (host.empty()) {
            const std::string port(text.substr(colon + 1));
            return bad("no host before ':" + port + "': write \"127.0.0.1:" + port +
                       "\" (this machine only), \"0.0.0.0:" + port +
                       "\" (every IPv4 address) or \"[::]:" + port + "\" (every address)");
        }
        for (const char c : host) {
            if (!is_hostname_char(c)) {
                return bad("host '" + std::string(host) + "' has an invalid character '" +
                           std::string(1, c) + "'");
            }
        }
        out.host = std::string(host);
        port_text = text.substr(colon + 1);
    }
    if (port_text.empty()) return bad("missing port number after ':'" + std::string(example));
    std::uint32_t port = 0;
    for (const char c : port_text) {
        if (!is_digit(c)) return bad("port '" + std::string(port_text) + "' is not a number");
        port = port * 10 + static_cast<std::uint32_t>(c - '0');
        if (port > 65535) return bad("port " + std::string(port_text) + " is above 65535");
    }
    out.port = static_cast<std::uint16_t>(port);
    return out;
}

std::string format_size(std::uint64_t bytes) {
    static constexpr std::array<std::string_view, 5> names{"", "KiB", "MiB", "GiB", "TiB"};
    static constexpr std::array<std::uint64_t, 5> factors{1, kibibyte, mebibyte, gibibyte,
                                                          1024 * gibibyte};
    static constexpr std::array<std::string_view, 5> decimal_names{"", "KB", "MB", "GB", "TB"};
    static constexpr std::array<std::uint64_t, 5> decimal_factors{
        1, 1000, 1000 * 1000, 1000 * 1000 * 1000, 1000ULL * 1000 * 1000 * 1000};
    // The shorter of the two spellings, as the value was most likely written: 64000000 is
    // "64MB", not "62500KiB"; a tie goes to the binary units.
    auto binary = format_quantity(bytes, names, factors);
    auto decimal = format_quantity(bytes, decimal_names, decimal_factors);
    return decimal.size() < binary.size() ? decimal : binary;
}

std::string format_duration(std::chrono::microseconds d) {
    static constexpr std::array<std::string_view, 5> names{"us", "ms", "s", "m", "h"};
    static constexpr std::array<std::uint64_t, 5> factors{1, 1000, 1000 * 1000, 60 * 1000 * 1000,
                                                          3600ULL * 1000 * 1000};
    if (d.count() < 0) return std::to_string(d.count()) + "us";
    if (d.count() == 0) return "0ms";
    return format_quantity(static_cast<std::uint64_t>(d.count()), names, factors);
}

std::string format_bandwidth(std::uint64_t bits_per_second) {
    static constexpr std::array<std::string_view, 5> names{"bit", "kbit", "Mbit", "Gbit", "Tbit"};
    static constexpr std::array<std::uint64_t, 5> factors{1, 1000, 1000 * 1000, 1000 * 1000 * 1000,
                                                          1000ULL * 1000 * 1000 * 1000};
    return format_quantity(bits_per_second, names, factors);
}

std::string format_host_port(std::string_view host, std::uint16_t port) {
    // Built by appends: GCC 12 warns (-Wrestrict, a false positive) on the operator+ chain.
    const bool v6 = host.find(':') != std::string_view::npos;
    std::string out;
    if (v6) out.push_back('[');
    out.append(host);
    if (v6) out.push_back(']');
    out.push_back(':');
    out.append(std::to_string(port));
    return out;
}

}  // namespace objwire::config
