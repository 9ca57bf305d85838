// Every check objwired's start makes of its settings before it touches the network or the
// data directory: config::check_daemon_settings (keys that go together, files that must be
// readable) and what only the daemon can judge (the token file's permissions and length, that
// the TLS files load, that forward.client_config parses). The start, a reload and
// `objwired --check-config` all call it, so the check passes exactly what the start accepts.
#pragma once

#include <string>
#include <vector>

#include "config/settings.hpp"

namespace objwire::daemon {

// One message per problem, ready to print; empty when the settings can start.
std::vector<std::string> settings_problems(const config::daemon_settings& s);

}  // namespace objwire::daemon
