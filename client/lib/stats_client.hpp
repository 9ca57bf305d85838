// Fetching objwired's metrics over the objwire port: a hello with role stats, answered by a
// welcome, one stats frame of Prometheus text and a goodbye (daemon/roles/stats_service.cpp).
// Blocking, with the connect timeout for connecting and `timeout` for the answer.
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <system_error>
#include <vector>

#include "config/settings.hpp"

namespace objwire::client {

struct stats_answer {
    std::string text;  // Prometheus text exposition format
    std::string server_name;
    std::string sink;
};

// On failure the error and, in `why`, a message for people ("cannot connect to ...",
// "refused: ...").
std::error_code fetch_stats(const config::client_settings& settings, stats_answer& out,
                            std::string& why,
                            std::chrono::milliseconds timeout = std::chrono::seconds(10));

// One sample of the text: `name{labels} value`.
struct metric_sample {
    std::string name;
    std::map<std::string, std::string> labels;
    double value = 0;
};
// The samples of Prometheus text, in order; comment lines and lines that do not parse are
// skipped.
std::vector<metric_sample> parse_prometheus(std::string_view text);

}  // namespace objwire::client
