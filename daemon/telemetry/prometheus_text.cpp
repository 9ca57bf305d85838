#include "daemon/telemetry/prometheus_text.hpp"

#include <fmt/format.h>

#include <iterator>
#include <variant>

namespace objwire::daemon {
namespace {

// Backslashes and newlines escaped, in HELP text and label values; quotes too in label values.
void append_escaped(std::string& out, std::string_view text, bool quotes) {
    for (char c : text) {
        if (c == '\n') {
            out += "\\n";
            continue;
        }
        if (c == '\\' || (quotes && c == '"')) out.push_back('\\');
        out.push_back(c);
    }
}

void append_sample(std::string& out, const metric_sample& s) {
    out += s.name;
    if (!s.labels.empty()) {
        out.push_back('{');
        for (std::size_t i = 0; i < s.labels.size(); ++i) {
            if (i != 0) out.push_back(',');
            out += s.labels[i].name;
            out += "=\"";
            append_escaped(out, s.labels[i].value, true);
            out.push_back('"');
        }
        out.push_back('}');
    }
    std::visit([&](auto v) { fmt::format_to(std::back_inserter(out), " {}\n", v); }, s.value);
}

}  // namespace

std::string prometheus_text(std::span<const metric_family> families) {
    std::string out;
    for (const auto& f : families) {
        out += "# HELP " + f.name + " ";
        append_escaped(out, f.help, false);
        fmt::format_to(std::back_inserter(out), "\n# TYPE {} {}\n", f.name,
                       metric_type_name(f.type));
        for (const auto& s : f.samples)
            append_sample(out, s);
    }
    return out;
}

}  // namespace objwire::daemon
