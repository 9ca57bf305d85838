// [[auth.users]]: read from a config file with the other keys, and every mistake named with
// its place.
#include <gtest/gtest.h>

#include <string>

#include "config/settings.hpp"

namespace cfg = objwire::config;

namespace {

const std::string sha(64, 'a');

TEST(auth_users, TablesAreReadBesideTheOtherKeys) {
    const std::string text =
        "[auth]\ntoken_file = \"/etc/t\"\n[[auth.users]]\nname = \"w\"\n"
        "token_sha256 = \"" +
        sha +
        "\"\nsend = [\"app-*\"]\n[[auth.users]]\nname = \"a\"\n"
        "token_file = \"/etc/a\"\nadmin = true\nread = [\"*\"]\n";
    const auto s = cfg::parse_daemon_toml(text, "d.toml");
    ASSERT_TRUE(s) << s.error().message;
    EXPECT_EQ(s->auth_token_file, "/etc/t");
    ASSERT_EQ(s->auth_users.size(), 2u);
    EXPECT_EQ(s->auth_users[0].name, "w");
    EXPECT_EQ(s->auth_users[0].token_sha256, sha);
    EXPECT_EQ(s->auth_users[0].send, std::vector<std::string>{"app-*"});
    EXPECT_TRUE(s->auth_users[0].read.empty());
    EXPECT_FALSE(s->auth_users[0].admin);
    EXPECT_EQ(s->auth_users[0].place, "d.toml:3");
    EXPECT_TRUE(s->auth_users[1].admin);
    EXPECT_EQ(s->auth_users[1].token_file, "/etc/a");
}

// The message for `text` as a whole file of users.
std::string error_of(const std::string& text) {
    const auto users = cfg::parse_auth_users(text, "u.toml");
    return users ? "" : users.error().message;
}

TEST(auth_users, MistakesAreNamedWithTheirPlace) {
    EXPECT_EQ(error_of("[[auth.users]]\nname = \"x\"\n"),
              "u.toml:1:1: user 'x' has no credential: set token_file, token_sha256 or "
              "cert_subject");
    EXPECT_NE(error_of("[[auth.users]]\nname = \"x\"\ntoken_sha256 = \"abc\"\n")
                  .find("token_sha256 must be 64 hex digits"),
              std::string::npos);
    EXPECT_NE(error_of("[[auth.users]]\nname = \"x\"\ntoken_file = \"/t\"\nsned = [\"a\"]\n")
                  .find("u.toml:4:1: unknown key 'sned' in [[auth.users]]"),
              std::string::npos);
    EXPECT_NE(error_of("[[auth.users]]\nname = \"x\"\ntoken_file = \"/t\"\nsend = \"a\"\n")
                  .find("send must be an array"),
              std::string::npos);
    EXPECT_NE(error_of("[[auth.users]]\nname = \"x\"\ntoken_file = \"/t\"\n"
                       "[[auth.users]]\nname = \"x\"\ntoken_file = \"/u\"\n")
                  .find("user 'x' is defined twice (first at u.toml:1)"),
              std::string::npos);
    EXPECT_NE(error_of("[[auth.users]]\nname = \"shared\"\ntoken_file = \"/t\"\n").find("reserved"),
              std::string::npos);
    EXPECT_NE(
        error_of("[[auth.users]]\nname = \"a b\"\ntoken_file = \"/t\"\n").find("needs a name"),
        std::string::npos);
    EXPECT_NE(error_of("[auth]\nusers = 3\n").find("auth.users must be tables"), std::string::npos);
    EXPECT_NE(error_of("[[auth.users]]\nname = \"x\"\ntoken_file = \"/t\"\ntoken_sha256 = \"" +
                       sha + "\"\n")
                  .find("set only one"),
              std::string::npos);
    // A bad user in a config file fails the whole file.
    EXPECT_FALSE(cfg::parse_daemon_toml("[[auth.users]]\nname = \"x\"\n", "d.toml"));
}

}  // namespace
