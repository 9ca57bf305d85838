// What SIGHUP changes, decided without a server (daemon/serve/reload_plan.hpp): settings are
// compared by their typed values, live keys are taken over, the rest wait for a restart.
#include <gtest/gtest.h>

#include "daemon/serve/reload_plan.hpp"

namespace objwire::daemon {
namespace {

std::vector<std::string> keys_of(const std::vector<config::key_change>& changes) {
    std::vector<std::string> out;
    for (const auto& c : changes)
        out.push_back(c.key);
    return out;
}

TEST(ReloadPlan, AnUnchangedFileChangesNothing) {
    const config::daemon_settings current;
    const auto plan = plan_reload(current, current);
    EXPECT_TRUE(plan.applied.empty());
    EXPECT_TRUE(plan.need_restart.empty());
}

TEST(ReloadPlan, LiveKeysAreTakenOverAndTheOthersWaitForARestart) {
    config::daemon_settings current;
    config::daemon_settings next = current;
    next.max_depth = 12;                                       // limits.max_depth: live
    next.log_level = "debug";                                  // server.log_level: live
    next.listen_port = 9999;                                   // server.listen: needs a restart
    next.table_budget_total = current.table_budget_total * 2;  // fixed inside a live table
    const auto plan = plan_reload(current, next);
    EXPECT_EQ(keys_of(plan.applied),
              (std::vector<std::string>{"limits.max_depth", "server.log_level"}));
    EXPECT_EQ(keys_of(plan.need_restart),
              (std::vector<std::string>{"limits.table_budget_total", "server.listen"}));
    EXPECT_EQ(plan.effective.max_depth, 12u);
    EXPECT_EQ(plan.effective.log_level, "debug");
    EXPECT_EQ(plan.effective.listen_port, current.listen_port) << "a restart key is not applied";
    EXPECT_EQ(plan.effective.table_budget_total, current.table_budget_total);
}

TEST(ReloadPlan, AChangeCarriesBothValuesAsTheFileWritesThem) {
    config::daemon_settings current;
    config::daemon_settings next = current;
    next.shutdown_grace = std::chrono::seconds(3);
    const auto plan = plan_reload(current, next);
    ASSERT_EQ(plan.applied.size(), 1u);
    EXPECT_EQ(plan.applied[0].key, "server.shutdown_grace");
    EXPECT_EQ(plan.applied[0].now, "\"3s\"");
    EXPECT_NE(plan.applied[0].was, plan.applied[0].now);
}

}  // namespace
}  // namespace objwire::daemon
