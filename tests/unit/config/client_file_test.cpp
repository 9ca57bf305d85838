// Which file objwire reads with no -c: $OBJWIRE_CONFIG, the user's, the system's, in that
// order, the first that exists; on a fake environment and file system.
#include "config/client_file.hpp"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

namespace objwire::config {
namespace {

struct fake_machine {
    std::map<std::string, std::string> env;
    std::set<std::string> files;

    outcome<client_file> choose(std::string_view flag_file = {}) const {
        return choose_client_file(
            flag_file,
            [this](const char* name) -> const char* {
                const auto it = env.find(name);
                return it == env.end() ? nullptr : it->second.c_str();
            },
            [this](const std::string& path) { return files.contains(path); });
    }
};

TEST(ClientFile, NoFileAnywhereMeansTheDefaults) {
    const fake_machine m{{{"HOME", "/home/ann"}}, {}};
    const auto chosen = m.choose();
    ASSERT_TRUE(chosen) << chosen.error().message;
    EXPECT_EQ(chosen->path, "");
    EXPECT_EQ(chosen->searched, (std::vector<std::string>{"/home/ann/.config/objwire/objwire.toml",
                                                          "/etc/objwire/objwire.toml"}));
    EXPECT_EQ(chosen->describe(),
              "none, the built-in defaults (none of /home/ann/.config/objwire/objwire.toml, "
              "/etc/objwire/objwire.toml exists)");
}

TEST(ClientFile, TheSystemFileIsReadWhenTheUserHasNone) {
    const fake_machine m{{{"HOME", "/home/ann"}}, {"/etc/objwire/objwire.toml"}};
    const auto chosen = m.choose();
    ASSERT_TRUE(chosen);
    EXPECT_EQ(chosen->path, "/etc/objwire/objwire.toml");
    EXPECT_EQ(chosen->found_by, "search");
}

TEST(ClientFile, TheUsersFileComesBeforeTheSystems) {
    const fake_machine m{{{"HOME", "/home/ann"}},
                         {"/home/ann/.config/objwire/objwire.toml", "/etc/objwire/objwire.toml"}};
    const auto chosen = m.choose();
    ASSERT_TRUE(chosen);
    EXPECT_EQ(chosen->path, "/home/ann/.config/objwire/objwire.toml");
    EXPECT_EQ(chosen->describe(),
              "/home/ann/.config/objwire/objwire.toml (the first found of "
              "/home/ann/.config/objwire/objwire.toml, /etc/objwire/objwire.toml)");
}

TEST(ClientFile, XdgConfigHomeReplacesDotConfig) {
    const fake_machine m{{{"HOME", "/home/ann"}, {"XDG_CONFIG_HOME", "/cfg"}},
                         {"/home/ann/.config/objwire/objwire.toml", "/cfg/objwire/objwire.toml"}};
    const auto chosen = m.choose();
    ASSERT_TRUE(chosen);
    EXPECT_EQ(chosen->path, "/cfg/objwire/objwire.toml");
    // ~/.config is not looked at when XDG_CONFIG_HOME is set.
    EXPECT_EQ(chosen->searched,
              (std::vector<std::string>{"/cfg/objwire/objwire.toml", "/etc/objwire/objwire.toml"}));
}

TEST(ClientFile, ARelativeXdgConfigHomeIsIgnored) {
    const fake_machine m{{{"HOME", "/home/ann"}, {"XDG_CONFIG_HOME", "cfg"}},
                         {"/home/ann/.config/objwire/objwire.toml", "cfg/objwire/objwire.toml"}};
    const auto chosen = m.choose();
    ASSERT_TRUE(chosen);
    EXPECT_EQ(chosen->path, "/home/ann/.config/objwire/objwire.toml");
}

TEST(ClientFile, ObjwireConfigWinsOverTheDefaultPlaces) {
    const fake_machine m{{{"HOME", "/home/ann"}, {"OBJWIRE_CONFIG", "/srv/my.toml"}},
                         {"/home/ann/.config/objwire/objwire.toml", "/srv/my.toml"}};
    const auto chosen = m.choose();
    ASSERT_TRUE(chosen);
    EXPECT_EQ(chosen->path, "/srv/my.toml");
    EXPECT_EQ(chosen->describe(), "/srv/my.toml (named by $OBJWIRE_CONFIG)");
}

TEST(ClientFile, AMissingObjwireConfigIsAnErrorNamingTheVariable) {
    const fake_machine m{{{"HOME", "/home/ann"}, {"OBJWIRE_CONFIG", "/srv/gone.toml"}},
                         {"/etc/objwire/objwire.toml"}};
    const auto chosen = m.choose();
    ASSERT_FALSE(chosen);
    EXPECT_EQ(chosen.error().message.rfind("OBJWIRE_CONFIG=/srv/gone.toml: no such file", 0), 0u)
        << chosen.error().message;
}

TEST(ClientFile, AnEmptyObjwireConfigIsAsIfUnset) {
    const fake_machine m{{{"HOME", "/home/ann"}, {"OBJWIRE_CONFIG", ""}},
                         {"/etc/objwire/objwire.toml"}};
    const auto chosen = m.choose();
    ASSERT_TRUE(chosen);
    EXPECT_EQ(chosen->path, "/etc/objwire/objwire.toml");
}

TEST(ClientFile, TheFlagWinsAndIsNotSearchedFor) {
    const fake_machine m{{{"HOME", "/home/ann"}, {"OBJWIRE_CONFIG", "/srv/gone.toml"}}, {}};
    const auto chosen = m.choose("mine.toml");
    ASSERT_TRUE(chosen);  // the missing file fails when it is read, naming itself
    EXPECT_EQ(chosen->path, "mine.toml");
    EXPECT_EQ(chosen->describe(), "mine.toml (named by -c)");
}

TEST(ClientFile, WithoutHomeOnlyTheSystemFileIsSearched) {
    const fake_machine m{{}, {}};
    const auto chosen = m.choose();
    ASSERT_TRUE(chosen);
    EXPECT_EQ(chosen->searched, (std::vector<std::string>{"/etc/objwire/objwire.toml"}));
}

}  // namespace
}  // namespace objwire::config
