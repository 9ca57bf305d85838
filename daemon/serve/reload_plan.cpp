#include "daemon/serve/reload_plan.hpp"

#include <algorithm>

namespace objwire::daemon {
namespace {

// Keys that take effect live; a prefix ending in '.' stands for its whole table.
constexpr std::string_view live_keys[] = {"server.log_level",
                                          "server.max_connections",
                                          "server.shutdown_grace",
                                          "limits.",
                                          "metrics.",
                                          "auth."};
// Inside a live table, those that are fixed at start.
constexpr std::string_view fixed_keys[] = {"limits.table_budget_total"};

}  // namespace

bool changes_live(std::string_view key) {
    if (std::ranges::find(fixed_keys, key) != std::end(fixed_keys)) return false;
    return std::ranges::any_of(live_keys, [&](std::string_view k) {
        return k.ends_with('.') ? key.starts_with(k) : key == k;
    });
}

reload_plan plan_reload(const config::daemon_settings& current,
                        const config::daemon_settings& next) {
    reload_plan plan{current, {}, {}};
    for (auto& change : config::changed_keys(current, next)) {
        if (!changes_live(change.key)) {
            plan.need_restart.push_back(std::move(change));
            continue;
        }
        config::copy_key(plan.effective, next, change.key);
        plan.applied.push_back(std::move(change));
    }
    return plan;
}

}  // namespace objwire::daemon
