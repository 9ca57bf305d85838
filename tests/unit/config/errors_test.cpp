// objwire::config: what a user sees for each kind of bad config file. Messages are compared
// whole where the wording is the contract (place, full key, did-you-mean).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <fstream>

#include "config/settings.hpp"

namespace cfg = objwire::config;
using ::testing::HasSubstr;

namespace {

std::string daemon_error(std::string_view text) {
    const auto r = cfg::parse_daemon_toml(text, "bad.toml");
    if (r) return "(loaded without error)";
    return r.error().message;
}

std::string client_error(std::string_view text) {
    const auto r = cfg::parse_client_toml(text, "bad.toml");
    if (r) return "(loaded without error)";
    return r.error().message;
}

}  // namespace

TEST(config_errors, unknown_key_names_place_key_and_suggestion) {
    EXPECT_EQ(daemon_error("[server]\nlisen = \"127.0.0.1:1\"\n"),
              "bad.toml:2:1: unknown key 'server.lisen' (did you mean 'server.listen'?)");
    // A transposition is one edit.
    EXPECT_EQ(daemon_error("[limits]\n  max_detph = 3\n"),
              "bad.toml:2:3: unknown key 'limits.max_detph' (did you mean 'limits.max_depth'?)");
}

TEST(config_errors, unknown_key_in_the_wrong_table_suggests_the_right_one) {
    EXPECT_EQ(daemon_error("[server]\nmax_depth = 3\n"),
              "bad.toml:2:1: unknown key 'server.max_depth' (did you mean 'limits.max_depth'?)");
    EXPECT_EQ(daemon_error("listen = \"127.0.0.1:1\"\n"),
              "bad.toml:1:1: unknown key 'listen' (did you mean 'server.listen'?)");
}

TEST(config_errors, unknown_key_without_a_close_match_lists_the_table) {
    EXPECT_EQ(daemon_error("[sink]\nformat = \"json\"\n"),
              "bad.toml:2:1: unknown key 'sink.format' ([sink] has: kind, jsonl_file, "
              "jsonl_rotate_bytes, jsonl_keep)");
}

TEST(config_errors, key_of_the_other_program_says_so) {
    EXPECT_EQ(client_error("[limits]\ntable_budget = \"1MiB\"\n"),
              "bad.toml:2:1: unknown key 'limits.table_budget' (it is a setting of objwired, "
              "not of objwire)");
}

TEST(config_errors, unknown_table) {
    EXPECT_EQ(daemon_error("[sever]\nlisten = \"127.0.0.1:1\"\n"),
              "bad.toml:1:2: unknown table 'sever' (did you mean 'server'?)");
    EXPECT_THAT(daemon_error("[cluster]\nseeds = \"x\"\n"),
                HasSubstr("bad.toml:1:2: unknown table 'cluster' (objwired's tables are: server, "
                          "limits, compression, sink, "));
    EXPECT_EQ(daemon_error("[tls]\ncert = \"x\"\n"),
              "bad.toml:2:1: unknown key 'tls.cert' (did you mean 'tls.cert_file'?)");
    EXPECT_EQ(
        client_error("[server]\nlisten = \"127.0.0.1:1\"\n"),
        "bad.toml:1:2: unknown table 'server' (it belongs to objwired's config; "
        "objwire's tables are: client, resume, batch, reset, flow, limits, read, compression, "
        "socket, tls, auth, lazy, types)");
    EXPECT_THAT(daemon_error("[server.tls]\ncert = \"x\"\n"),
                HasSubstr("bad.toml:1:9: unknown table 'server.tls'"));
}

TEST(config_errors, wrong_type) {
    EXPECT_EQ(daemon_error("[limits]\nmax_depth = \"ten\"\n"),
              "bad.toml:2:13: 'limits.max_depth' must be an integer, got string \"ten\"");
    EXPECT_EQ(daemon_error("[limits]\nmax_depth = 1.5\n"),
              "bad.toml:2:13: 'limits.max_depth' must be an integer, got float 1.5");
    EXPECT_THAT(daemon_error("[server]\nlisten = 7878\n"),
                HasSubstr("bad.toml:2:10: 'server.listen' must be a string \"HOST:PORT\""));
    EXPECT_THAT(daemon_error("[server]\ndata_dir = [\"a\"]\n"),
                HasSubstr("'server.data_dir' must be a string, got array"));
    EXPECT_THAT(daemon_error("[limits]\ntable_budget = true\n"),
                HasSubstr("'limits.table_budget' must be a size (an integer number of bytes or "
                          "a string like \"64KiB\"), got boolean true"));
    EXPECT_THAT(client_error("[batch]\nlinger = 1979-05-27\n"),
                HasSubstr("'batch.linger' must be a duration"));
    EXPECT_THAT(daemon_error("[server.listen]\nhost = \"x\"\n"),
                HasSubstr("'server.listen' must be a string \"HOST:PORT\" (e.g. "
                          "\"127.0.0.1:7878\" or \"[::1]:7878\"), got table"));
    EXPECT_EQ(daemon_error("server = 5\n"),
              "bad.toml:1:10: 'server' must be a table ([server]), got integer 5");
}

TEST(config_errors, out_of_range) {
    EXPECT_EQ(daemon_error("[limits]\nmax_depth = 0\n"),
              "bad.toml:2:13: 'limits.max_depth' = 0 is out of range (allowed 1..10000)");
    EXPECT_EQ(daemon_error("[limits]\nmax_depth = -3\n"),
              "bad.toml:2:13: 'limits.max_depth' = -3 is out of range (allowed 1..10000)");
    EXPECT_EQ(daemon_error("[limits]\nmax_frame_bytes = \"2GiB\"\n"),
              "bad.toml:2:19: 'limits.max_frame_bytes' = \"2GiB\" is out of range (allowed "
              "1KiB..1GiB)");
    EXPECT_EQ(daemon_error("[limits]\nreaders_shared_bytes = \"64KiB\"\n"),
              "bad.toml:2:24: 'limits.readers_shared_bytes' = \"64KiB\" is out of range (allowed "
              "256KiB..4GiB)");
    EXPECT_EQ(daemon_error("[limits]\nread_buffer = 100\n"),
              "bad.toml:2:15: 'limits.read_buffer' = 100 is out of range (allowed "
              "4KiB..64MiB)");
    EXPECT_EQ(client_error("[batch]\nlinger = \"11s\"\n"),
              "bad.toml:2:10: 'batch.linger' = \"11s\" is out of range (allowed 0..10s)");
    EXPECT_EQ(client_error("[client]\nto = \"127.0.0.1:0\"\n"),
              "bad.toml:2:6: 'client.to' = \"127.0.0.1:0\" is out of range (allowed HOST:PORT, "
              "port 1..65535)");
    EXPECT_THAT(daemon_error("[server]\nshutdown_grace = \"2h\"\n"),
                HasSubstr("'server.shutdown_grace' = \"2h\" is out of range (allowed 0..1h)"));
}

// A bare number could be any unit: refused (but 0), with the two likeliest spellings.
TEST(config_errors, a_duration_without_a_unit_is_refused_with_the_fix) {
    EXPECT_EQ(daemon_error("[server]\nshutdown_grace = 5\n"),
              "bad.toml:2:18: 'server.shutdown_grace' = 5 has no unit: write \"5s\" or \"5ms\" "
              "(a duration takes us, ms, s, m or h; only 0 goes without one)");
    EXPECT_EQ(daemon_error("[journal]\nretention_age = 3600\n"),
              "bad.toml:2:17: 'journal.retention_age' = 3600 has no unit: write \"3600s\" or "
              "\"3600ms\" (a duration takes us, ms, s, m or h; only 0 goes without one)");
    EXPECT_EQ(client_error("[batch]\nlinger = \"5\"\n"),
              "bad.toml:2:10: 'batch.linger': \"5\" has no unit: write \"5s\" or \"5ms\" (a "
              "duration takes us, ms, s, m or h; only 0 goes without one)");
    EXPECT_EQ(daemon_error("[server]\nshutdown_grace = 0\n"), "(loaded without error)");
}

TEST(config_errors, bad_unit_names_the_allowed_forms) {
    EXPECT_EQ(daemon_error("[limits]\nmax_frame_bytes = \"64XB\"\n"),
              "bad.toml:2:19: 'limits.max_frame_bytes': \"64XB\" is not a valid size: unknown "
              "unit 'XB' (use B, KiB, MiB, GiB, TiB, KB, MB, GB or TB) (e.g. \"64KiB\")");
    EXPECT_THAT(client_error("[batch]\nlinger = \"5 fortnights\"\n"),
                HasSubstr("'batch.linger': \"5 fortnights\" is not a valid duration: unknown "
                          "unit 'fortnights' (use us, ms, s, m or h"));
    EXPECT_THAT(daemon_error("[server]\nlisten = \"127.0.0.1\"\n"),
                HasSubstr("bad.toml:2:10: 'server.listen': \"127.0.0.1\" is not a valid "
                          "HOST:PORT: missing ':PORT'"));
    EXPECT_THAT(daemon_error("[server]\nshutdown_grace = \"250us\"\n"),
                HasSubstr("'server.shutdown_grace' = \"250us\" is finer than this setting's "
                          "resolution (1ms)"));
}

TEST(config_errors, bad_enum_lists_the_values) {
    EXPECT_EQ(daemon_error("[server]\nlog_level = \"verbose\"\n"),
              "bad.toml:2:13: 'server.log_level' = \"verbose\" is not one of trace, debug, "
              "info, warn, error, critical, off");
    EXPECT_THAT(daemon_error("[server]\nlog_level = \"warning\"\n"),
                HasSubstr("(did you mean 'warn'?)"));
    EXPECT_THAT(daemon_error("[server]\nlog_level = \"INFO\"\n"), HasSubstr("is not one of trace"));
}

TEST(config_errors, bad_strings) {
    EXPECT_THAT(daemon_error("[sink]\njsonl_file = \"../x.jsonl\"\n"),
                HasSubstr("'sink.jsonl_file' = \"../x.jsonl\" must be a plain file name"));
    EXPECT_THAT(daemon_error("[server]\ndata_dir = \"\"\n"),
                HasSubstr("'server.data_dir' = \"\" must not be empty"));
}

TEST(config_errors, toml_syntax_error_has_place) {
    // The place, then the mistake in objwire's words (tests/unit/config/toml_mistakes_test.cpp).
    EXPECT_THAT(daemon_error("[server]\nlisten = \n"),
                HasSubstr("bad.toml:2:10: 'server.listen' has no value after '='"));
    EXPECT_THAT(daemon_error("[limits]\nmax_depth = 1\nmax_depth = 2\n"), HasSubstr("bad.toml:3:"));
    EXPECT_THAT(daemon_error("[server\n"), HasSubstr("bad.toml:1:"));
}

TEST(config_errors, every_problem_is_reported_in_file_order) {
    const auto message = daemon_error(
        "[sink]\njsonl_file = \"a/b\"\n"
        "[limits]\nmax_depth = 0\nmax_detph = 1\n"
        "[server]\nlisen = \"x:1\"\n");
    EXPECT_EQ(message,
              "bad.toml:2:14: 'sink.jsonl_file' = \"a/b\" must be a plain file name inside "
              "server.data_dir (no '/')\n"
              "bad.toml:4:13: 'limits.max_depth' = 0 is out of range (allowed 1..10000)\n"
              "bad.toml:5:1: unknown key 'limits.max_detph' (did you mean 'limits.max_depth'?)\n"
              "bad.toml:7:1: unknown key 'server.lisen' (did you mean 'server.listen'?)");
}

TEST(config_errors, missing_file_names_the_path) {
    const auto r = cfg::load_daemon_file("/nonexistent/dir/objwired.toml");
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().message,
              "/nonexistent/dir/objwired.toml: cannot read config file: No such file or "
              "directory");
    const auto c = cfg::load_client_file("/nonexistent/objwire.toml");
    ASSERT_FALSE(c);
    EXPECT_THAT(c.error().message, HasSubstr("/nonexistent/objwire.toml"));
    const auto dir = cfg::load_client_file(std::filesystem::temp_directory_path());
    ASSERT_FALSE(dir);
    EXPECT_THAT(dir.error().message, HasSubstr("it is a directory"));
}

TEST(config_errors, file_errors_name_the_file_path) {
    const auto path = std::filesystem::temp_directory_path() /
                      ("objwire_config_test_" + std::to_string(::getpid()) + ".toml");
    {
        std::ofstream out(path);
        out << "# comment\n[server]\nlisten = \"127.0.0.1:7878\"\nmax_conections = 5\n";
    }
    const auto r = cfg::load_daemon_file(path);
    std::filesystem::remove(path);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().message, path.string() +
                                     ":4:1: unknown key 'server.max_conections' (did you mean "
                                     "'server.max_connections'?)");
}

TEST(config_errors, accepted_codecs_are_known_names) {
    EXPECT_THAT(daemon_error("[compression]\naccept = [\"lz4\", \"gzip\"]\n"),
                HasSubstr("\"gzip\" is not a codec: zlib, zstd, lz4 or zstd-stream"));
    const auto r = cfg::parse_daemon_toml("[compression]\naccept = [\"lz4\"]\n", "ok.toml");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->compression_accept, std::vector<std::string>{"lz4"});
    const auto none = cfg::parse_daemon_toml("[compression]\naccept = []\n", "ok.toml");
    ASSERT_TRUE(none);
    EXPECT_TRUE(none->compression_accept.empty());
}
