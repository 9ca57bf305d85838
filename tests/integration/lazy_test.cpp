// Lazy values end to end (docs/COMPRESSION.md, "Lazy values"): a client configured with
// [lazy] fields packs a record field, objwired stores it in its journal as the very bytes the
// client compressed, and a reader gets it back lazy, expanding to what was sent.
#include <gtest/gtest.h>

#include <algorithm>

#include <objwire/connection.hpp>
#include <objwire/reader.hpp>
#include "daemon_fixture.hpp"
#include "proto/codec.hpp"
#include "proto/json_writer.hpp"
#include "proto/lazy_value.hpp"

namespace objwire::test {
namespace {

record_type_ptr doc_type() {
    static const auto t = make_record_type("Doc", {"id", "title", "body"});
    return t;
}

std::string body_of(int i) {
    std::string s;
    for (int j = 0; s.size() < 16'000; ++j)
        s += "paragraph " + std::to_string(j % 50) + " of document " + std::to_string(i) + ". ";
    return s;
}

message doc(int i) {
    return message{make_record(doc_type(), {i, "title " + std::to_string(i), body_of(i)})};
}

class Lazy : public daemon_fixture {};

TEST_F(Lazy, ConfiguredFieldIsStoredCompressedAndReadBackExpanded) {
    start();
    constexpr int n = 40;
    auto settings = client_settings();
    settings.lazy_fields = {"Doc.body"};
    settings.lazy_codec = "zlib";  // always built
    std::string sender;
    {
        client::connection c(settings, "lazy-test");
        ASSERT_FALSE(c.open()) << c.last_error();
        for (int i = 0; i < n; ++i)
            ASSERT_FALSE(c.send(doc(i))) << c.last_error();
        ASSERT_FALSE(c.close()) << c.last_error();
        EXPECT_EQ(c.stats().objects_acked, static_cast<std::uint64_t>(n));
        sender = c.sender_id();
    }
    // In the journal: still lazy, the client's compressed bytes exactly.
    const auto stored = this->stored();
    ASSERT_EQ(stored.size(), static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
        const auto& f = stored[i].root.get<record>().fields;
        ASSERT_EQ(f[2].type(), value::kind::lazy) << i;
        const auto& l = f[2].get<lazy_value>();
        auto expected = pack_lazy(body_of(i), codec_id::zlib);
        ASSERT_TRUE(expected);
        EXPECT_TRUE(std::ranges::equal(l.stored(), expected->stored())) << i;
        EXPECT_LT(l.stored().size(), body_of(i).size() / 4);
    }
    // Through a reader: lazy until accessed, then the body that was sent.
    client::read_options o;
    o.idle_timeout = std::chrono::seconds(20);
    client::reader r(client_settings(), o);
    ASSERT_FALSE(r.open()) << r.last_error();
    client::stored_message m;
    int got = 0;
    while (got < n + 1 && r.next(m)) {
        EXPECT_EQ(m.sender_id, sender);
        const auto& f = m.value.root.get<record>().fields;
        ASSERT_EQ(f[2].type(), value::kind::lazy);
        auto body = expand_lazy(f[2].get<lazy_value>(), {}, 2);
        ASSERT_TRUE(body) << body.error().message();
        EXPECT_EQ(*body, value(body_of(got)));
        // JSON output expands it: the same line as the plain document's.
        std::string json;
        EXPECT_FALSE(append_json(m.value, json));
        EXPECT_EQ(json, to_json(doc(got)));
        ++got;
    }
    EXPECT_EQ(got, n);
    EXPECT_FALSE(r.error()) << r.last_error();
}

}  // namespace
}  // namespace objwire::test
