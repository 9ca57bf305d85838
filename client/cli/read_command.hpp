// `objwire read --to HOST:PORT [--from OFFSET|end|-N] [--follow] [--sender ID] [--cursor NAME]
// [--offsets FILE] [-o FILE]`: the daemon's stored objects as JSON lines that `send` accepts
// again (include/objwire/reader.hpp); a follower reconnects across daemon restarts.
#pragma once

#include "client/cli/subcommand.hpp"

namespace objwire::client {

subcommand add_read_command(CLI::App& app);

}  // namespace objwire::client
