#include "client/cli/sender_table.hpp"

#include <time.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <vector>

#include "proto/json_writer.hpp"

namespace objwire::client {
namespace {

constexpr std::string_view anonymous = "(anonymous)";

// Columns are aligned by characters, not bytes: a UTF-8 continuation byte adds no width.
std::size_t width(std::string_view s) {
    return static_cast<std::size_t>(
        std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

void pad(std::string& out, std::string_view text, std::size_t to, bool right) {
    const std::size_t fill = to > width(text) ? to - width(text) : 0;
    if (right) out.append(fill, ' ');
    out += text;
    if (!right) out.append(fill, ' ');
}

}  // namespace

std::string format_utc_time(std::uint64_t ms) {
    const auto seconds = static_cast<time_t>(ms / 1000);
    struct tm t {};
    gmtime_r(&seconds, &t);
    char text[96];  // room for any int, as -Wformat-truncation counts
    std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%03uZ", t.tm_year + 1900,
                  t.tm_mon + 1, t.tm_mday, t.tm_hour, t.tm_min, t.tm_sec,
                  static_cast<unsigned>(ms % 1000));
    return text;
}

std::string sender_table(const sender_list& l) {
    using row = std::array<std::string, 5>;
    std::vector<row> rows{{"SENDER", "OBJECTS", "FIRST", "LAST", "LAST STORED"}};
    for (const auto& s : l.senders)
        rows.push_back({s.id.empty() ? std::string(anonymous) : s.id, std::to_string(s.objects),
                        std::to_string(s.first_offset), std::to_string(s.last_offset),
                        format_utc_time(s.last_time_ms)});
    std::array<std::size_t, 5> widths{};
    for (const auto& r : rows)
        for (std::size_t c = 0; c < r.size(); ++c)
            widths[c] = std::max(widths[c], width(r[c]));
    std::string out;
    for (const auto& r : rows) {
        pad(out, r[0], widths[0], false);
        for (std::size_t c = 1; c < 4; ++c) {
            out += "  ";
            pad(out, r[c], widths[c], true);
        }
        out += "  ";
        out += r[4];
        out += '\n';
    }
    return out;
}

std::string sender_json_lines(const sender_list& l) {
    std::string out;
    for (const auto& s : l.senders) {
        out += "{\"sender\":";
        append_json_string(out, s.id);
        out += ",\"objects\":" + std::to_string(s.objects);
        out += ",\"first_offset\":" + std::to_string(s.first_offset);
        out += ",\"last_offset\":" + std::to_string(s.last_offset);
        out += ",\"last_time_ms\":" + std::to_string(s.last_time_ms);
        out += ",\"last_time\":\"" + format_utc_time(s.last_time_ms) + "\"}\n";
    }
    return out;
}

}  // namespace objwire::client
