// The `events` workload against every check of docs/WORKLOADS.md, and next() against
// next_json() (the JSON is re-derived here from the record with snprintf, independently of the
// generator's own formatting).
#include <openssl/evp.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "client/workloads/workloads.hpp"

namespace {

using objwire::message;
using objwire::record;
using objwire::value;
namespace wl = objwire::workloads;

constexpr std::uint64_t event_count = 1'000'000;

class sha256 {
  public:
    sha256() : ctx_(EVP_MD_CTX_new(), &EVP_MD_CTX_free) {
        EVP_DigestInit_ex(ctx_.get(), EVP_sha256(), nullptr);
    }
    void update(std::string_view data) { EVP_DigestUpdate(ctx_.get(), data.data(), data.size()); }
    std::string hex_digest() {
        std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
        unsigned int size = 0;
        EVP_DigestFinal_ex(ctx_.get(), digest.data(), &size);
        std::string hex;
        for (unsigned int i = 0; i < size; ++i) {
            char buf[3];
            std::snprintf(buf, sizeof buf, "%02x", digest[i]);
            hex += buf;
        }
        return hex;
    }

  private:
    std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx_;
};

const std::string& field_string(const record& r, std::size_t i) {
    return r.fields.at(i).get<std::string>();
}

// The line events.md prescribes, written from the record's fields.
std::string json_of_event(const message& m) {
    const auto& r = m.root.get<record>();
    char latency[64];
    std::snprintf(latency, sizeof latency, "%.3f", r.fields.at(6).get<double>());
    return R"({"$type":"Event","ts":)" + std::to_string(r.fields.at(0).get<std::int64_t>()) +
           R"(,"level":")" + field_string(r, 1) + R"(","host":")" + field_string(r, 2) +
           R"(","service":")" + field_string(r, 3) + R"(","msg":")" + field_string(r, 4) +
           R"(","user":")" + field_string(r, 5) + R"(","latency_ms":)" + latency + "}";
}

TEST(events, full_run_matches_every_published_check) {
    auto records = wl::make("events");
    auto lines = wl::make("events");
    ASSERT_TRUE(records && lines);
    ASSERT_EQ(records->default_count(), event_count);

    sha256 hash;
    std::uint64_t total_bytes = 0;
    std::string chunk;
    std::vector<std::string> first_lines;

    message m;
    std::map<std::string, std::uint64_t> levels;
    std::set<std::string> hosts;
    std::set<std::string> services;
    std::vector<std::uint64_t> users;
    users.reserve(event_count);
    std::uint64_t msg_chars = 0;
    std::int64_t last_ts = 0;

    for (std::uint64_t i = 0; i < event_count; ++i) {
        std::size_t line_start = chunk.size();
        lines->next_json(chunk);
        if (i < 2) first_lines.emplace_back(chunk.substr(line_start));
        chunk += '\n';
        if (chunk.size() >= (1 << 16)) {
            hash.update(chunk);
            total_bytes += chunk.size();
            chunk.clear();
        }

        records->next(m);
        const auto& r = m.root.get<record>();
        ASSERT_EQ(r.type->name, "Event");
        last_ts = r.fields.at(0).get<std::int64_t>();
        ++levels[field_string(r, 1)];
        hosts.insert(field_string(r, 2));
        services.insert(field_string(r, 3));
        msg_chars += field_string(r, 4).size();
        const auto& user = field_string(r, 5);
        ASSERT_EQ(user.size(), 16u);
        std::uint64_t u = 0;
        ASSERT_EQ(std::from_chars(user.data(), user.data() + user.size(), u, 16).ec, std::errc{});
        users.push_back(u);
    }
    hash.update(chunk);
    total_bytes += chunk.size();

    EXPECT_EQ(last_ts, 1'700'000'499'694'026);
    ASSERT_EQ(first_lines.size(), 2u);
    EXPECT_EQ(first_lines[0],
              R"({"$type":"Event","ts":1700000000000000,"level":"DEBUG","host":"host-091",)"
              R"("service":"svc-18","msg":"heartbeat from node 244823f2",)"
              R"("user":"de4431fa3c80db06","latency_ms":124.925})");
    EXPECT_EQ(first_lines[1],
              R"({"$type":"Event","ts":1700000000000090,"level":"DEBUG","host":"host-174",)"
              R"("service":"svc-17","msg":"queue depth 11398 exceeds threshold 21495",)"
              R"("user":"aa47e31c02e78edc","latency_ms":486.130})");
    EXPECT_EQ(total_bytes, 188'638'710u);
    EXPECT_EQ(hash.hex_digest(),
              "e344e700ef382bb1d128de73213f8a02db3f2526e1a3d0567cad71b076bee78f");

    const std::map<std::string, std::uint64_t> expected_levels = {{"INFO", 600'018},
                                                                  {"DEBUG", 149'752},
                                                                  {"WARN", 149'478},
                                                                  {"TRACE", 50'395},
                                                                  {"ERROR", 50'357}};
    EXPECT_EQ(levels, expected_levels);

    EXPECT_EQ(hosts.size(), 200u);
    EXPECT_EQ(*hosts.begin(), "host-000");
    EXPECT_EQ(*hosts.rbegin(), "host-199");
    EXPECT_EQ(services.size(), 30u);
    EXPECT_EQ(*services.begin(), "svc-00");
    EXPECT_EQ(*services.rbegin(), "svc-29");

    std::sort(users.begin(), users.end());
    EXPECT_EQ(std::adjacent_find(users.begin(), users.end()), users.end()) << "a user repeats";

    EXPECT_NEAR(static_cast<double>(msg_chars) / event_count, 40.6, 0.05);
}

TEST(events, next_and_next_json_describe_the_same_events) {
    auto records = wl::make("events");
    auto lines = wl::make("events");
    message m;
    for (int i = 0; i < 1000; ++i) {
        records->next(m);
        std::string line;
        lines->next_json(line);
        ASSERT_EQ(json_of_event(m), line) << "event " << i;
    }
}

// Pins the generator's exact output for the first 10,000 events, both forms: the JSON lines
// and every field of next()'s records (the double by its bits). Computed before the
// generator was optimised; any change to what it produces changes these hashes.
TEST(events, first_10000_events_are_pinned) {
    auto records = wl::make("events");
    auto lines = wl::make("events");
    sha256 json_hash;
    sha256 record_hash;
    std::string line;
    std::string fields;
    message m;
    for (int i = 0; i < 10'000; ++i) {
        line.clear();
        lines->next_json(line);
        line += '\n';
        json_hash.update(line);

        records->next(m);
        const auto& r = m.root.get<record>();
        ASSERT_EQ(r.fields.size(), 7u);
        fields = std::to_string(r.fields[0].get<std::int64_t>());
        for (std::size_t f = 1; f <= 5; ++f)
            fields += '\t' + field_string(r, f);
        std::uint64_t bits = 0;
        double latency = r.fields[6].get<double>();
        std::memcpy(&bits, &latency, sizeof bits);
        fields += '\t' + std::to_string(bits) + '\n';
        record_hash.update(fields);
    }
    EXPECT_EQ(json_hash.hex_digest(),
              "4b10f5f812628f784c18e4818c89af6343a1b11ac2e811d7095d5f0af7d7683e");
    EXPECT_EQ(record_hash.hex_digest(),
              "407608a4b562f7ba74aff42b1f9eb411d33cd5f8bc1d68d02c895fe33c45799f");
}

TEST(events, next_json_appends_without_newline) {
    auto lines = wl::make("events");
    std::string out = "prefix";
    lines->next_json(out);
    EXPECT_EQ(out.rfind("prefix{\"$type\":\"Event\",", 0), 0u);
    EXPECT_EQ(out.back(), '}');
    EXPECT_EQ(out.find('\n'), std::string::npos);
}

TEST(events, seed_is_the_initial_state) {
    auto a = wl::make("events", 42);
    auto b = wl::make("events");
    auto c = wl::make("events", 43);
    std::string la, lb, lc;
    for (int i = 0; i < 100; ++i) {
        a->next_json(la);
        b->next_json(lb);
        c->next_json(lc);
    }
    EXPECT_EQ(la, lb);
    EXPECT_NE(la, lc);
}

TEST(events, next_reuses_the_message_storage) {
    auto records = wl::make("events");
    message m;
    records->next(m);
    auto& r = m.root.get<record>();
    const value* fields = r.fields.data();
    const char* user = field_string(r, 5).data();  // 16 characters: heap-allocated
    auto type = r.type;
    for (int i = 0; i < 1000; ++i) {
        records->next(m);
        ASSERT_EQ(m.root.get<record>().fields.data(), fields);
        ASSERT_EQ(field_string(m.root.get<record>(), 5).data(), user);
        ASSERT_EQ(m.root.get<record>().type, type) << "one shared type descriptor";
    }
    EXPECT_TRUE(m.objects.empty());
}

TEST(events, next_overwrites_a_foreign_message) {
    message m;
    m.root = value(objwire::list{1, "two", 3.0});
    m.objects.emplace_back("stale");
    auto a = wl::make("events");
    auto b = wl::make("events");
    message fresh;
    a->next(m);
    b->next(fresh);
    EXPECT_EQ(m, fresh);
}

// next() writes a message's strings in place when their lengths are the expected ones; any
// other content (other kinds of value, strings of other lengths, a record of another type
// with too many fields) must still come out as the same event.
TEST(events, next_overwrites_fields_of_other_kinds_and_lengths) {
    auto event_type = objwire::make_record_type(
        "Event", {"ts", "level", "host", "service", "msg", "user", "latency_ms"});
    auto wider_type = objwire::make_record_type("Wide", {"a", "b", "c", "d", "e", "f", "g", "h"});
    std::vector<value> odd_fields = {value("not a timestamp"),
                                     value(std::string(40, 'L')),
                                     value(std::int64_t{7}),
                                     value(std::string()),
                                     value(std::string(300, 'm')),
                                     value(2.5),
                                     value("latency"),
                                     value(nullptr)};
    std::vector<value> seven_odd_fields(odd_fields.begin(), odd_fields.begin() + 7);
    auto a = wl::make("events");
    auto b = wl::make("events");
    message fresh;
    for (int i = 0; i < 200; ++i) {
        message m;
        if (i % 2 == 0)
            m.root = value(record{wider_type, odd_fields});
        else
            m.root = value(record{event_type, seven_odd_fields});
        a->next(m);
        b->next(fresh);
        ASSERT_EQ(m, fresh) << "event " << i;
    }
}

}  // namespace
