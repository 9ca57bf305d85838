// `objwire senders`: the streams a daemon holds - per sender id its objects, first and last
// offset and last stored time - as a table or JSON lines (docs/CLI.md, "What a daemon holds").
#pragma once

#include "client/cli/subcommand.hpp"

namespace objwire::client {

subcommand add_senders_command(CLI::App& app);

}  // namespace objwire::client
