// Fetching objwired's metrics over the objwire port: a hello with role stats, answered by a
// welcome, one stats frame of typed metric families and a goodbye (docs/PROTOCOL.md section 1.3,
// daemon/roles/stats_service.cpp).
// Blocking, with the connect timeout for connecting and `timeout` for the answer.
#pragma once

#include <chrono>
#include <string>
#include <system_error>
#include <vector>

#include "config/settings.hpp"
#include "proto/metric_families.hpp"

namespace objwire::client {

struct stats_answer {
    std::vector<metric_family> families;
    std::string server_name;
    std::string sink;
};

// On failure the error and, in `why`, a message for people ("cannot connect to ...",
// "refused: ...", "cannot decode the stats ...").
std::error_code fetch_stats(const config::client_settings& settings, stats_answer& out,
                            std::string& why,
                            std::chrono::milliseconds timeout = std::chrono::seconds(10));

}  // namespace objwire::client
