// Typed records end to end: described structs sent with connection::send(struct) to a real
// objwired, stored in its journal, read back typed with client::reader, with shared objects
// still shared; a message refused for an unsigned over 2^63-1 or a string that is not UTF-8
// leaves the connection usable, and its error names the field.
#include <gtest/gtest.h>

#include <objwire/connection.hpp>
#include <objwire/reader.hpp>
#include <objwire/typed.hpp>
#include <objwire/typed_reader.hpp>
#include "daemon_fixture.hpp"

namespace {

struct Part {
    std::string name;
    double weight = 0;
};
BOOST_DESCRIBE_STRUCT(Part, (), (name, weight))

struct Assembly {
    std::uint64_t id = 0;
    std::vector<std::shared_ptr<Part>> parts;
    std::optional<std::string> note;
};
BOOST_DESCRIBE_STRUCT(Assembly, (), (id, parts, note))

using objwire::test::daemon_fixture;

class Typed : public daemon_fixture {};

TEST_F(Typed, structs_sent_and_read_back_typed) {
    start();
    auto bolt = std::make_shared<Part>(Part{"bolt", 0.01});
    auto plate = std::make_shared<Part>(Part{"plate", 2.5});
    objwire::client::connection c(client_settings(), "typed-test");
    ASSERT_FALSE(c.open()) << c.last_error();
    for (std::uint64_t i = 0; i < 500; ++i) {
        Assembly a{i, {bolt, plate, bolt}, std::nullopt};
        if (i % 2) a.note = "odd";
        ASSERT_FALSE(c.send(a)) << c.last_error();
    }
    // Refused, and the connection goes on.
    EXPECT_EQ(c.send(Assembly{std::uint64_t{1} << 63, {}, std::nullopt}),
              objwire::proto_errc::integer_out_of_range);
    EXPECT_NE(c.last_error().find("message refused: Assembly.id: "), std::string::npos)
        << c.last_error();
    const auto bad = std::make_shared<Part>(Part{"bad \xff", 1});
    EXPECT_EQ(c.send(Assembly{7, {bolt, bad}, std::nullopt}), objwire::proto_errc::invalid_utf8);
    EXPECT_NE(c.last_error().find("message refused: Assembly.parts[1].name: "), std::string::npos)
        << c.last_error();
    ASSERT_FALSE(c.send(Assembly{500, {}, "last"})) << c.last_error();
    ASSERT_FALSE(c.close()) << c.last_error();
    EXPECT_EQ(c.stats().objects_acked, 501u);

    objwire::client::read_options o;
    o.idle_timeout = std::chrono::seconds(20);
    objwire::client::reader r(client_settings(), o);
    ASSERT_FALSE(r.open()) << r.last_error();
    objwire::typed::reader<Assembly, objwire::client::reader> assemblies(r);
    Assembly a;
    std::uint64_t n = 0;
    while (assemblies.next(a)) {
        EXPECT_EQ(a.id, n);
        if (n < 500) {
            ASSERT_EQ(a.parts.size(), 3u);
            EXPECT_EQ(a.parts[0], a.parts[2]);  // one bolt, twice
            EXPECT_EQ(a.parts[1]->name, "plate");
            EXPECT_EQ(a.note.has_value(), n % 2 == 1);
        } else {
            EXPECT_EQ(a.note, "last");
        }
        ++n;
    }
    EXPECT_FALSE(assemblies.error()) << assemblies.last_error();
    EXPECT_EQ(n, 501u);
}

}  // namespace
