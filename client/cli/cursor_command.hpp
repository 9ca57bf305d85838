// `objwire cursor list` and `objwire cursor delete NAME`: the named read cursors the daemon
// keeps for `objwire read --cursor NAME` (docs/PROTOCOL.md 1.2).
#pragma once

#include "client/cli/subcommand.hpp"

namespace objwire::client {

subcommand add_cursor_command(CLI::App& app);

}  // namespace objwire::client
