#include "client/cli/start_time.hpp"

#include <charconv>
#include <chrono>

#include "config/settings.hpp"

namespace objwire::client {
namespace {

// Reads exactly `digits` decimal digits at `pos`.
bool take(std::string_view s, std::size_t& pos, int digits, int& out) {
    if (pos + digits > s.size()) return false;
    const char* begin = s.data() + pos;
    auto [p, ec] = std::from_chars(begin, begin + digits, out);
    if (ec != std::errc() || p != begin + digits) return false;
    pos += digits;
    return true;
}

bool expect(std::string_view s, std::size_t& pos, std::string_view chars) {
    if (pos >= s.size() || chars.find(s[pos]) == std::string_view::npos) return false;
    ++pos;
    return true;
}

// Milliseconds east of UTC of the zone at `pos` (Z, +HH:MM, -HH:MM), the rest of the text.
std::optional<std::int64_t> zone_ms(std::string_view s, std::size_t pos) {
    if (s.substr(pos) == "Z") return 0;
    int h = 0, m = 0;
    if (pos >= s.size() || (s[pos] != '+' && s[pos] != '-')) return std::nullopt;
    const bool west = s[pos++] == '-';
    if (!take(s, pos, 2, h) || !expect(s, pos, ":") || !take(s, pos, 2, m) || pos != s.size())
        return std::nullopt;
    if (h > 23 || m > 59) return std::nullopt;
    const std::int64_t ms = (h * 60 + m) * 60'000LL;
    return west ? -ms : ms;
}

std::optional<std::uint64_t> parse_iso(std::string_view s) {
    using namespace std::chrono;
    std::size_t pos = 0;
    int y = 0, mo = 0, d = 0, h = 0, mi = 0, sec = 0, ms = 0;
    if (!take(s, pos, 4, y) || !expect(s, pos, "-") || !take(s, pos, 2, mo) ||
        !expect(s, pos, "-") || !take(s, pos, 2, d) || !expect(s, pos, "T ") ||
        !take(s, pos, 2, h) || !expect(s, pos, ":") || !take(s, pos, 2, mi) ||
        !expect(s, pos, ":") || !take(s, pos, 2, sec))
        return std::nullopt;
    if (pos < s.size() && s[pos] == '.') {
        ++pos;
        if (!take(s, pos, 3, ms)) return std::nullopt;
    }
    const auto zone = zone_ms(s, pos);
    const year_month_day date{year{y}, month{static_cast<unsigned>(mo)},
                              day{static_cast<unsigned>(d)}};
    if (!zone || !date.ok() || h > 23 || mi > 59 || sec > 59) return std::nullopt;
    const auto t = sys_days{date} + hours{h} + minutes{mi} + seconds{sec} + milliseconds{ms};
    const std::int64_t utc = duration_cast<milliseconds>(t.time_since_epoch()).count() - *zone;
    if (utc < 0) return std::nullopt;
    return static_cast<std::uint64_t>(utc);
}

}  // namespace

std::optional<std::uint64_t> parse_start_time(std::string_view text) {
    if (text.empty()) return std::nullopt;
    if (text.find_first_not_of("0123456789") == std::string_view::npos) {
        std::uint64_t v = 0;
        auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (ec != std::errc() || p != text.data() + text.size()) return std::nullopt;
        return v;
    }
    return parse_iso(text);
}

std::optional<std::uint64_t> parse_since(std::string_view text, std::uint64_t now_ms) {
    std::uint64_t ms = 0;
    if (text.size() > 1 && text.back() == 'd' && text.substr(text.size() - 2) != "md") {
        std::uint64_t days = 0;
        const auto digits = text.substr(0, text.size() - 1);
        auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), days);
        if (ec != std::errc() || p != digits.data() + digits.size() || days > 100'000)
            return std::nullopt;
        ms = days * 86'400'000ULL;
    } else {
        auto d = config::parse_duration(text);
        if (!d || d->count() <= 0) return std::nullopt;
        ms = static_cast<std::uint64_t>(d->count()) / 1000;
    }
    if (ms == 0) return std::nullopt;
    return ms >= now_ms ? 1 : now_ms - ms;
}

}  // namespace objwire::client
