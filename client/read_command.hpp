// `objwire read --to HOST:PORT [--from OFFSET|end|-N] [--follow] [--sender ID] [--cursor NAME]
// [--offsets FILE] [-o FILE]`: the daemon's stored objects as JSON lines that `send` accepts
// again (client/reader.hpp); a follower reconnects across daemon restarts.
#pragma once

#include "client/subcommand.hpp"

namespace objwire::client {

namespace exit_codes {
// The sender id or cursor named does not exist on the daemon.
inline constexpr int not_found = 5;
}  // namespace exit_codes

subcommand add_read_command(CLI::App& app);

}  // namespace objwire::client
