// The daemon's metrics as Prometheus text exposition format (version 0.0.4): what the HTTP
// endpoint (daemon/telemetry/metrics_http.hpp) and the stats frame (daemon/roles/stats_service.cpp)
// carry. docs/OPERATIONS.md says what each metric means.
#pragma once

#include <string>

namespace objwire::daemon {

class server;

std::string render_prometheus(server& srv);

}  // namespace objwire::daemon
