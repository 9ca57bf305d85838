// `objwire send [INPUT] --to HOST:PORT`: JSON lines (one object per line, from a file or
// stdin) to objwired, each acknowledged once stored.
#pragma once

#include "client/cli/subcommand.hpp"

namespace objwire::client {

subcommand add_send_command(CLI::App& app);

}  // namespace objwire::client
