// What `objwire senders` prints (client/cli/sender_table.hpp): the table's columns aligned
// whatever the ids, the JSON lines escaped, the times in the form `read --from @TIME` takes.
#include <gtest/gtest.h>

#include "client/cli/sender_table.hpp"
#include "client/cli/start_time.hpp"

namespace objwire::client {
namespace {

TEST(SenderTable, TimesAreUtcWithMillisecondsAndReadBack) {
    EXPECT_EQ(format_utc_time(0), "1970-01-01T00:00:00.000Z");
    EXPECT_EQ(format_utc_time(1764669600250), "2025-12-02T10:00:00.250Z");
    for (std::uint64_t ms : {1ull, 999ull, 1700000000123ull, 4102444799999ull})
        EXPECT_EQ(parse_start_time(format_utc_time(ms)), ms);
}

TEST(SenderTable, ColumnsLineUpAndAnonymousIsNamed) {
    sender_list l{{{"", 2, 8, 9, 0}, {"app-1", 12345, 0, 99999, 1000}, {"ü", 1, 7, 7, 1}}};
    EXPECT_EQ(sender_table(l),
              "SENDER       OBJECTS  FIRST   LAST  LAST STORED\n"
              "(anonymous)        2      8      9  1970-01-01T00:00:00.000Z\n"
              "app-1          12345      0  99999  1970-01-01T00:00:01.000Z\n"
              "ü                  1      7      7  1970-01-01T00:00:00.001Z\n");
    EXPECT_EQ(sender_table({}), "SENDER  OBJECTS  FIRST  LAST  LAST STORED\n");
}

TEST(SenderTable, JsonLinesEscapeTheId) {
    sender_list l{{{"", 2, 8, 9, 0}, {"a\"b\\c\td", 3, 0, 2, 1700000000123}}};
    EXPECT_EQ(sender_json_lines(l),
              "{\"sender\":\"\",\"objects\":2,\"first_offset\":8,\"last_offset\":9,"
              "\"last_time_ms\":0,\"last_time\":\"1970-01-01T00:00:00.000Z\"}\n"
              "{\"sender\":\"a\\\"b\\\\c\\td\",\"objects\":3,\"first_offset\":0,\"last_offset\":2,"
              "\"last_time_ms\":1700000000123,\"last_time\":\"2023-11-14T22:13:20.123Z\"}\n");
}

}  // namespace
}  // namespace objwire::client
