// A writer of Prometheus text exposition format (version 0.0.4), family by family: the
// daemon's metrics (daemon/ops/metrics_text.cpp) and each sink's own (sink::write_metrics) go
// through this one writer.
#pragma once

#include <fmt/format.h>

#include <iterator>
#include <string>
#include <string_view>

namespace objwire::daemon {

class prometheus_text {
  public:
    void family(const char* name, const char* type, const char* help) {
        fmt::format_to(std::back_inserter(out_), "# HELP {} {}\n# TYPE {} {}\n", name, help, name,
                       type);
    }
    template <class T>
    void sample(const char* name, T value, std::string_view labels = {}) {
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
    std::string take() { return std::move(out_); }

  private:
    std::string out_;
};

}  // namespace objwire::daemon
