// objwire::config: overrides from flags and the environment, and their precedence.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

#include "config/settings.hpp"

namespace cfg = objwire::config;
using ::testing::HasSubstr;

namespace {

// A getenv over a fixed map, recording which names were asked for.
struct fake_env {
    std::map<std::string, std::string> vars;
    std::vector<std::string> asked;

    cfg::getenv_function fn() {
        return [this](const char* name) -> const char* {
            asked.emplace_back(name);
            const auto it = vars.find(name);
            return it == vars.end() ? nullptr : it->second.c_str();
        };
    }
};

}  // namespace

TEST(config_override, applies_each_kind_of_value) {
    cfg::daemon_settings d;
    EXPECT_FALSE(cfg::apply_daemon_override(d, "server.listen", "[::]:9000", "--listen"));
    EXPECT_FALSE(cfg::apply_daemon_override(d, "limits.max_depth", "12", "--max-depth"));
    EXPECT_FALSE(cfg::apply_daemon_override(d, "limits.table_budget", "1MiB", "--budget"));
    EXPECT_FALSE(cfg::apply_daemon_override(d, "limits.read_buffer", "65536", "--rb"));
    EXPECT_FALSE(cfg::apply_daemon_override(d, "server.shutdown_grace", "2s", "--grace"));
    EXPECT_FALSE(cfg::apply_daemon_override(d, "server.log_level", "debug", "--log-level"));
    EXPECT_FALSE(cfg::apply_daemon_override(d, "server.data_dir", "/tmp/x y", "--data-dir"));
    EXPECT_EQ(d.listen_host, "::");
    EXPECT_EQ(d.listen_port, 9000);
    EXPECT_EQ(d.max_depth, 12u);
    EXPECT_EQ(d.table_budget, 1024u * 1024);
    EXPECT_EQ(d.read_buffer, 65536u);
    EXPECT_EQ(d.shutdown_grace, std::chrono::milliseconds(2000));
    EXPECT_EQ(d.log_level, "debug");
    EXPECT_EQ(d.data_dir, "/tmp/x y");

    cfg::client_settings c;
    EXPECT_FALSE(cfg::apply_client_override(c, "batch.linger", "0", "--linger"));
    EXPECT_TRUE(cfg::apply_client_override(c, "client.connect_timeout", "1500", "--timeout"));
    EXPECT_FALSE(cfg::apply_client_override(c, "client.connect_timeout", "1500ms", "--timeout"));
    EXPECT_EQ(c.batch_linger, std::chrono::microseconds(0));
    EXPECT_EQ(c.connect_timeout, std::chrono::milliseconds(1500));
}

TEST(config_override, is_validated_like_the_file_and_names_its_origin) {
    cfg::daemon_settings d;
    const auto before = d;
    auto e = cfg::apply_daemon_override(d, "limits.max_depth", "0", "--max-depth");
    ASSERT_TRUE(e);
    EXPECT_EQ(e->message, "--max-depth: 'limits.max_depth' = 0 is out of range (allowed 1..10000)");
    e = cfg::apply_daemon_override(d, "limits.max_depth", "ten", "--max-depth");
    ASSERT_TRUE(e);
    EXPECT_EQ(e->message, "--max-depth: 'limits.max_depth' must be an integer, got \"ten\"");
    e = cfg::apply_daemon_override(d, "limits.max_depth", "99999999999999999999999", "--max-depth");
    ASSERT_TRUE(e);
    EXPECT_THAT(e->message, HasSubstr("must be an integer"));
    e = cfg::apply_daemon_override(d, "server.listen", "localhost", "--listen");
    ASSERT_TRUE(e);
    EXPECT_THAT(e->message, HasSubstr("--listen: 'server.listen': \"localhost\" is not a valid "
                                      "HOST:PORT: missing ':PORT'"));
    e = cfg::apply_daemon_override(d, "limits.max_frame_bytes", "16 MiBs", "--max-frame");
    ASSERT_TRUE(e);
    EXPECT_THAT(e->message, HasSubstr("--max-frame: 'limits.max_frame_bytes': \"16 MiBs\" is "
                                      "not a valid size: unknown unit 'MiBs'"));
    e = cfg::apply_daemon_override(d, "server.log_level", "loud", "OBJWIRE_SERVER_LOG_LEVEL");
    ASSERT_TRUE(e);
    EXPECT_THAT(e->message, HasSubstr("OBJWIRE_SERVER_LOG_LEVEL: 'server.log_level' = \"loud\" "
                                      "is not one of trace, debug"));
    EXPECT_EQ(d, before) << "a failed override must leave the settings unchanged";
}

TEST(config_override, unknown_key_suggests) {
    cfg::client_settings c;
    const auto e = cfg::apply_client_override(c, "batch.max_byte", "1MiB", "--set");
    ASSERT_TRUE(e);
    EXPECT_EQ(e->message, "--set: unknown key 'batch.max_byte' (did you mean 'batch.max_bytes'?)");
    const auto e2 = cfg::apply_client_override(c, "server.listen", "x:1", "--set");
    ASSERT_TRUE(e2);
    EXPECT_EQ(e2->message,
              "--set: unknown key 'server.listen' (it is a setting of objwired, not of objwire)");
}

TEST(config_env, asks_for_every_key_by_its_variable_name) {
    fake_env env;
    cfg::daemon_settings d;
    EXPECT_FALSE(cfg::apply_daemon_env(d, env.fn()));
    EXPECT_EQ(d, cfg::daemon_settings{});
    ASSERT_EQ(env.asked.size(), cfg::daemon_keys().size());
    EXPECT_EQ(env.asked[0], "OBJWIRE_SERVER_LISTEN");
    EXPECT_NE(std::find(env.asked.begin(), env.asked.end(), "OBJWIRE_LIMITS_TABLE_BUDGET"),
              env.asked.end());
    EXPECT_NE(std::find(env.asked.begin(), env.asked.end(), "OBJWIRE_SINK_JSONL_FILE"),
              env.asked.end());

    fake_env client_env;
    cfg::client_settings c;
    EXPECT_FALSE(cfg::apply_client_env(c, client_env.fn()));
    EXPECT_NE(
        std::find(client_env.asked.begin(), client_env.asked.end(), "OBJWIRE_BATCH_MAX_BYTES"),
        client_env.asked.end());
}

TEST(config_env, applies_set_variables_and_ignores_empty_ones) {
    fake_env env;
    env.vars = {{"OBJWIRE_SERVER_LISTEN", "0.0.0.0:1234"},
                {"OBJWIRE_LIMITS_TABLE_BUDGET", "16MiB"},
                {"OBJWIRE_SERVER_DATA_DIR", ""},
                {"OBJWIRE_UNRELATED", "x"}};
    cfg::daemon_settings d;
    EXPECT_FALSE(cfg::apply_daemon_env(d, env.fn()));
    EXPECT_EQ(d.listen_host, "0.0.0.0");
    EXPECT_EQ(d.listen_port, 1234);
    EXPECT_EQ(d.table_budget, 16u * 1024 * 1024);
    EXPECT_EQ(d.data_dir, "objwire-data");
}

TEST(config_env, reports_every_bad_variable) {
    fake_env env;
    env.vars = {{"OBJWIRE_BATCH_MAX_BYTES", "1B"},
                {"OBJWIRE_FLOW_MAX_IN_FLIGHT", "lots"},
                {"OBJWIRE_BATCH_LINGER", "2ms"}};
    cfg::client_settings c;
    const auto e = cfg::apply_client_env(c, env.fn());
    ASSERT_TRUE(e);
    EXPECT_EQ(e->message,
              "OBJWIRE_BATCH_MAX_BYTES: 'batch.max_bytes' = \"1B\" is out of range (allowed "
              "1KiB..16MiB)\n"
              "OBJWIRE_FLOW_MAX_IN_FLIGHT: 'flow.max_in_flight': \"lots\" is not a valid size: "
              "expected a whole number and a unit (e.g. \"64KiB\")");
    EXPECT_EQ(c.batch_linger, std::chrono::microseconds(2000)) << "good ones still apply";
}

// defaults < file < env < flag, as a program would apply them.
TEST(config_precedence, env_over_file_and_flag_over_env) {
    auto loaded = cfg::parse_client_toml(
        "[client]\nto = \"file-host:1\"\n[batch]\nmax_bytes = \"128KiB\"\nlinger = \"1ms\"\n",
        "objwire.toml");
    ASSERT_TRUE(loaded) << loaded.error().message;
    cfg::client_settings s = *loaded;

    fake_env env;
    env.vars = {{"OBJWIRE_CLIENT_TO", "env-host:2"}, {"OBJWIRE_BATCH_MAX_BYTES", "256KiB"}};
    ASSERT_FALSE(cfg::apply_client_env(s, env.fn()));
    EXPECT_EQ(s.to_host, "env-host");
    EXPECT_EQ(s.batch_max_bytes, 256u * 1024);
    EXPECT_EQ(s.batch_linger, std::chrono::microseconds(1000)) << "file value kept";

    ASSERT_FALSE(cfg::apply_client_override(s, "client.to", "flag-host:3", "--to"));
    EXPECT_EQ(s.to_host, "flag-host");
    EXPECT_EQ(s.to_port, 3);
    EXPECT_EQ(s.batch_max_bytes, 256u * 1024) << "env value kept";
    EXPECT_EQ(s.max_in_flight, cfg::client_settings{}.max_in_flight) << "default kept";

    // A bad flag does not disturb what file and env set.
    const auto bad = cfg::apply_client_override(s, "client.to", "flag-host", "--to");
    ASSERT_TRUE(bad);
    EXPECT_THAT(bad->message, HasSubstr("--to: 'client.to'"));
    EXPECT_EQ(s.to_host, "flag-host");
}

TEST(config_precedence, shared_limit_variables_reach_both_programs) {
    fake_env env;
    env.vars = {{"OBJWIRE_LIMITS_MAX_DEPTH", "9"}};
    cfg::daemon_settings d;
    cfg::client_settings c;
    ASSERT_FALSE(cfg::apply_daemon_env(d, env.fn()));
    ASSERT_FALSE(cfg::apply_client_env(c, env.fn()));
    EXPECT_EQ(d.max_depth, 9u);
    EXPECT_EQ(c.max_depth, 9u);
}
