// `objwire gen --workload NAME -n N -o FILE`: a benchmark workload as JSON lines.
#pragma once

#include <memory>
#include <string>

#include "client/cli/subcommand.hpp"
#include "client/workloads/workloads.hpp"

namespace objwire::client {

subcommand add_gen_command(CLI::App& app);

// The generator of workload `name` (`gen` and `bench`), or nullptr with the message printed.
std::unique_ptr<workloads::workload> make_workload(const std::string& name);

}  // namespace objwire::client
