// A reset keeps the table's entries for reuse (proto/reference_table.cpp): what an id held
// before the reset must never show through what it holds after.
#include <gtest/gtest.h>

#include <string>

#include "proto/reference_table.hpp"

namespace objwire {
namespace {

const std::string long_text(40, 'q');  // past the inline buffer: owns a heap block

TEST(DecodeTable, AnIdReusedAfterAResetHoldsOnlyWhatWasInsertedInto) {
    decode_table t(1 << 20);
    std::uint32_t type_id = 0;
    ASSERT_EQ(t.insert_string(long_text), proto_errc::ok);                // id 0
    ASSERT_EQ(t.insert_type(make_record_type("T", {"a", "b"}), type_id),  // id 1
              proto_errc::ok);
    t.history(type_id)[1] = 42;
    ASSERT_EQ(t.insert_object(value(std::int64_t{7}), 2), proto_errc::ok);  // id 2
    t.reset();
    EXPECT_TRUE(t.fresh());
    EXPECT_EQ(t.use_string(0), nullptr);  // nothing is live after a reset

    // Each id now gets another kind than it had.
    std::uint32_t again = 0;
    ASSERT_EQ(t.insert_type(make_record_type("U", {"x", "y", "z"}), again), proto_errc::ok);
    ASSERT_EQ(again, 0u);
    ASSERT_EQ(t.insert_string("ab"), proto_errc::ok);             // id 1, the old type's
    ASSERT_EQ(t.insert_string(long_text + "!"), proto_errc::ok);  // id 2, the old object's

    ASSERT_NE(t.use_type(0), nullptr);
    EXPECT_EQ((*t.use_type(0))->name, "U");
    EXPECT_EQ(t.history(0), field_history(3, 0));
    EXPECT_EQ(t.use_string(0), nullptr);
    ASSERT_NE(t.use_string(1), nullptr);
    EXPECT_EQ(*t.use_string(1), "ab");
    EXPECT_EQ(t.use_type(1), nullptr);
    ASSERT_NE(t.use_string(2), nullptr);
    EXPECT_EQ(*t.use_string(2), long_text + "!");
    EXPECT_EQ(t.use_object(2), nullptr);
    EXPECT_EQ(t.stats().entries, 3u);
}

TEST(EncodeTable, AnIdReusedAfterAResetHoldsOnlyWhatWasInsertedInto) {
    encode_table t(1 << 20);
    const auto type = make_record_type("T", {"a", "b"});
    const std::uint32_t type_id = t.insert_type(type);  // id 0
    t.history(type_id)[0] = 5;
    ASSERT_EQ(t.insert_string(long_text), 1u);
    t.insert_object(99, value(std::string("kept")), 5, 5);  // id 2
    ASSERT_TRUE(t.find_object(99, value(std::string("kept"))));
    t.reset();

    EXPECT_EQ(t.insert_string("short"), 0u);  // the old type's id
    EXPECT_EQ(t.insert_string(long_text + "!"), 1u);
    EXPECT_EQ(t.insert_type(type), 2u);  // the old object's id
    EXPECT_EQ(t.find_string("short"), std::optional<std::uint32_t>(0));
    EXPECT_EQ(t.find_string(long_text), std::nullopt);
    EXPECT_EQ(t.find_string(long_text + "!"), std::optional<std::uint32_t>(1));
    EXPECT_EQ(t.use_type(type), std::optional<std::uint32_t>(2));
    EXPECT_EQ(t.history(2), field_history(2, 0));
    EXPECT_FALSE(t.find_object(99, value(std::string("kept"))));
    EXPECT_EQ(t.stats().entries, 3u);
}

}  // namespace
}  // namespace objwire
