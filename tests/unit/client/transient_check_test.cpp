// Transient fields that never match a record are named at the end of a run, with the closest
// type and field the run did see.
#include "client/pipeline/transient_check.hpp"

#include <gtest/gtest.h>

namespace objwire::client {
namespace {

TEST(transient_check, names_a_misspelt_field_with_the_closest_one_seen) {
    transient_check c(transient_check::transient_fields{{"Persn", {"agee"}}, {"Person", {"name"}}});
    EXPECT_FALSE(c.empty());
    c.saw(*make_record_type("Person", {"name", "age"}));
    c.saw(*make_record_type("Point", {"x", "y"}));
    const auto w = c.warnings();
    ASSERT_EQ(w.size(), 1u);
    EXPECT_EQ(w[0], "transient field Persn.agee matched no record read (did you mean Person.age?)");
}

TEST(transient_check, says_nothing_once_every_field_matched) {
    transient_check c(transient_check::transient_fields{{"Person", {"age", "name"}}});
    c.saw(*make_record_type("Person", {"age"}));
    EXPECT_EQ(c.warnings().size(), 1u);  // name not yet
    c.saw(*make_record_type("Person", {"name", "city"}));
    EXPECT_TRUE(c.warnings().empty());
}

TEST(transient_check, without_a_close_name_gives_no_guess) {
    transient_check c(transient_check::transient_fields{{"Order", {"total"}}});
    c.saw(*make_record_type("Point", {"x", "y"}));
    const auto w = c.warnings();
    ASSERT_EQ(w.size(), 1u);
    EXPECT_EQ(w[0], "transient field Order.total matched no record read");
}

TEST(transient_check, with_no_transient_fields_is_empty) {
    EXPECT_TRUE(transient_check(transient_check::transient_fields{}).empty());
}

}  // namespace
}  // namespace objwire::client
