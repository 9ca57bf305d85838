// objwire::config: the example files, defaults, the schema's description of itself and
// to_toml round trips.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <fstream>
#include <map>
#include <sstream>

#include "config/settings.hpp"

namespace cfg = objwire::config;

namespace {

const std::filesystem::path config_dir = OBJWIRE_CONFIG_DIR;

std::string read_file(const std::filesystem::path& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' '))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\r'))
        s.remove_suffix(1);
    return s;
}

bool is_key_name(std::string_view s) {
    return !s.empty() && std::all_of(s.begin(), s.end(),
                                     [](char c) { return (c >= 'a' && c <= 'z') || c == '_'; });
}

// One uncommented `key = value  # comment` line of a TOML file.
struct assignment {
    std::string value;    // "64", "\"16MiB\""
    std::string comment;  // "default", "" when none
};

// "section.key" -> every uncommented assignment of a TOML file (string values without '#').
std::map<std::string, assignment> assignments(const std::string& text) {
    std::map<std::string, assignment> out;
    std::istringstream in(text);
    std::string line;
    std::string section;
    while (std::getline(in, line)) {
        const std::string_view l = trim(line);
        if (l.size() > 2 && l.front() == '[' && l.back() == ']') {
            section = std::string(l.substr(1, l.size() - 2));
            continue;
        }
        const auto equals = l.find(" = ");
        if (equals == std::string_view::npos || !is_key_name(l.substr(0, equals))) continue;
        std::string_view value = l.substr(equals + 3);
        std::string_view comment;
        if (const auto hash = value.find('#'); hash != std::string_view::npos) {
            comment = trim(value.substr(hash + 1));
            value = trim(value.substr(0, hash));
        }
        out[section + "." + std::string(l.substr(0, equals))] = {std::string(value),
                                                                 std::string(comment)};
    }
    return out;
}

template <class S>
std::string message_of(const cfg::outcome<S>& o) {
    return o ? std::string("(no error)") : o.error().message;
}

}  // namespace

// The file the package installs as /etc/objwire/objwired.toml: the defaults, but the data
// directory is the unit's state directory (the unit passes no --data-dir).
constexpr std::string_view package_data_dir = "/var/lib/objwire";

TEST(config_example, daemon_file_loads_and_equals_defaults_but_the_data_dir) {
    const auto loaded = cfg::load_daemon_file(config_dir / "objwired.toml");
    ASSERT_TRUE(loaded) << message_of(loaded);
    cfg::daemon_settings want;
    want.data_dir = package_data_dir;
    EXPECT_EQ(*loaded, want);
}

TEST(config_example, client_file_loads_and_equals_defaults) {
    const auto loaded = cfg::load_client_file(config_dir / "objwire.toml");
    ASSERT_TRUE(loaded) << message_of(loaded);
    EXPECT_EQ(*loaded, cfg::client_settings{});
}

// Every key is present, uncommented, with its default text; and nothing else is.
TEST(config_example, daemon_file_sets_every_key_to_its_default) {
    const auto set = assignments(read_file(config_dir / "objwired.toml"));
    const auto keys = cfg::daemon_keys();
    EXPECT_EQ(set.size(), keys.size());
    for (const auto& key : keys) {
        ASSERT_TRUE(set.contains(key.name)) << key.name << " missing from objwired.toml";
        if (key.name == "server.data_dir") {
            EXPECT_EQ(set.at(key.name).value, "\"" + std::string(package_data_dir) + "\"");
            continue;
        }
        EXPECT_EQ(set.at(key.name).value, key.default_text) << key.name;
    }
}

TEST(config_example, client_file_sets_every_key_to_its_default) {
    const auto set = assignments(read_file(config_dir / "objwire.toml"));
    const auto keys = cfg::client_keys();
    EXPECT_EQ(set.size(), keys.size());
    for (const auto& key : keys) {
        ASSERT_TRUE(set.contains(key.name)) << key.name << " missing from objwire.toml";
        EXPECT_EQ(set.at(key.name).value, key.default_text) << key.name;
    }
}

// Each key's documented allowed range appears in the example's comments, so the two cannot
// drift apart silently.
TEST(config_example, files_document_each_allowed_range) {
    const auto daemon_text = read_file(config_dir / "objwired.toml");
    for (const auto& key : cfg::daemon_keys()) {
        if (key.kind == "int" || key.kind == "size" || key.kind == "duration") {
            EXPECT_NE(daemon_text.find(key.allowed), std::string::npos) << key.name;
        }
    }
    const auto client_text = read_file(config_dir / "objwire.toml");
    for (const auto& key : cfg::client_keys()) {
        if (key.kind == "int" || key.kind == "size" || key.kind == "duration") {
            EXPECT_NE(client_text.find(key.allowed), std::string::npos) << key.name;
        }
    }
}

TEST(config_defaults, empty_file_gives_defaults) {
    const auto d = cfg::parse_daemon_toml("", "empty.toml");
    ASSERT_TRUE(d) << message_of(d);
    EXPECT_EQ(*d, cfg::daemon_settings{});
    const auto c = cfg::parse_client_toml("# nothing\n", "empty.toml");
    ASSERT_TRUE(c) << message_of(c);
    EXPECT_EQ(*c, cfg::client_settings{});
}

TEST(config_defaults, match_the_spec) {
    const cfg::daemon_settings d;
    EXPECT_EQ(d.listen_host, "127.0.0.1");
    EXPECT_EQ(d.listen_port, 7878);
    EXPECT_EQ(d.readers_shared_bytes, 8u << 20);
    EXPECT_EQ(d.max_frame_bytes, 16u * 1024 * 1024);
    EXPECT_EQ(d.table_budget, 4u * 1024 * 1024);
    EXPECT_EQ(d.read_buffer, 256u * 1024);
    EXPECT_EQ(d.shutdown_grace, std::chrono::milliseconds(5000));
    const cfg::client_settings c;
    EXPECT_EQ(c.batch_max_bytes, 64u * 1024);
    EXPECT_EQ(c.batch_linger, std::chrono::microseconds(5000));
    EXPECT_EQ(c.max_in_flight, 8u * 1024 * 1024);
}

// The schema's default texts are what the struct initializers hold.
TEST(config_schema, default_texts_match_struct_defaults) {
    const auto daemon_set = assignments(cfg::to_toml(cfg::daemon_settings{}));
    for (const auto& key : cfg::daemon_keys()) {
        ASSERT_TRUE(daemon_set.contains(key.name)) << key.name;
        EXPECT_EQ(daemon_set.at(key.name).value, key.default_text) << key.name;
    }
    const auto client_set = assignments(cfg::to_toml(cfg::client_settings{}));
    for (const auto& key : cfg::client_keys()) {
        ASSERT_TRUE(client_set.contains(key.name)) << key.name;
        EXPECT_EQ(client_set.at(key.name).value, key.default_text) << key.name;
    }
}

// The schema's description of one key, by name; a test failure when there is none.
template <class Keys>
cfg::key_info find_key(const Keys& keys, std::string_view name) {
    for (const auto& k : keys) {
        if (k.name == name) return k;
    }
    ADD_FAILURE() << "no key " << name;
    return cfg::key_info{};
}

TEST(config_schema, describes_keys) {
    const auto keys = cfg::daemon_keys();
    // 45 + journal.fsync_bytes + compression.accept + nats.compression* + limits.max_stored_ratio
    // + limits.sender_stored_quota + limits.max_pending_hellos(_per_address)
    // + limits.max_stored_wire_ratio + limits.max_hops + auth.users_file
    // + metrics.bearer_token_file + limits.max_reader_starts(_per_address)
    // + limits.readers_shared_bytes + limits.shed_idle_after
    ASSERT_EQ(keys.size(), 62u);
    const auto find = [&](std::string_view name) { return find_key(keys, name); };
    EXPECT_EQ(find("limits.shed_idle_after").env_var, "OBJWIRE_LIMITS_SHED_IDLE_AFTER");
    EXPECT_EQ(find("server.listen").env_var, "OBJWIRE_SERVER_LISTEN");
    EXPECT_EQ(find("server.listen").kind, "host_port");
    EXPECT_EQ(find("limits.max_depth").allowed, "1..10000");
    EXPECT_EQ(find("limits.max_frame_bytes").allowed, "1KiB..1GiB");
    EXPECT_EQ(find("limits.table_budget").allowed, "0..1GiB");
    EXPECT_EQ(find("limits.max_stored_ratio").allowed, "0..1000000");
    EXPECT_EQ(find("limits.max_stored_wire_ratio").allowed, "0..1000000");
    EXPECT_EQ(find("limits.max_connections_per_address").allowed, "0..100000");
    EXPECT_EQ(find("limits.max_pending_hellos").allowed, "1..100000");
    EXPECT_EQ(find("limits.max_pending_hellos_per_address").allowed, "0..100000");
    EXPECT_EQ(find("limits.max_reader_starts_per_address").allowed, "0..100000");
    EXPECT_EQ(find("limits.sender_stored_quota").allowed, "0..1024TiB");
    EXPECT_EQ(find("limits.readers_shared_bytes").allowed, "256KiB..4GiB");
    EXPECT_EQ(find("server.log_level").allowed, "trace|debug|info|warn|error|critical|off");
    EXPECT_EQ(find("server.log_level").kind, "enum");
    EXPECT_FALSE(find("limits.table_budget").doc.empty());
    EXPECT_EQ(find("sink.kind").allowed, "journal|jsonl|nats|forward");
    EXPECT_EQ(find("journal.fsync").allowed, "always|interval|never");
    EXPECT_EQ(find("journal.fsync_interval").allowed, "1ms..1m");
    EXPECT_EQ(find("journal.fsync_bytes").allowed, "64KiB..16GiB");
    EXPECT_EQ(find("journal.segment_bytes").allowed, "64KiB..16GiB");
    EXPECT_EQ(find("journal.retention_bytes").allowed, "0..1024TiB");
    EXPECT_EQ(find("journal.retention_age").allowed, "0..87600h");
    EXPECT_EQ(find("journal.fsync").env_var, "OBJWIRE_JOURNAL_FSYNC");

    const auto client = cfg::client_keys();
    // 26 + resume.max_replay_bytes, lazy.fields/min_bytes/codec, read.max_block_bytes/
    // max_block_objects/max_decoded_bytes, flow.max_async_sends
    ASSERT_EQ(client.size(), 34u);
    EXPECT_EQ(find_key(client, "flow.max_async_sends").allowed, "0..1000000000");
    const auto find_client = [&](std::string_view name) { return find_key(client, name); };
    EXPECT_EQ(find_client("batch.max_bytes").env_var, "OBJWIRE_BATCH_MAX_BYTES");
    EXPECT_EQ(find_client("batch.linger").allowed, "0..10s");
}

TEST(config_to_toml, defaults_round_trip) {
    const auto d = cfg::parse_daemon_toml(cfg::to_toml(cfg::daemon_settings{}), "printed");
    ASSERT_TRUE(d) << message_of(d);
    EXPECT_EQ(*d, cfg::daemon_settings{});
    const auto c = cfg::parse_client_toml(cfg::to_toml(cfg::client_settings{}), "printed");
    ASSERT_TRUE(c) << message_of(c);
    EXPECT_EQ(*c, cfg::client_settings{});
}

TEST(config_to_toml, changed_values_round_trip) {
    cfg::daemon_settings d;
    d.listen_host = "::1";
    d.listen_port = 0;
    d.data_dir = "/var/lib/objwire \"quoted\"";
    d.log_level = "debug";
    d.max_connections = 3;
    d.shutdown_grace = std::chrono::milliseconds(1500);
    d.max_frame_bytes = 1000000;  // not a multiple of KiB: printed as an integer
    d.max_depth = 10000;
    d.max_string_bytes = 1;
    d.max_elements = 7;
    d.table_budget = 0;
    d.read_buffer = 64 * 1024 * 1024;
    d.sink_file = "out.jsonl";
    d.sink_kind = "jsonl";
    d.journal_fsync = "always";
    d.journal_fsync_interval = std::chrono::milliseconds(2500);
    d.journal_segment_bytes = 100 * 1024;
    d.journal_retention_bytes = 3ull * 1024 * 1024 * 1024 * 1024;
    d.journal_retention_age = std::chrono::seconds(7 * 24 * 3600);
    const auto text = cfg::to_toml(d);
    EXPECT_NE(text.find("retention_age = \"168h\""), std::string::npos) << text;
    EXPECT_NE(text.find("retention_bytes = \"3TiB\""), std::string::npos) << text;
    EXPECT_NE(text.find("listen = \"[::1]:0\""), std::string::npos) << text;
    EXPECT_NE(text.find("shutdown_grace = \"1500ms\""), std::string::npos) << text;
    EXPECT_NE(text.find("max_frame_bytes = \"1MB\""), std::string::npos) << text;
    EXPECT_NE(text.find("# set"), std::string::npos) << text;
    const auto back = cfg::parse_daemon_toml(text, "printed");
    ASSERT_TRUE(back) << message_of(back) << "\n" << text;
    EXPECT_EQ(*back, d);

    cfg::client_settings c;
    c.to_host = "db1.example.com";
    c.to_port = 9000;
    c.connect_timeout = std::chrono::milliseconds(60000);
    c.batch_max_bytes = 16 * 1024 * 1024;
    c.batch_linger = std::chrono::microseconds(250);
    c.max_in_flight = 1024 * 1024 * 1024;
    c.max_frame_bytes = 2048;
    c.max_depth = 1;
    const auto client_text = cfg::to_toml(c);
    EXPECT_NE(client_text.find("linger = \"250us\""), std::string::npos) << client_text;
    EXPECT_NE(client_text.find("connect_timeout = \"1m\""), std::string::npos) << client_text;
    const auto client_back = cfg::parse_client_toml(client_text, "printed");
    ASSERT_TRUE(client_back) << message_of(client_back) << "\n" << client_text;
    EXPECT_EQ(*client_back, c);
}

TEST(config_to_toml, one_line_per_key_with_origin) {
    const auto text = cfg::to_toml(cfg::daemon_settings{});
    EXPECT_NE(text.find("[server]\n"), std::string::npos);
    EXPECT_NE(text.find("[limits]\n"), std::string::npos);
    EXPECT_NE(text.find("[sink]\n"), std::string::npos);
    EXPECT_EQ(text.find("# set"), std::string::npos);
    EXPECT_EQ(assignments(text).size(), cfg::daemon_keys().size());
    const auto set = assignments(text);
    EXPECT_EQ(set.at("limits.max_depth").value, "64");
    EXPECT_EQ(set.at("limits.max_depth").comment, "default");
}

TEST(config_to_toml, layers_name_each_values_origin) {
    cfg::client_settings after_file;
    after_file.max_depth = 10;
    after_file.batch_linger = std::chrono::microseconds(1000);
    cfg::client_settings after_env = after_file;
    after_env.max_depth = 20;
    after_env.to_port = 9000;
    cfg::client_settings after_flags = after_env;
    after_flags.to_port = 9001;
    const std::array<cfg::settings_layer<cfg::client_settings>, 3> layers{{
        {"file", after_file},
        {"env", after_env},
        {"flag", after_flags},
    }};
    const auto text = cfg::to_toml(after_flags, layers);
    const auto set = assignments(text);
    EXPECT_EQ(set.at("batch.linger").value, "\"1ms\"");
    EXPECT_EQ(set.at("batch.linger").comment, "file") << text;
    EXPECT_EQ(set.at("limits.max_depth").value, "20");
    EXPECT_EQ(set.at("limits.max_depth").comment, "env") << text;
    EXPECT_EQ(set.at("client.to").value, "\"127.0.0.1:9001\"");
    EXPECT_EQ(set.at("client.to").comment, "flag") << text;
    EXPECT_EQ(set.at("batch.max_bytes").value, "\"64KiB\"");
    EXPECT_EQ(set.at("batch.max_bytes").comment, "default") << text;
    const auto back = cfg::parse_client_toml(text, "printed");
    ASSERT_TRUE(back) << message_of(back);
    EXPECT_EQ(*back, after_flags);
}

TEST(config_loading, dotted_keys_and_inline_tables) {
    const auto d = cfg::parse_daemon_toml(
        "server.listen = \"0.0.0.0:9000\"\n"
        "limits = { max_depth = 5, table_budget = 0 }\n"
        "[sink]\njsonl_file = \"a.jsonl\"\n",
        "dotted.toml");
    ASSERT_TRUE(d) << message_of(d);
    EXPECT_EQ(d->listen_host, "0.0.0.0");
    EXPECT_EQ(d->listen_port, 9000);
    EXPECT_EQ(d->max_depth, 5u);
    EXPECT_EQ(d->table_budget, 0u);
    EXPECT_EQ(d->sink_file, "a.jsonl");
}

TEST(config_loading, value_forms) {
    const auto d = cfg::parse_daemon_toml(
        "[server]\nlisten = \"localhost:0\"\nshutdown_grace = \"250ms\"\nlog_level = \"off\"\n"
        "[limits]\nmax_frame_bytes = 4096\nmax_string_bytes = \"64KB\"\n"
        "read_buffer = \"1 MiB\"\n",
        "forms.toml");
    ASSERT_TRUE(d) << message_of(d);
    EXPECT_EQ(d->listen_host, "localhost");
    EXPECT_EQ(d->listen_port, 0);
    EXPECT_EQ(d->shutdown_grace, std::chrono::milliseconds(250));
    EXPECT_EQ(d->log_level, "off");
    EXPECT_EQ(d->max_frame_bytes, 4096u);
    EXPECT_EQ(d->max_string_bytes, 64000u);
    EXPECT_EQ(d->read_buffer, 1024u * 1024);

    const auto c = cfg::parse_client_toml(
        "[client]\nto = \"[::1]:7000\"\nconnect_timeout = \"2s\"\n"
        "[batch]\nlinger = \"250us\"\nmax_bytes = \"1MiB\"\n[flow]\nmax_in_flight = \"1GiB\"\n",
        "forms.toml");
    ASSERT_TRUE(c) << message_of(c);
    EXPECT_EQ(c->to_host, "::1");
    EXPECT_EQ(c->to_port, 7000);
    EXPECT_EQ(c->connect_timeout, std::chrono::milliseconds(2000));
    EXPECT_EQ(c->batch_linger, std::chrono::microseconds(250));
    EXPECT_EQ(c->batch_max_bytes, 1024u * 1024);
    EXPECT_EQ(c->max_in_flight, 1024u * 1024 * 1024);
}

TEST(config_loading, journal_keys) {
    const auto d = cfg::parse_daemon_toml(
        "[sink]\nkind = \"jsonl\"\n"
        "[journal]\nfsync = \"always\"\nfsync_interval = \"5ms\"\nsegment_bytes = \"1MiB\"\n"
        "retention_bytes = \"10GiB\"\nretention_age = \"24h\"\n",
        "journal.toml");
    ASSERT_TRUE(d) << message_of(d);
    EXPECT_EQ(d->sink_kind, "jsonl");
    EXPECT_EQ(d->journal_fsync, "always");
    EXPECT_EQ(d->journal_fsync_interval, std::chrono::milliseconds(5));
    EXPECT_EQ(d->journal_segment_bytes, 1024u * 1024);
    EXPECT_EQ(d->journal_retention_bytes, 10ull * 1024 * 1024 * 1024);
    EXPECT_EQ(d->journal_retention_age, std::chrono::hours(24));
    const auto bad = cfg::parse_daemon_toml("[journal]\nfsync = \"sometimes\"\n", "bad.toml");
    ASSERT_FALSE(bad);
    EXPECT_EQ(
        bad.error().message,
        "bad.toml:2:9: 'journal.fsync' = \"sometimes\" is not one of always, interval, never");
    const auto fine = cfg::parse_daemon_toml("[journal]\nretention_age = \"1500ms\"\n", "x.toml");
    ASSERT_FALSE(fine);
    EXPECT_NE(fine.error().message.find("finer than this setting's resolution (1s)"),
              std::string::npos)
        << fine.error().message;
}

TEST(config_loading, compression_and_socket_keys) {
    const auto c = cfg::parse_client_toml(
        "[compression]\npolicy = \"always\"\ncodec = \"lz4\"\nlevel = 9\n"
        "min_frame_bytes = \"4KiB\"\nlink_bandwidth = \"100Mbit\"\n"
        "[socket]\nsend_buffer = \"4MiB\"\nrecv_buffer = \"256KiB\"\nnodelay = false\n",
        "compression.toml");
    ASSERT_TRUE(c) << message_of(c);
    EXPECT_EQ(c->compression_policy, "always");
    EXPECT_EQ(c->compression_codec, "lz4");
    EXPECT_EQ(c->compression_level, 9u);
    EXPECT_EQ(c->compression_min_frame_bytes, 4096u);
    EXPECT_EQ(c->link_bandwidth, "100Mbit");
    EXPECT_EQ(c->send_buffer, 4u * 1024 * 1024);
    EXPECT_EQ(c->recv_buffer, 256u * 1024);
    EXPECT_FALSE(c->nodelay);
    const auto back = cfg::parse_client_toml(cfg::to_toml(*c), "printed");
    ASSERT_TRUE(back) << message_of(back);
    EXPECT_EQ(*back, *c);

    const auto codec = cfg::parse_client_toml("[compression]\ncodec = \"gzip\"\n", "bad.toml");
    ASSERT_FALSE(codec);
    EXPECT_EQ(codec.error().message,
              "bad.toml:2:9: 'compression.codec' = \"gzip\" is not one of zlib, zstd, lz4");
    const auto link =
        cfg::parse_client_toml("[compression]\nlink_bandwidth = \"fast\"\n", "bad.toml");
    ASSERT_FALSE(link);
    EXPECT_NE(link.error().message.find("'compression.link_bandwidth' = \"fast\" must be \"auto\""),
              std::string::npos)
        << link.error().message;
    cfg::client_settings env;
    EXPECT_FALSE(cfg::apply_client_override(env, "compression.link_bandwidth", "1Gbit", "--x"));
    EXPECT_EQ(env.link_bandwidth, "1Gbit");
    EXPECT_TRUE(cfg::apply_client_override(env, "compression.level", "20", "--level"));
}

TEST(config_loading, boundaries_are_inclusive) {
    const auto d = cfg::parse_daemon_toml(
        "[server]\nmax_connections = 100000\nshutdown_grace = \"0ms\"\n"
        "[limits]\nmax_depth = 1\nmax_frame_bytes = \"1KiB\"\ntable_budget = \"1GiB\"\n"
        "read_buffer = \"4KiB\"\n",
        "edges.toml");
    ASSERT_TRUE(d) << message_of(d);
    EXPECT_EQ(d->max_connections, 100000u);
    EXPECT_EQ(d->max_depth, 1u);
    EXPECT_EQ(d->table_budget, 1024u * 1024 * 1024);
}
