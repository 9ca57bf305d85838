// The rules across keys that objwired's start, reload and both checks share
// (config/daemon_rules.cpp), with a stand-in for the file system.
#include <gtest/gtest.h>

#include <set>

#include "config/daemon_rules.hpp"

namespace objwire::config {
namespace {

// Files in `present` can be read; any other does not exist.
file_problem_function files(std::set<std::string> present) {
    return [present = std::move(present)](const std::string& path) {
        return present.contains(path) ? std::string() : std::string("does not exist");
    };
}

std::vector<std::string> messages(const daemon_settings& s, const file_problem_function& fp) {
    std::vector<std::string> out;
    for (const auto& e : check_daemon_settings(s, fp))
        out.push_back(e.message);
    return out;
}

TEST(DaemonRules, TheDefaultsPass) {
    EXPECT_TRUE(messages(daemon_settings{}, files({})).empty());
}

TEST(DaemonRules, ForwardNeedsTo) {
    daemon_settings s;
    s.sink_kind = "forward";
    const auto m = messages(s, files({}));
    ASSERT_EQ(m.size(), 1u);
    EXPECT_EQ(m[0],
              "forward.to: must be set when sink.kind = \"forward\" (the next hop's "
              "\"HOST:PORT\"; OBJWIRE_FORWARD_TO)");
    s.forward_to = "127.0.0.1:7879";
    EXPECT_TRUE(messages(s, files({})).empty());
}

TEST(DaemonRules, TlsFilesGoInPairs) {
    daemon_settings s;
    s.tls_cert_file = "/c.pem";
    auto m = messages(s, files({"/c.pem"}));
    ASSERT_EQ(m.size(), 1u);
    EXPECT_TRUE(m[0].starts_with("tls.key_file: must be set when tls.cert_file is set")) << m[0];
    s = {};
    s.tls_key_file = "/k.pem";
    m = messages(s, files({"/k.pem"}));
    ASSERT_EQ(m.size(), 1u);
    EXPECT_TRUE(m[0].starts_with("tls.cert_file: must be set when tls.key_file is set")) << m[0];
    s = {};
    s.tls_client_ca_file = "/ca.pem";
    m = messages(s, files({"/ca.pem"}));
    ASSERT_EQ(m.size(), 1u);
    EXPECT_TRUE(m[0].starts_with("tls.client_ca_file: needs TLS")) << m[0];
}

TEST(DaemonRules, NamedFilesMustBeReadable) {
    daemon_settings s;
    s.auth_token_file = "/etc/objwire/token";
    s.tls_cert_file = "/c.pem";
    s.tls_key_file = "/k.pem";
    const auto m = messages(s, files({"/c.pem"}));
    ASSERT_EQ(m.size(), 2u);
    EXPECT_EQ(m[0],
              "auth.token_file: '/etc/objwire/token' does not exist (objwired reads it at start, "
              "as its own user; OBJWIRE_AUTH_TOKEN_FILE)");
    EXPECT_TRUE(m[1].starts_with("tls.key_file: '/k.pem' does not exist")) << m[1];
}

TEST(DaemonRules, UsersTokenFilesAndTheMetricsTokenMustBeReadable) {
    daemon_settings s;
    s.auth_users_file = "/etc/objwire/users.toml";
    s.metrics_bearer_token_file = "/etc/objwire/metrics.token";
    auth_user w, x;
    w.name = "w";
    w.token_file = "/t/w";
    w.place = "d.toml:3";
    x.name = "x";
    x.token_sha256 = std::string(64, 'a');  // no file to read
    x.place = "d.toml:8";
    s.auth_users = {w, x};
    const auto m = messages(s, files({"/etc/objwire/users.toml"}));
    ASSERT_EQ(m.size(), 2u);
    EXPECT_TRUE(
        m[0].starts_with("metrics.bearer_token_file: '/etc/objwire/metrics.token' does "
                         "not exist"))
        << m[0];
    EXPECT_EQ(m[1],
              "d.toml:3: token_file of user 'w': '/t/w' does not exist (objwired reads it at "
              "start and on SIGHUP)");
}

// A sink's own file is only read when that sink is chosen.
TEST(DaemonRules, OnlyTheChosenSinksFilesAreRead) {
    daemon_settings s;
    s.nats_credentials_file = "/nats.creds";
    s.forward_client_config = "/hop.toml";
    EXPECT_TRUE(messages(s, files({})).empty());
    s.sink_kind = "nats";
    const auto m = messages(s, files({}));
    ASSERT_EQ(m.size(), 1u);
    EXPECT_TRUE(m[0].starts_with("nats.credentials_file: '/nats.creds' does not exist")) << m[0];
}

TEST(DaemonRules, TheRealProbeTellsMissingFromDirectory) {
    EXPECT_EQ(readable_file_problem("/nonexistent/objwire/file"), "does not exist");
    EXPECT_EQ(readable_file_problem("/"), "is a directory, not a file");
}

// Under the unit ($STATE_DIRECTORY set), a data_dir elsewhere is pointed out; the shipped one
// and any directory inside the state directory are not.
TEST(DaemonRules, DataDirOutsideTheStateDirectoryIsPointedOut) {
    daemon_settings s;
    s.data_dir = "/var/lib/objwire";
    EXPECT_EQ(data_dir_outside_state_directory(s, "/var/lib/objwire"), "");
    EXPECT_EQ(data_dir_outside_state_directory(s, "/var/lib/objwire/"), "");
    s.data_dir = "/var/lib/objwire/spool/";
    EXPECT_EQ(data_dir_outside_state_directory(s, "/var/lib/other:/var/lib/objwire"), "");
    s.data_dir = "/srv/objwire";
    EXPECT_EQ(data_dir_outside_state_directory(s, ""), "") << "not under the unit";
    EXPECT_EQ(data_dir_outside_state_directory(s, "/var/lib/objwire"),
              "server.data_dir = \"/srv/objwire\" is outside the unit's state directory "
              "/var/lib/objwire: the unit's ProtectSystem=strict keeps it read-only unless a "
              "drop-in adds ReadWritePaths=/srv/objwire (the shipped data_dir is "
              "/var/lib/objwire)");
    s.data_dir = "/var/lib/objwire-old";  // a prefix of the name is not inside
    EXPECT_NE(data_dir_outside_state_directory(s, "/var/lib/objwire"), "");
    s.data_dir = "/var/lib/objwire/../elsewhere";
    EXPECT_NE(data_dir_outside_state_directory(s, "/var/lib/objwire"), "");
    s.data_dir = "objwire-data";  // relative: the unit runs in /
    EXPECT_NE(data_dir_outside_state_directory(s, "/var/lib/objwire"), "");
}

TEST(DaemonRules, AProblemIsPlacedAtTheLineOfTheKeyItNamesFirst) {
    const std::vector<key_line> lines = {{"sink.kind", 2}, {"metrics.listen", 4}};
    // forward.to is not written: the line that asks for it is.
    EXPECT_EQ(
        place_in_file("forward.to: must be set when sink.kind = \"forward\"", "op.toml", lines),
        "op.toml:2: forward.to: must be set when sink.kind = \"forward\"");
    const std::vector<key_line> both = {{"sink.kind", 2}, {"forward.to", 5}};
    EXPECT_EQ(place_in_file("forward.to: bad port", "op.toml", both),
              "op.toml:5: forward.to: bad port");
    // A key only inside a longer name does not count; none written: unchanged.
    const std::vector<key_line> other = {{"tls.cert", 1}};
    EXPECT_EQ(place_in_file("tls.cert_file: missing", "op.toml", other), "tls.cert_file: missing");
}

}  // namespace
}  // namespace objwire::config
