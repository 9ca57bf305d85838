// `objwire config check [FILE]` (validate a client or daemon config file and the OBJWIRE_*
// environment) and `objwire config show` (the effective settings, each with where it came
// from: default, FILE:LINE, an environment variable or a flag).
#pragma once

#include "client/cli/subcommand.hpp"

namespace objwire::client {

subcommand add_config_command(CLI::App& app);

}  // namespace objwire::client
