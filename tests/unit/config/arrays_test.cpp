// objwire::config: arrays of strings - [types.NAME] transient = [...] in files, the
// environment and overrides, their error messages and printing with origins.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

#include "config/settings.hpp"

namespace cfg = objwire::config;
using ::testing::HasSubstr;

namespace {

using lists = std::map<std::string, std::vector<std::string>, std::less<>>;

std::string error_of(const cfg::outcome<cfg::client_settings>& o) {
    return o ? std::string("(no error)") : o.error().message;
}

}  // namespace

TEST(config_arrays, transient_fields_per_type) {
    const auto s = cfg::parse_client_toml(
        "[types.Person]\n"
        "transient = [\"surname\", \"age\"]\n"
        "[types.\"com.acme.Order\"]\n"
        "transient = [\"note\"]\n",
        "my.toml");
    ASSERT_TRUE(s) << error_of(s);
    EXPECT_EQ(s->transient, (lists{{"Person", {"surname", "age"}}, {"com.acme.Order", {"note"}}}));
}

TEST(config_arrays, dotted_and_inline_forms) {
    const auto s = cfg::parse_client_toml(
        "types.Event.transient = [\"trace\"]\n"
        "types.Person = { transient = [\"age\"] }\n",
        "my.toml");
    ASSERT_TRUE(s) << error_of(s);
    EXPECT_EQ(s->transient, (lists{{"Event", {"trace"}}, {"Person", {"age"}}}));
}

// The example file's placeholder: an empty list changes nothing.
TEST(config_arrays, empty_list_is_nothing) {
    const auto s = cfg::parse_client_toml("[types.NAME]\ntransient = []\n", "my.toml");
    ASSERT_TRUE(s) << error_of(s);
    EXPECT_EQ(*s, cfg::client_settings{});
}

TEST(config_arrays, not_an_array_names_place_and_form) {
    const auto s = cfg::parse_client_toml("[types.Person]\ntransient = \"surname\"\n", "my.toml");
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().message,
              "my.toml:2:13: 'types.Person.transient' must be an array of strings like "
              "[\"a\", \"b\"], got string \"surname\"");
}

TEST(config_arrays, bad_element_is_pointed_at) {
    const auto s =
        cfg::parse_client_toml("[types.Person]\ntransient = [\"surname\", 3]\n", "my.toml");
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().message,
              "my.toml:2:25: 'types.Person.transient': element 2 must be a string (a field "
              "name), got integer 3");
    const auto empty = cfg::parse_client_toml("[types.Person]\ntransient = [\"\"]\n", "my.toml");
    ASSERT_FALSE(empty);
    EXPECT_THAT(empty.error().message, HasSubstr("my.toml:2:14: "));
    EXPECT_THAT(empty.error().message, HasSubstr("element 1 is empty; write a field name"));
}

TEST(config_arrays, typo_gets_did_you_mean_with_the_type_name) {
    const auto s = cfg::parse_client_toml("[types.Person]\ntranseint = [\"age\"]\n", "my.toml");
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().message,
              "my.toml:2:1: unknown key 'types.Person.transeint' (did you mean "
              "'types.Person.transient'?)");
}

TEST(config_arrays, type_must_be_a_table) {
    const auto s = cfg::parse_client_toml("[types]\nPerson = 5\n", "my.toml");
    ASSERT_FALSE(s);
    EXPECT_THAT(s.error().message, HasSubstr("my.toml:2:10: 'types.Person' must be a table"));
}

TEST(config_arrays, environment_takes_type_dot_field) {
    cfg::client_settings s;
    s.transient["Person"] = {"age"};
    s.transient["Event"] = {"x"};
    const std::map<std::string, std::string> env{
        {"OBJWIRE_TYPES_TRANSIENT", "Person.surname, Person.age,com.acme.Order.note"}};
    const auto e = cfg::apply_client_env(s, [&](const char* n) -> const char* {
        const auto it = env.find(n);
        return it == env.end() ? nullptr : it->second.c_str();
    });
    ASSERT_FALSE(e) << e->message;
    // Named types are replaced, others stay.
    EXPECT_EQ(
        s.transient,
        (lists{{"Event", {"x"}}, {"Person", {"surname", "age"}}, {"com.acme.Order", {"note"}}}));
}

TEST(config_arrays, environment_error_says_the_form) {
    cfg::client_settings s;
    const auto e = cfg::apply_client_env(s, [](const char* n) -> const char* {
        return std::string_view(n) == "OBJWIRE_TYPES_TRANSIENT" ? "surname" : nullptr;
    });
    ASSERT_TRUE(e);
    EXPECT_EQ(e->message,
              "OBJWIRE_TYPES_TRANSIENT: 'types.NAME.transient': \"surname\" must be TYPE.FIELD, "
              "e.g. \"Person.surname\" (several separated by commas)");
    EXPECT_EQ(s, cfg::client_settings{});
}

TEST(config_arrays, override_for_one_type) {
    cfg::client_settings s;
    ASSERT_FALSE(cfg::apply_client_override(s, "types.Person.transient", "surname,age", "--x"));
    ASSERT_FALSE(cfg::apply_client_override(s, "types.NAME.transient", "Event.trace", "--y"));
    EXPECT_EQ(s.transient, (lists{{"Event", {"trace"}}, {"Person", {"surname", "age"}}}));
}

TEST(config_arrays, printed_settings_parse_back) {
    cfg::client_settings s;
    s.transient["Person"] = {"surname", "age"};
    s.transient["com.acme.Order"] = {"note \"x\""};
    const auto printed = cfg::to_toml(s);
    EXPECT_THAT(printed, HasSubstr("[types.Person]\ntransient = [\"surname\", \"age\"]"));
    EXPECT_THAT(printed, HasSubstr("[types.\"com.acme.Order\"]"));
    const auto back = cfg::parse_client_toml(printed, "printed");
    ASSERT_TRUE(back) << error_of(back) << "\n" << printed;
    EXPECT_EQ(*back, s);
}

TEST(config_arrays, origins_name_file_and_line) {
    const std::string text =
        "[batch]\nmax_bytes = \"128KiB\"\n\n[types.Person]\ntransient = [\"age\"]\n";
    const auto file = cfg::parse_client_toml(text, "my.toml");
    ASSERT_TRUE(file) << error_of(file);
    auto lines = cfg::key_lines(text, "my.toml");
    ASSERT_TRUE(lines);
    cfg::client_settings flags = *file;
    ASSERT_FALSE(cfg::apply_client_override(flags, "client.to", "10.0.0.1:9", "--to"));
    const cfg::settings_layer<cfg::client_settings> layers[] = {{"my.toml", *file, *lines},
                                                                {"--to", flags, {}}};
    const auto printed = cfg::to_toml(flags, layers);
    EXPECT_THAT(printed, HasSubstr("# my.toml:2\n"));
    EXPECT_THAT(printed, HasSubstr("transient = [\"age\"]"));
    EXPECT_THAT(printed, HasSubstr("# my.toml:5\n"));
    EXPECT_THAT(printed, HasSubstr("to = \"10.0.0.1:9\""));
    EXPECT_THAT(printed, HasSubstr("# --to\n"));
    EXPECT_THAT(printed, HasSubstr("linger = \"5ms\""));
}

TEST(config_arrays, described_with_its_variable) {
    for (const auto& k : cfg::client_keys()) {
        if (k.name != "types.NAME.transient") continue;
        EXPECT_EQ(k.env_var, "OBJWIRE_TYPES_TRANSIENT");
        EXPECT_EQ(k.kind, "string_list");
        EXPECT_EQ(k.default_text, "[]");
        return;
    }
    ADD_FAILURE() << "no key types.NAME.transient";
}
