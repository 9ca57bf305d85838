// The rules of users and permissions without a daemon: patterns, which permission each hello
// needs, finding a user by token or certificate, what a reload revokes.
#include "daemon/serve/permissions.hpp"

#include <gtest/gtest.h>

#include "daemon/serve/access_token.hpp"

namespace objwire::daemon {
namespace {

user make_user(std::string name, grants g, std::string token = "", std::string cert = "") {
    user u{std::move(name), std::move(g), std::nullopt, std::move(cert)};
    if (!token.empty()) u.token = sha256_of(token);
    return u;
}

hello sender_hello(std::string id) {
    hello h;
    h.role = peer_role::sender;
    h.sender_id = std::move(id);
    return h;
}

hello reader_hello(std::string sender = "", read_request r = read_request::none) {
    hello h;
    h.role = peer_role::reader;
    h.read_sender = std::move(sender);
    h.request = r;
    return h;
}

const user writer = make_user("writer", {{"app-*"}, {}, false});
const user reader = make_user("reader", {{}, {"app-*"}, false});
const user admin = make_user("admin", {{}, {}, true});

TEST(Permissions, PatternsMatchWithStarsAnywhere) {
    EXPECT_TRUE(pattern_matches("app-*", "app-1"));
    EXPECT_TRUE(pattern_matches("app-*", "app-"));
    EXPECT_FALSE(pattern_matches("app-*", "db-1"));
    EXPECT_FALSE(pattern_matches("app-*", "xapp-1"));
    EXPECT_TRUE(pattern_matches("*", ""));
    EXPECT_TRUE(pattern_matches("*-eu-*", "app-eu-1"));
    EXPECT_FALSE(pattern_matches("*-eu-*", "app-us-1"));
    EXPECT_TRUE(pattern_matches("a*b*c", "aXbYbZc"));
    EXPECT_FALSE(pattern_matches("exact", "exact2"));
    EXPECT_TRUE(pattern_matches("exact", "exact"));
    EXPECT_FALSE(pattern_matches("", "x"));
    // Many stars against a long name that does not match: still quick (no backtracking blow-up).
    EXPECT_FALSE(pattern_matches("*a*a*a*a*a*a*a*a*b", std::string(4096, 'a')));
}

TEST(Permissions, EachRequestNeedsItsPermission) {
    EXPECT_FALSE(check_request(writer, sender_hello("app-1")));
    const auto as_db = check_request(writer, sender_hello("db-1"));
    ASSERT_TRUE(as_db);
    EXPECT_EQ(as_db->needed, permission::send);
    EXPECT_EQ(as_db->text, "user 'writer' lacks permission send as sender id 'db-1'");
    EXPECT_TRUE(check_request(writer, sender_hello("")))
        << "an anonymous stream needs a pattern that matches the empty id";

    EXPECT_EQ(check_request(writer, reader_hello())->needed, permission::read);
    EXPECT_EQ(check_request(writer, reader_hello("", read_request::list_senders))->needed,
              permission::read);
    EXPECT_EQ(check_request(writer, reader_hello("", read_request::set_cursor))->needed,
              permission::admin);
    hello stats;
    stats.role = peer_role::stats;
    EXPECT_EQ(check_request(writer, stats)->needed, permission::admin);

    EXPECT_FALSE(check_request(reader, reader_hello()));
    EXPECT_FALSE(check_request(reader, reader_hello("app-7")));
    EXPECT_EQ(check_request(reader, reader_hello("db-1"))->text,
              "user 'reader' lacks permission read for sender id 'db-1'");
    EXPECT_FALSE(check_request(reader, reader_hello("", read_request::list_senders)));
    EXPECT_EQ(check_request(reader, reader_hello("", read_request::list_cursors))->needed,
              permission::admin);
    EXPECT_EQ(check_request(reader, sender_hello("app-1"))->needed, permission::send);

    EXPECT_FALSE(check_request(admin, reader_hello("db-1")));
    EXPECT_FALSE(check_request(admin, reader_hello("", read_request::delete_cursor)));
    EXPECT_FALSE(check_request(admin, stats));
    EXPECT_EQ(check_request(admin, sender_hello("x"))->needed, permission::send)
        << "admin does not imply send";
}

TEST(Permissions, OnlyAdminOrReadStarReadsEverything) {
    EXPECT_FALSE(reader.may.reads_everything());
    EXPECT_TRUE(admin.may.reads_everything());
    EXPECT_TRUE((grants{{}, {"*"}, false}.reads_everything()));
    EXPECT_TRUE(reader.may.may_read("app-2"));
    EXPECT_FALSE(reader.may.may_read("db-2"));
    EXPECT_FALSE(writer.may.may_read("app-1")) << "send does not imply read";
}

TEST(Permissions, UsersAreFoundByTokenDigestOrCertificate) {
    user_directory dir({make_user("a", grants::everything(), "token of a, sixteen+"),
                        make_user("b", {}, "token of b, sixteen+"),
                        make_user("c", {}, "", "CN=team-c,O=example")});
    EXPECT_EQ(dir.by_token(sha256_of("token of b, sixteen+"))->name, "b");
    EXPECT_EQ(dir.by_token(sha256_of("token of a, sixteen+"))->name, "a");
    EXPECT_EQ(dir.by_token(sha256_of("token of c")), nullptr);
    EXPECT_EQ(dir.by_token(sha256_of("")), nullptr) << "a user without a token has none";
    EXPECT_EQ(dir.by_certificate("CN=team-c,O=example", {})->name, "c");
    const std::vector<std::string> sans{"DNS:other", "CN=team-c,O=example"};
    EXPECT_EQ(dir.by_certificate("CN=x", sans)->name, "c") << "a SAN matches too";
    EXPECT_EQ(dir.by_certificate("CN=team-d", {}), nullptr);
    EXPECT_TRUE(dir.has_certificate_users());
    EXPECT_EQ(dir.duplicate_token(), "");
    user_directory twice(
        {make_user("a", {}, "same token, sixteen+"), make_user("b", {}, "same token, sixteen+")});
    EXPECT_EQ(twice.duplicate_token(), "b");
}

TEST(Permissions, AReloadRevokesWhatAUserNoLongerMay) {
    const user_directory same({reader, writer});
    EXPECT_EQ(revocation(reader, reader_hello(), same), "");
    const user_directory without({writer});
    EXPECT_EQ(revocation(reader, reader_hello(), without), "user 'reader' was removed");
    const user_directory narrower({make_user("reader", {{}, {"app-1"}, false}), writer});
    EXPECT_EQ(revocation(reader, reader_hello(), narrower), "")
        << "a reader of every stream it may read goes on, seeing fewer";
    EXPECT_EQ(revocation(reader, reader_hello("app-2"), narrower),
              "user 'reader' lacks permission read for sender id 'app-2' since the reload");
    const user_directory no_read({make_user("reader", {{"app-*"}, {}, false})});
    EXPECT_NE(revocation(reader, reader_hello(), no_read), "");
    EXPECT_NE(revocation(writer, sender_hello("app-1"), no_read), "");
}

}  // namespace
}  // namespace objwire::daemon
