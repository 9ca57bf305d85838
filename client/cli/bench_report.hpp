// How bench and stats report a result: key/value lines printed as one JSON object (--json) or
// as text.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "proto/compression_stats.hpp"
#include "proto/json_writer.hpp"

namespace objwire::client {

// One bench result: its key and its value as JSON text.
struct report_line {
    std::string key;
    std::string json;
};

inline std::string json_number(double v, int decimals) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}
// A JSON string of `v`, escaped as every JSON objwire writes (proto/json_writer.hpp).
inline std::string json_string(std::string_view v) {
    std::string out;
    append_json_string(out, v);
    return out;
}
// The compression ratio in text as bench and stats print it: raw bytes per compressed byte,
// "3.25x" ("-" before any frame was compressed), so the two read the same way.
inline std::string ratio_text(double raw_per_compressed) {
    if (raw_per_compressed <= 0) return "-";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2fx", raw_per_compressed);
    return buf;
}

// The link as the compression policy knows it, said honestly: a short run or a loopback
// link may give no sample at all, and a sample taken while the sender was the limit is only a
// lower bound.
inline std::string link_text(const compression_stats& z) {
    char buf[96];
    const int decimals = z.link_mbit < 10 ? 1 : 0;
    if (z.link_estimated)
        std::snprintf(buf, sizeof buf, "link %s%.*f Mbit/s (%s)", z.link_measured ? "~" : "",
                      decimals, z.link_mbit, z.link_measured ? "measured" : "configured");
    else if (z.link_mbit > 0)
        std::snprintf(buf, sizeof buf, "link at least %.*f Mbit/s (lower bound, not measured)",
                      decimals, z.link_mbit);
    else
        return "link not measured (no sample: a short run, or loopback)";
    return buf;
}

inline std::string json_object(const std::vector<report_line>& lines) {
    std::string out = "{";
    for (const auto& l : lines)
        out += (out.size() > 1 ? "," : "") + json_string(l.key) + ":" + l.json;
    return out + "}";
}

}  // namespace objwire::client
