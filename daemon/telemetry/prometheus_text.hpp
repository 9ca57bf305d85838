// A writer of Prometheus text exposition format (version 0.0.4), family by family: the
// daemon's metrics (daemon/serve/metrics_text.cpp) and each sink's own (sink::write_metrics) go
// through this one writer.
#pragma once

#include <fmt/format.h>

#include <array>
#include <cstdint>
#include <iterator>
#include <string>
#include <string_view>

namespace objwire::daemon {

// A label value as the format writes it: any text, with backslashes, quotes and newlines
// escaped.
inline std::string label_value(std::string_view v) {
    std::string out;
    for (char c : v) {
        if (c == '\\' || c == '"') out.push_back('\\');
        if (c == '\n') {
            out += "\\n";
            continue;
        }
        out.push_back(c);
    }
    return out;
}

class prometheus_text {
  public:
    void family(const char* name, const char* type, const char* help) {
        fmt::format_to(std::back_inserter(out_), "# HELP {} {}\n# TYPE {} {}\n", name, help, name,
                       type);
    }
    template <class T>
    void sample(std::string_view name, T value, std::string_view labels = {}) {
        if (labels.empty())
            fmt::format_to(std::back_inserter(out_), "{} {}\n", name, value);
        else
            fmt::format_to(std::back_inserter(out_), "{}{{{}}} {}\n", name, labels, value);
    }
    // A family of one unlabelled sample.
    template <class T>
    void one(const char* name, const char* type, const char* help, T value) {
        family(name, type, help);
        sample(name, value);
    }
    // A histogram family in seconds from cumulative counts over bucket bounds in nanoseconds
    // (the last count: +Inf).
    template <std::size_t Bounds>
    void histogram(const char* name, const char* help,
                   const std::array<std::uint64_t, Bounds>& bounds_ns,
                   const std::array<std::uint64_t, Bounds + 1>& cumulative, std::uint64_t count,
                   std::uint64_t sum_ns) {
        family(name, "histogram", help);
        const std::string bucket = std::string(name) + "_bucket";
        for (std::size_t i = 0; i < cumulative.size(); ++i) {
            const std::string le = i < Bounds ? fmt::format("{}", seconds(bounds_ns[i])) : "+Inf";
            sample(bucket, cumulative[i], fmt::format("le=\"{}\"", le));
        }
        sample(std::string(name) + "_sum", seconds(sum_ns));
        sample(std::string(name) + "_count", count);
    }
    std::string take() { return std::move(out_); }

  private:
    static double seconds(std::uint64_t ns) { return static_cast<double>(ns) / 1e9; }

    std::string out_;
};

}  // namespace objwire::daemon
