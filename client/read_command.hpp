// `objwire read --to HOST:PORT [--from OFFSET] [--follow] [--sender ID] [-o FILE]`: the
// daemon's stored objects as JSON lines that `send` accepts again (client/reader.hpp).
#pragma once

#include "client/subcommand.hpp"

namespace objwire::client {

subcommand add_read_command(CLI::App& app);

}  // namespace objwire::client
