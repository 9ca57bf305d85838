// What SIGHUP changes in a running server, decided without I/O: the keys that are read when
// they are used (log level, limits and budgets of new connections, connection cap, shutdown
// grace, the metrics endpoint) take the reloaded value; the rest (listen address, data
// directory, sink, journal, TLS, auth, the total table budget that sized the pool) need a
// restart. docs/OPERATIONS.md lists both.
#pragma once

#include <string_view>
#include <vector>

#include "config/settings.hpp"

namespace objwire::daemon {

struct reload_plan {
    config::daemon_settings effective;             // the current settings with `applied` taken over
    std::vector<config::key_change> applied;       // changed keys that take effect live
    std::vector<config::key_change> need_restart;  // changed keys that wait for a restart
};

// Whether a change of `key` takes effect without a restart.
bool changes_live(std::string_view key);

reload_plan plan_reload(const config::daemon_settings& current,
                        const config::daemon_settings& next);

}  // namespace objwire::daemon
