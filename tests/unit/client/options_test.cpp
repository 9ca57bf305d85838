// client::options, the library's typed settings, and the CLI's client_settings are one set of
// keys in two forms: the defaults agree, every field survives the trip both ways, and a field
// out of range is an error naming the field - never a default put in its place.
#include <objwire/options.hpp>

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "config/client_options.hpp"

namespace objwire::client {
namespace {

config::client_settings changed_settings() {
    config::client_settings s;
    s.to_host = "10.1.2.3";
    s.to_port = 9000;
    s.connect_timeout = std::chrono::milliseconds(700);
    s.sender_id = "orders";
    s.relay_path = {"10.0.0.1:7878#0a0b0c0d"};  // a relay's own connection to its next hop
    s.resume_retry_for = std::chrono::milliseconds(0);
    s.batch_max_bytes = 128 * 1024;
    s.batch_linger = std::chrono::microseconds(0);
    s.reset_policy = "every:1000";
    s.table_budget = 1 << 20;
    s.compression_policy = "never";
    s.compression_codec = "lz4";
    s.compression_level = 3;
    s.link_bandwidth = "100Mbit";
    s.nodelay = false;
    s.tls_enabled = true;
    s.tls_server_name = "objwired.example";
    s.transient["Order"] = {"note"};
    s.lazy_fields = {"Doc.body"};
    s.lazy_min_bytes = 4096;
    s.lazy_codec = "zlib";
    return s;
}

TEST(Options, DefaultsAreTheSettingsFilesDefaults) {
    EXPECT_EQ(config::to_options(config::client_settings{}), options{});
    EXPECT_EQ(config::from_options(options{}), config::client_settings{});
    EXPECT_EQ(check_options(options{}), "");
}

TEST(Options, EveryFieldSurvivesTheTripBothWays) {
    const auto s = changed_settings();
    const options o = s;  // the implicit form the CLI and the tests use
    EXPECT_EQ(o.host, "10.1.2.3");
    EXPECT_EQ(o.compression, compression_mode::never);
    EXPECT_EQ(o.codec, codec_id::lz4);
    EXPECT_EQ(o.lazy_codec, codec_id::zlib);
    EXPECT_EQ(o.reset.mode, reset_policy::kind::every_messages);
    EXPECT_EQ(o.reset.every, 1000u);
    EXPECT_EQ(o.link_bits_per_second, 100'000'000u);
    EXPECT_EQ(o.linger.count(), 0);
    auto back = config::from_options(o);
    // The bandwidth comes back as bits per second, the same figure in other words.
    EXPECT_EQ(back.link_bandwidth, "100000000bit");
    back.link_bandwidth = s.link_bandwidth;
    EXPECT_EQ(back, s);
    EXPECT_EQ(check_options(o), "");
}

TEST(Options, AFieldOutOfRangeIsAnErrorNamingItsField) {
    options o;
    o.batch_max_bytes = 1;
    EXPECT_NE(check_options(o).find("options.batch_max_bytes"), std::string::npos)
        << check_options(o);
    o = {};
    o.max_in_flight = 0;
    EXPECT_NE(check_options(o).find("options.max_in_flight"), std::string::npos);
    o = {};
    o.codec = codec_id::none;
    EXPECT_NE(check_options(o).find("options.codec"), std::string::npos);
    o = {};
    o.port = 0;
    EXPECT_NE(check_options(o), "");
}

// A program sets fields, not keys of a file: the error names the field and the value it was
// given, and no position in a text the program never wrote.
TEST(Options, AnErrorNamesTheFieldAsTheProgramSetIt) {
    options o;
    o.batch_max_bytes = 10;
    EXPECT_EQ(check_options(o),
              "options.batch_max_bytes = 10 is out of range (allowed 1KiB..16MiB)");
    o = {};
    o.port = 0;
    EXPECT_EQ(check_options(o), "options.port = 0 is out of range (allowed 1..65535)");
    o = {};
    o.connect_timeout = std::chrono::milliseconds(0);
    EXPECT_EQ(check_options(o).rfind("options.connect_timeout = 0ms is out of range", 0), 0u)
        << check_options(o);
    o = {};
    o.codec = codec_id::none;
    EXPECT_EQ(check_options(o).rfind("options.codec = \"none\" ", 0), 0u) << check_options(o);
    o = {};
    o.host = "";
    EXPECT_EQ(check_options(o).rfind("options.host = \"\" ", 0), 0u) << check_options(o);
    o = {};
    o.transient["Order"] = {""};
    EXPECT_EQ(check_options(o).rfind("options.transient[\"Order\"]", 0), 0u) << check_options(o);
}

// Every key of objwire.toml has its field, so no error can fall back to a key's name.
TEST(Options, EveryKeyHasItsField) {
    for (const auto& key : config::client_keys())
        EXPECT_NE(config::option_field(key.name), "") << key.name;
}

TEST(Options, LoadOptionsReadsASettingsFileOrSaysWhereItIsWrong) {
    const std::string path =
        testing::TempDir() + "options_test_" + std::to_string(::getpid()) + ".toml";
    {
        std::ofstream f(path);
        f << "[batch]\nlinger = \"2ms\"\n[compression]\npolicy = \"always\"\n";
    }
    options o;
    std::string why;
    ASSERT_TRUE(load_options(path, o, why)) << why;
    EXPECT_EQ(o.linger, std::chrono::milliseconds(2));
    EXPECT_EQ(o.compression, compression_mode::always);
    {
        std::ofstream f(path);
        f << "[batch]\nlinger = \"fast\"\n";
    }
    const options before = o;
    EXPECT_FALSE(load_options(path, o, why));
    EXPECT_NE(why.find("batch.linger"), std::string::npos) << why;
    EXPECT_NE(why.find(path), std::string::npos) << why;
    EXPECT_EQ(o, before);
    std::remove(path.c_str());
}

}  // namespace
}  // namespace objwire::client
