// Metric families (proto/metric_families.hpp) as Prometheus text exposition format (version
// 0.0.4): what GET /metrics serves. The one place the daemon writes that format.
#pragma once

#include <span>
#include <string>

#include "proto/metric_families.hpp"

namespace objwire::daemon {

std::string prometheus_text(std::span<const metric_family> families);

}  // namespace objwire::daemon
