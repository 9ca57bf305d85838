// `objwire bench --workload NAME -n N`: generates a workload in-process, sends it and reports
// the link (objects/s, bytes/object, table, compression), optionally reading it back; with
// --rate, --connections or --readers, latency percentiles (client/cli/bench_load.hpp).
#pragma once

#include "client/cli/subcommand.hpp"

namespace objwire::client {

subcommand add_bench_command(CLI::App& app);

}  // namespace objwire::client
