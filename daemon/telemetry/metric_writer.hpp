// Collects the daemon's metrics as typed families (proto/metric_families.hpp), family by family:
// the server's metrics (daemon/serve/metrics_text.cpp), the process's and each sink's own
// (sink::write_metrics) go through this one writer. Nothing here knows an exposition format:
// daemon/telemetry/prometheus_text.hpp renders the families for GET /metrics, the stats role
// sends them as they are.
#pragma once

#include <fmt/format.h>

#include <array>
#include <cassert>
#include <concepts>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "proto/metric_families.hpp"

namespace objwire::daemon {

// A label as a sample's caller gives it: (name, value).
using label_pair = std::pair<std::string_view, std::string_view>;

class metric_writer {
  public:
    void family(const char* name, metric_type type, const char* help) {
        families_.push_back({name, type, help, {}});
    }
    // A sample of the family written last.
    template <class T>
    void sample(std::string_view name, T value, std::initializer_list<label_pair> labels = {}) {
        assert(!families_.empty());
        metric_sample s{std::string(name), {}, typed(value)};
        for (const auto& [k, v] : labels)
            s.labels.push_back({std::string(k), std::string(v)});
        families_.back().samples.push_back(std::move(s));
    }
    // A family of one unlabelled sample.
    template <class T>
    void one(const char* name, metric_type type, const char* help, T value) {
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
        family(name, metric_type::histogram, help);
        const std::string bucket = std::string(name) + "_bucket";
        for (std::size_t i = 0; i < cumulative.size(); ++i) {
            const std::string le = i < Bounds ? fmt::format("{}", seconds(bounds_ns[i])) : "+Inf";
            sample(bucket, cumulative[i], {{"le", le}});
        }
        sample(std::string(name) + "_sum", seconds(sum_ns));
        sample(std::string(name) + "_count", count);
    }
    std::vector<metric_family> take() { return std::move(families_); }

  private:
    static double seconds(std::uint64_t ns) { return static_cast<double>(ns) / 1e9; }
    // Counts stay exact integers; a negative integer (none today) would become a double.
    template <class T>
    static metric_value typed(T v) {
        if constexpr (std::floating_point<T>) {
            return static_cast<double>(v);
        } else if constexpr (std::is_signed_v<T>) {
            if (v < 0) return static_cast<double>(v);
            return static_cast<std::uint64_t>(v);
        } else {
            return static_cast<std::uint64_t>(v);
        }
    }

    std::vector<metric_family> families_;
};

}  // namespace objwire::daemon
