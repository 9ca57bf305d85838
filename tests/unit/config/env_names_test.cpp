// OBJWIRE_* variables that no setting reads are found, with the name probably meant.
#include "config/env_names.hpp"

#include <gtest/gtest.h>

namespace objwire::config {
namespace {

TEST(EnvNames, AMisspeltVariableIsFoundWithTheNameMeant) {
    const std::string_view env[] = {"PATH=/usr/bin", "OBJWIRE_SERVER_LISEN=0.0.0.0:1",
                                    "OBJWIRE_SERVER_LISTEN=127.0.0.1:7878"};
    const auto unknown = unknown_env_variables(env);
    ASSERT_EQ(unknown.size(), 1u);
    EXPECT_EQ(unknown[0].name, "OBJWIRE_SERVER_LISEN");
    EXPECT_EQ(unknown[0].suggestion, "OBJWIRE_SERVER_LISTEN");
    EXPECT_EQ(unknown[0].message(),
              "OBJWIRE_SERVER_LISEN names no setting (did you mean OBJWIRE_SERVER_LISTEN?)");
}

TEST(EnvNames, EitherProgramsVariablesAreKnown) {
    // objwired's and objwire's settings share one environment, and a NAME key's variable
    // leaves the name out.
    const std::string_view env[] = {"OBJWIRE_JOURNAL_FSYNC=always", "OBJWIRE_CLIENT_TO=h:1",
                                    "OBJWIRE_TYPES_TRANSIENT=Person.age",
                                    "OBJWIRE_BATCH_LINGER=", "OTHER_OBJWIRE_X=1"};
    EXPECT_TRUE(unknown_env_variables(env).empty());
}

TEST(EnvNames, ObjwireConfigIsKnown) {
    // It names objwire's settings file (config/client_file.hpp), not a setting.
    const std::string_view env[] = {"OBJWIRE_CONFIG=/etc/objwire/objwire.toml"};
    EXPECT_TRUE(unknown_env_variables(env).empty());
}

TEST(EnvNames, ANameFarFromEveryVariableHasNoSuggestion) {
    const std::string_view env[] = {"OBJWIRE_COMPLETELY_UNRELATED_THING"};
    const auto unknown = unknown_env_variables(env);
    ASSERT_EQ(unknown.size(), 1u);
    EXPECT_EQ(unknown[0].suggestion, "");
    EXPECT_EQ(unknown[0].message(), "OBJWIRE_COMPLETELY_UNRELATED_THING names no setting");
}

}  // namespace
}  // namespace objwire::config
