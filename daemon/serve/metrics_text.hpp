// The daemon's metrics as typed families: what the stats frame carries
// (daemon/roles/stats_service.cpp) and, rendered as Prometheus text, what the HTTP endpoint
// (daemon/telemetry/metrics_http.hpp) serves. docs/OPERATIONS.md says what each metric means.
#pragma once

#include <string>
#include <vector>

#include "proto/metric_families.hpp"

namespace objwire::daemon {

class server;

std::vector<metric_family> collect_metrics(server& srv);
// collect_metrics as Prometheus text exposition format (version 0.0.4).
std::string render_prometheus(server& srv);

}  // namespace objwire::daemon
