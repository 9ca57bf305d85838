// The common TOML mistakes, through the real parser (toml++) and the loader: each message
// names the file, line, key and what to write instead (config/toml_mistakes.hpp).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "config/settings.hpp"
#include "config/toml_mistakes.hpp"

namespace cfg = objwire::config;

namespace {

std::string daemon_error(std::string_view text) {
    const auto r = cfg::parse_daemon_toml(text, "objwired.toml");
    return r ? std::string("(no error)") : r.error().message;
}

std::string client_error(std::string_view text) {
    const auto r = cfg::parse_client_toml(text, "objwire.toml");
    return r ? std::string("(no error)") : r.error().message;
}

TEST(toml_mistakes, an_unquoted_string_is_shown_quoted) {
    EXPECT_EQ(daemon_error("# mine\n[server]\nlog_level = info\n"),
              "objwired.toml:3:13: 'server.log_level' = info is not a TOML value: strings are "
              "quoted: log_level = \"info\"");
    // toml++ reads "debug" and "journal" differently from "info" (not as a float): the same
    // message.
    EXPECT_EQ(daemon_error("[sink]\nkind = journal  # where\n"),
              "objwired.toml:2:8: 'sink.kind' = journal is not a TOML value: strings are quoted: "
              "kind = \"journal\"");
    EXPECT_EQ(daemon_error("[server]\nlog_level = debug\n"),
              "objwired.toml:2:13: 'server.log_level' = debug is not a TOML value: strings are "
              "quoted: log_level = \"debug\"");
}

TEST(toml_mistakes, a_value_with_a_unit_is_a_quoted_string) {
    EXPECT_EQ(client_error("[batch]\nlinger = 5ms\n"),
              "objwire.toml:2:10: 'batch.linger' = 5ms is not a TOML value: a value with a unit or "
              "other text is a string, quoted: linger = \"5ms\"");
    EXPECT_THAT(daemon_error("[server]\nlisten = 127.0.0.1:7878\n"),
                testing::EndsWith("listen = \"127.0.0.1:7878\""));
    EXPECT_THAT(daemon_error("[server]\nshutdown_grace = 5 s\n"),
                testing::EndsWith("shutdown_grace = \"5 s\""));
}

TEST(toml_mistakes, a_dotted_key_at_the_top_is_named_in_full) {
    EXPECT_EQ(daemon_error("server.log_level = info\n"),
              "objwired.toml:1:20: 'server.log_level' = info is not a TOML value: strings are "
              "quoted: server.log_level = \"info\"");
}

TEST(toml_mistakes, booleans_and_numbers_are_spelt_as_toml_spells_them) {
    EXPECT_EQ(client_error("[socket]\nnodelay = True\n"),
              "objwire.toml:2:11: 'socket.nodelay' = True is not a TOML value: booleans are true "
              "or false, lowercase: nodelay = true");
    EXPECT_THAT(client_error("[socket]\nnodelay = no\n"), testing::EndsWith("nodelay = false"));
    EXPECT_EQ(daemon_error("[server]\nmax_connections = 1,000\n"),
              "objwired.toml:2:19: 'server.max_connections' = 1,000 is not a TOML value: numbers "
              "have no ',': max_connections = 1000");
}

TEST(toml_mistakes, a_colon_for_the_equals_sign) {
    EXPECT_EQ(daemon_error("[server]\nlisten: \"127.0.0.1:7878\"\n"),
              "objwired.toml:2:1: 'server.listen' is set with ':': TOML sets a key with '=': "
              "listen = \"127.0.0.1:7878\"");
}

TEST(toml_mistakes, a_key_with_a_space) {
    EXPECT_EQ(daemon_error("[server]\nlog level = \"info\"\n"),
              "objwired.toml:2:1: 'log level' is not a key: keys have no spaces (did you mean "
              "'log_level'?)");
}

TEST(toml_mistakes, a_key_set_twice_names_both_lines) {
    EXPECT_EQ(daemon_error("[limits]\nmax_depth = 1\n# again\nmax_depth = 2\n"),
              "objwired.toml:4:1: 'limits.max_depth' is set twice (first on line 2): a key is set "
              "once; delete one of the lines");
    EXPECT_THAT(daemon_error("server.listen = \"a:1\"\nserver.listen = \"b:1\"\n"),
                testing::HasSubstr("'server.listen' is set twice (first on line 1)"));
}

TEST(toml_mistakes, a_table_written_twice_names_both_lines) {
    EXPECT_EQ(daemon_error("[server]\nlisten = \"a:1\"\n[limits]\n[server]\n"),
              "objwired.toml:4:1: [server] is written twice (first on line 1): put all its keys "
              "under one [server]");
}

TEST(toml_mistakes, unclosed_strings_headers_arrays) {
    EXPECT_EQ(daemon_error("[server]\nlisten = \"127.0.0.1:7878\n"),
              "objwired.toml:2:10: 'server.listen': the string is not closed: end it with \" on "
              "the same line: listen = \"127.0.0.1:7878\"");
    EXPECT_EQ(daemon_error("[server\nlisten = \"a:1\"\n"),
              "objwired.toml:1:1: the table header is not closed: write [server] on a line of its "
              "own");
    EXPECT_THAT(daemon_error("[compression]\naccept = [\"zlib\", \"zstd\"\n"),
                testing::HasSubstr("objwired.toml:2:10: 'compression.accept': the array is not "
                                   "closed"));
}

TEST(toml_mistakes, a_backslash_in_a_basic_string) {
    EXPECT_EQ(daemon_error("[tls]\ncert_file = \"C:\\certs\\a.pem\"\n"),
              "objwired.toml:2:13: 'tls.cert_file' = \"C:\\certs\\a.pem\": '\\' starts an escape "
              "sequence in \"...\": write '\\\\', or use single quotes, which take text as it is: "
              "cert_file = 'C:\\certs\\a.pem'");
}

TEST(toml_mistakes, text_after_a_value) {
    EXPECT_EQ(daemon_error("[server]\nlisten = \"a:1\" log_level = \"info\"\n"),
              "objwired.toml:2:10: 'server.listen' = \"a:1\" log_level = \"info\": only a comment "
              "(# ...) may follow a value on its line; put the next key on a line of its own");
}

TEST(toml_mistakes, any_other_syntax_error_keeps_the_parsers_words_with_the_key) {
    const auto explained = objwire::config::detail::explain_syntax_error(
        "[server]\nlisten = \"\"\"a\n", 2, 10, "Error while parsing string: something");
    EXPECT_EQ(explained.line, 2u);
    EXPECT_EQ(explained.column, 10u);
    EXPECT_EQ(explained.message, "'server.listen': Error while parsing string: something");
    const auto outside = objwire::config::detail::explain_syntax_error("a = 1\n", 7, 1, "odd");
    EXPECT_EQ(outside.message, "odd");
}

// Mistakes the parser accepts are the schema's: each names its place, key and the form.
TEST(toml_mistakes, schema_mistakes_name_place_key_and_form) {
    EXPECT_EQ(daemon_error("[sever]\nlisten = \"a:1\"\n"),
              "objwired.toml:1:2: unknown table 'sever' (did you mean 'server'?)");
    EXPECT_THAT(daemon_error("[server]\nmax_connections = \"1024\"\n"),
                testing::StartsWith("objwired.toml:2:19: 'server.max_connections' must be an "
                                    "integer"));
    EXPECT_THAT(daemon_error("[server]\nlog_level = \"INFO\"\n"),
                testing::HasSubstr("(did you mean 'info'?)"));
}

TEST(toml_mistakes, an_address_without_a_host_says_which_to_write) {
    EXPECT_EQ(daemon_error("[metrics]\nlisten = \":9464\"\n"),
              "objwired.toml:2:10: 'metrics.listen' = \":9464\" is not a valid HOST:PORT: no host "
              "before ':9464': write \"127.0.0.1:9464\" (this machine only), \"0.0.0.0:9464\" "
              "(every IPv4 address) or \"[::]:9464\" (every address) (or \"\" for off)");
    EXPECT_EQ(daemon_error("[server]\nlisten = \":7878\"\n"),
              "objwired.toml:2:10: 'server.listen': \":7878\" is not a valid HOST:PORT: no host "
              "before ':7878': write \"127.0.0.1:7878\" (this machine only), \"0.0.0.0:7878\" "
              "(every IPv4 address) or \"[::]:7878\" (every address)");
}

}  // namespace
