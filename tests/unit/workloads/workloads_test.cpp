// The person, graph and blobs workloads: their messages, their determinism, and their JSON lines
// against a plain recursive writer of the message written here (independent of the generator's
// hand-rolled formatting).
#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "client/workloads/workloads.hpp"

namespace {

using objwire::list;
using objwire::message;
using objwire::object_ref;
using objwire::record;
using objwire::value;
namespace wl = objwire::workloads;

// A deliberately naive JSON writer of the kinds the workloads produce (no doubles).
class reference_json {
  public:
    explicit reference_json(const message& m) : m_(m), written_(m.objects.size(), false) {}

    std::string run() {
        write(m_.root);
        return out_;
    }

  private:
    void write(const value& v) {
        switch (v.type()) {
            case value::kind::integer:
                out_ += std::to_string(v.get<std::int64_t>());
                break;
            case value::kind::string:
                write_string(v.get<std::string>());
                break;
            case value::kind::bytes: {
                out_ += R"({"$bytes":")";
                out_ += base64(v.get<objwire::bytes>().data);
                out_ += "\"}";
                break;
            }
            case value::kind::list: {
                out_ += '[';
                const auto& l = v.get<list>();
                for (std::size_t i = 0; i < l.size(); ++i) {
                    if (i > 0) out_ += ',';
                    write(l[i]);
                }
                out_ += ']';
                break;
            }
            case value::kind::record:
                write_record(v.get<record>(), "");
                break;
            case value::kind::object_ref: {
                auto index = v.get<object_ref>().index;
                if (written_.at(index)) {
                    out_ += R"({"$ref":)" + std::to_string(index) + "}";
                } else {
                    written_[index] = true;
                    write_record(m_.objects.at(index).get<record>(),
                                 R"("$id":)" + std::to_string(index) + ",");
                }
                break;
            }
            default:
                ADD_FAILURE() << "unexpected kind " << static_cast<int>(v.type());
        }
    }

    void write_record(const record& r, const std::string& id) {
        out_ += "{" + id + R"("$type":)";
        write_string(r.type->name);
        for (std::size_t i = 0; i < r.fields.size(); ++i) {
            out_ += ',';
            write_string(r.type->fields.at(i));
            out_ += ':';
            write(r.fields[i]);
        }
        out_ += '}';
    }

    void write_string(const std::string& s) {
        out_ += '"';
        for (char c : s) {
            if (c == '\n')
                out_ += "\\n";
            else if (c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20)
                ADD_FAILURE() << "character the workloads never produce: " << int(c);
            else
                out_ += c;
        }
        out_ += '"';
    }

    static std::string base64(const std::vector<std::uint8_t>& data) {
        const char* alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        std::string out;
        std::uint32_t bits = 0;
        int count = 0;
        for (auto byte : data) {
            bits = (bits << 8) | byte;
            count += 8;
            while (count >= 6) {
                count -= 6;
                out += alphabet[(bits >> count) & 63];
            }
        }
        if (count > 0) out += alphabet[(bits << (6 - count)) & 63];
        while (out.size() % 4 != 0)
            out += '=';
        return out;
    }

    const message& m_;
    std::vector<bool> written_;
    std::string out_;
};

std::string json_of(const message& m) {
    return reference_json(m).run();
}

// Messages [0, n) of `name` as messages and as JSON lines, from two generators of one seed.
void expect_next_json_matches_next(std::string_view name, int n) {
    auto records = wl::make(name);
    auto lines = wl::make(name);
    message m;
    for (int i = 0; i < n; ++i) {
        records->next(m);
        std::string line;
        lines->next_json(line);
        ASSERT_EQ(json_of(m), line) << name << " message " << i;
    }
}

const record& root_record(const message& m) {
    return m.root.get<record>();
}

std::int64_t int_field(const record& r, std::size_t i) {
    return r.fields.at(i).get<std::int64_t>();
}

// --- registry ---

TEST(registry, names_and_make) {
    auto all = wl::names();
    ASSERT_EQ(all.size(), 4u);
    EXPECT_EQ(all[0], "person");
    EXPECT_EQ(all[1], "events");
    EXPECT_EQ(all[2], "graph");
    EXPECT_EQ(all[3], "blobs");
    const std::uint64_t counts[] = {1'500'000, 1'000'000, 10'000, 20'000};
    for (std::size_t i = 0; i < all.size(); ++i) {
        auto w = wl::make(all[i]);
        ASSERT_NE(w, nullptr) << all[i];
        EXPECT_EQ(w->name(), all[i]);
        EXPECT_EQ(w->default_count(), counts[i]) << all[i];
    }
    EXPECT_EQ(wl::make("unknown"), nullptr);
    EXPECT_EQ(wl::make(""), nullptr);
    EXPECT_EQ(wl::make("Person"), nullptr);
}

// --- person ---

TEST(person, first_and_last_messages) {
    auto w = wl::make("person");
    message m;
    w->next(m);
    const auto& first = root_record(m);
    EXPECT_EQ(first.type->name, "Person");
    EXPECT_EQ(first.type->fields, (std::vector<std::string>{"firstName", "surname", "age"}));
    EXPECT_EQ(first.fields.at(0).get<std::string>(), "Heinz");
    EXPECT_EQ(first.fields.at(1).get<std::string>(), "Kabutz");
    EXPECT_EQ(int_field(first, 2), 0);
    EXPECT_TRUE(m.objects.empty());

    const value* fields = first.fields.data();
    for (std::uint64_t i = 1; i < w->default_count(); ++i)
        w->next(m);
    EXPECT_EQ(root_record(m).fields.data(), fields) << "storage reused";
    EXPECT_EQ(int_field(root_record(m), 2), 1'499'999);
    EXPECT_EQ(root_record(m).fields.at(0).get<std::string>(), "Heinz");
}

TEST(person, json_lines) {
    auto w = wl::make("person");
    std::string line;
    w->next_json(line);
    EXPECT_EQ(line, R"({"$type":"Person","firstName":"Heinz","surname":"Kabutz","age":0})");
    for (std::uint64_t i = 1; i < 1'499'999; ++i)
        w->next_json(line);
    line.clear();
    w->next_json(line);
    EXPECT_EQ(line, R"({"$type":"Person","firstName":"Heinz","surname":"Kabutz","age":1499999})");
    expect_next_json_matches_next("person", 100);
}

// --- graph ---

void expect_trip_structure(const message& m, std::int64_t id) {
    ASSERT_EQ(m.root, value(object_ref{0}));
    ASSERT_GE(m.objects.size(), 2u);
    ASSERT_LE(m.objects.size(), 101u) << "at most 100 distinct points";

    const auto& trip = m.objects[0].get<record>();
    ASSERT_EQ(trip.type->name, "Trip");
    ASSERT_EQ(trip.type->fields, (std::vector<std::string>{"id", "stops", "back"}));
    EXPECT_EQ(int_field(trip, 0), id);
    EXPECT_EQ(trip.fields.at(2), value(object_ref{0})) << "back refers to the Trip itself";

    const auto& stops = trip.fields.at(1).get<list>();
    ASSERT_EQ(stops.size(), 1000u);
    std::set<std::uint32_t> used;
    for (const auto& stop : stops) {
        const auto* ref = stop.get_if<object_ref>();
        ASSERT_NE(ref, nullptr);
        ASSERT_GE(ref->index, 1u);
        ASSERT_LT(ref->index, m.objects.size());
        used.insert(ref->index);
    }
    EXPECT_EQ(used.size(), m.objects.size() - 1) << "every point is a stop";

    for (std::size_t i = 1; i < m.objects.size(); ++i) {
        const auto& point = m.objects[i].get<record>();
        ASSERT_EQ(point.type->name, "Point");
        ASSERT_EQ(point.type->fields, (std::vector<std::string>{"x", "y"}));
        for (std::size_t f = 0; f < 2; ++f) {
            EXPECT_GE(int_field(point, f), 0);
            EXPECT_LT(int_field(point, f), 10000);
        }
    }
    EXPECT_TRUE(canonical(m) == m) << "message " << id << " is not in canonical order";
}

TEST(graph, structure_of_every_default_message) {
    auto w = wl::make("graph");
    message m;
    std::size_t fewer_than_100 = 0;
    for (std::uint64_t i = 0; i < w->default_count(); ++i) {
        w->next(m);
        if (i < 50 || i % 500 == 0) {
            expect_trip_structure(m, static_cast<std::int64_t>(i));
            if (HasFatalFailure()) return;
        }
        if (m.objects.size() < 101) ++fewer_than_100;
    }
    // 1,000 draws from 100 points miss one with probability ~0.4% per message.
    EXPECT_LT(fewer_than_100, 200u);
}

TEST(graph, deterministic_per_seed) {
    auto a = wl::make("graph", 7);
    auto b = wl::make("graph", 7);
    auto c = wl::make("graph", 8);
    message ma, mb, mc;
    for (int i = 0; i < 20; ++i) {
        a->next(ma);
        b->next(mb);
        c->next(mc);
        ASSERT_EQ(ma, mb) << "message " << i;
        ASSERT_NE(ma.objects, mc.objects) << "message " << i;
    }
    auto d = wl::make("graph");
    auto e = wl::make("graph", 42);
    message md, me;
    d->next(md);
    e->next(me);
    EXPECT_EQ(md, me) << "default seed is 42";
    EXPECT_NE(md, ma);
}

TEST(graph, storage_reused_when_shapes_repeat) {
    auto w = wl::make("graph");
    message m;
    w->next(m);
    const value* objects = m.objects.data();
    const value* stops = m.objects[0].get<record>().fields.at(1).get<list>().data();
    for (int i = 0; i < 20; ++i) {
        w->next(m);
        ASSERT_EQ(m.objects.data(), objects);
        ASSERT_EQ(m.objects[0].get<record>().fields.at(1).get<list>().data(), stops);
    }
}

TEST(graph, json_lines) {
    auto w = wl::make("graph");
    std::string line;
    w->next_json(line);
    EXPECT_EQ(
        line.rfind(R"({"$id":0,"$type":"Trip","id":0,"stops":[{"$id":1,"$type":"Point","x":)", 0),
        0u)
        << line.substr(0, 100);
    EXPECT_TRUE(line.ends_with(R"(],"back":{"$ref":0}})"));
    expect_next_json_matches_next("graph", 50);
}

// --- blobs ---

TEST(blobs, sizes_and_title) {
    auto w = wl::make("blobs");
    message m;
    for (int i = 0; i < 200; ++i) {
        w->next(m);
        const auto& doc = root_record(m);
        ASSERT_EQ(doc.type->name, "Doc");
        ASSERT_EQ(doc.type->fields, (std::vector<std::string>{"id", "title", "body", "thumb"}));
        EXPECT_EQ(int_field(doc, 0), i);
        const auto& title = doc.fields.at(1).get<std::string>();
        std::string prefix = "Document " + std::to_string(i) + ": ";
        EXPECT_EQ(title.rfind(prefix, 0), 0u) << title;
        auto words = std::count(title.begin(), title.end(), ' ') - 1;
        EXPECT_GE(words, 2) << title;
        EXPECT_LE(words, 5) << title;
        EXPECT_EQ(doc.fields.at(2).get<std::string>().size(), 16u * 1024);
        EXPECT_EQ(doc.fields.at(3).get<objwire::bytes>().data.size(), 4u * 1024);
        EXPECT_TRUE(m.objects.empty());
    }
}

TEST(blobs, body_compresses_three_to_four_times) {
    auto w = wl::make("blobs");
    message m;
    std::vector<Bytef> compressed(compressBound(16 * 1024));
    for (int i = 0; i < 50; ++i) {
        w->next(m);
        const auto& body = root_record(m).fields.at(2).get<std::string>();
        uLongf size = compressed.size();
        ASSERT_EQ(compress2(compressed.data(), &size, reinterpret_cast<const Bytef*>(body.data()),
                            body.size(), 6),
                  Z_OK);
        double ratio = static_cast<double>(body.size()) / static_cast<double>(size);
        EXPECT_GT(ratio, 2.5) << "message " << i;
        EXPECT_LT(ratio, 5.0) << "message " << i;

        const auto& thumb = root_record(m).fields.at(3).get<objwire::bytes>().data;
        size = compressed.size();
        ASSERT_EQ(compress2(compressed.data(), &size, thumb.data(), thumb.size(), 6), Z_OK);
        EXPECT_GE(size, thumb.size()) << "thumb is random, incompressible";
    }
}

TEST(blobs, body_looks_like_text) {
    auto w = wl::make("blobs");
    message m;
    w->next(m);
    const auto& body = root_record(m).fields.at(2).get<std::string>();
    EXPECT_TRUE(std::isupper(static_cast<unsigned char>(body[0])));
    EXPECT_GT(std::count(body.begin(), body.end(), '\n'), 10);
    EXPECT_GT(std::count(body.begin(), body.end(), '.'), 100);
    EXPECT_TRUE(std::all_of(body.begin(), body.end(), [](char c) {
        return std::isalpha(static_cast<unsigned char>(c)) || c == ' ' || c == ',' || c == '.' ||
               c == '\n';
    }));
}

TEST(blobs, deterministic_per_seed) {
    auto a = wl::make("blobs", 1);
    auto b = wl::make("blobs", 1);
    auto c = wl::make("blobs", 2);
    message ma, mb, mc;
    for (int i = 0; i < 10; ++i) {
        a->next(ma);
        b->next(mb);
        c->next(mc);
        ASSERT_EQ(ma, mb) << "message " << i;
        ASSERT_NE(root_record(ma).fields.at(2), root_record(mc).fields.at(2));
        ASSERT_NE(root_record(ma).fields.at(3), root_record(mc).fields.at(3));
    }
}

TEST(blobs, storage_reused) {
    auto w = wl::make("blobs");
    message m;
    w->next(m);
    const char* body = root_record(m).fields.at(2).get<std::string>().data();
    const std::uint8_t* thumb = root_record(m).fields.at(3).get<objwire::bytes>().data.data();
    for (int i = 0; i < 10; ++i) {
        w->next(m);
        ASSERT_EQ(root_record(m).fields.at(2).get<std::string>().data(), body);
        ASSERT_EQ(root_record(m).fields.at(3).get<objwire::bytes>().data.data(), thumb);
    }
}

TEST(blobs, json_lines) {
    auto w = wl::make("blobs");
    std::string line;
    w->next_json(line);
    EXPECT_EQ(line.rfind(R"({"$type":"Doc","id":0,"title":"Document 0: )", 0), 0u);
    EXPECT_NE(line.find(R"(","thumb":{"$bytes":")"), std::string::npos);
    EXPECT_TRUE(line.ends_with("==\"}}")) << "4,096 bytes end in one byte of padding group";
    EXPECT_EQ(line.find('\n'), std::string::npos);
    expect_next_json_matches_next("blobs", 20);
}

}  // namespace
