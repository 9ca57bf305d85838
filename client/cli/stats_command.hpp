// `objwire stats --to HOST:PORT [--json]`: the daemon's metrics, grouped and in human units,
// or as one JSON object (client/lib/stats_client.hpp fetches them).
#pragma once

#include "client/cli/subcommand.hpp"

namespace objwire::client {

subcommand add_stats_command(CLI::App& app);

}  // namespace objwire::client
