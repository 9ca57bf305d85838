// read(to_json(m)) == canonical(m) for many seeded random messages: every kind of value,
// awkward strings and keys, special doubles, shared objects, cycles, dangling and unused
// objects.
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "json_test_support.hpp"

namespace objwire {
namespace {

class random_messages {
  public:
    explicit random_messages(std::uint64_t seed) : rng_(seed) {
        // A few types, some with names that need escaping or the '$' doubling; one made twice
        // so equal types with different pointers occur.
        types_ = {make_record_type("Point", {"x", "y"}),
                  make_record_type("Point", {"x", "y"}),
                  make_record_type("Trip", {"id", "stops", "back"}),
                  make_record_type("$odd \"name\"", {"$type", "$$id", "a\\b", "", "\xc3\xa9"}),
                  make_record_type("Empty", {}),
                  make_record_type("", {"only"})};
    }

    message next() {
        message m;
        std::size_t n_objects = pick(4) == 0 ? 0 : pick(6);
        object_count_ = n_objects;
        for (std::size_t i = 0; i < n_objects; ++i)
            m.objects.push_back(any(3));
        m.root = any(4);
        return m;
    }

  private:
    std::size_t pick(std::size_t n) {
        return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng_);
    }

    value any(int depth) {
        switch (pick(depth > 0 ? 12 : 7)) {
            case 0:
                return nullptr;
            case 1:
                return pick(2) == 1;
            case 2:
                return integer();
            case 3:
                return floating();
            case 4:
                return text();
            case 5:
                return blob();
            case 6:
                return object_ref{static_cast<std::uint32_t>(pick(object_count_ + 2))};
            case 7:
            case 8: {
                list l;
                for (std::size_t i = pick(5); i > 0; --i)
                    l.push_back(any(depth - 1));
                return l;
            }
            case 9: {
                map m;
                for (std::size_t i = pick(5); i > 0; --i)
                    m.emplace_back(text(), any(depth - 1));
                return m;
            }
            default: {
                const auto& t = types_[pick(types_.size())];
                std::vector<value> fields;
                for (std::size_t i = 0; i < t->fields.size(); ++i)
                    fields.push_back(any(depth - 1));
                return make_record(t, std::move(fields));
            }
        }
    }

    std::int64_t integer() {
        static constexpr std::int64_t edges[] = {0,
                                                 -1,
                                                 1,
                                                 std::numeric_limits<std::int64_t>::max(),
                                                 std::numeric_limits<std::int64_t>::min(),
                                                 1'700'000'000'000'000};
        if (pick(3) == 0) return edges[pick(std::size(edges))];
        return static_cast<std::int64_t>(rng_()) >> pick(64);
    }

    double floating() {
        static constexpr double edges[] = {0.0,
                                           -0.0,
                                           1.0,
                                           0.1,
                                           1e300,
                                           -1e-300,
                                           5e-324,
                                           std::numeric_limits<double>::max(),
                                           std::numeric_limits<double>::quiet_NaN(),
                                           std::numeric_limits<double>::infinity(),
                                           -std::numeric_limits<double>::infinity(),
                                           124.925,
                                           1e16};
        switch (pick(3)) {
            case 0:
                return edges[pick(std::size(edges))];
            case 1:
                return static_cast<double>(static_cast<std::int64_t>(rng_() >> 20)) / 1000.0;
            default: {
                std::uint64_t bits = rng_();
                double d;
                std::memcpy(&d, &bits, sizeof d);
                return d;  // NaN and infinities included now and then
            }
        }
    }

    std::string text() {
        static const char* pieces[] = {"a",
                                       "Heinz",
                                       "$",
                                       "$$",
                                       "\"",
                                       "\\",
                                       "\n",
                                       "\t",
                                       "\r",
                                       "\x01",
                                       "<NUL>",
                                       "/",
                                       " ",
                                       "\xc3\xa9",
                                       "\xe2\x82\xac",
                                       "\xf0\x9f\x98\x80",
                                       "\x7f",
                                       "\x1f",
                                       "{\"$ref\":0}",
                                       "0123456789abcdef"};
        std::string s;
        for (std::size_t i = pick(8); i > 0; --i) {
            std::size_t p = pick(std::size(pieces));
            if (p == 10)  // a NUL byte, which a C string cannot hold
                s.push_back('\0');
            else
                s += pieces[p];
        }
        return s;
    }

    bytes blob() {
        bytes b;
        for (std::size_t i = pick(10); i > 0; --i)
            b.data.push_back(static_cast<std::uint8_t>(rng_()));
        return b;
    }

    std::mt19937_64 rng_;
    std::vector<record_type_ptr> types_;
    std::size_t object_count_ = 0;
};

TEST(json_round_trip, random_messages_one_at_a_time) {
    random_messages gen(20240601);
    for (int i = 0; i < 20'000; ++i) {
        message m = gen.next();
        std::string text = to_json(m);
        ASSERT_EQ(text.find('\n'), std::string::npos) << text;  // one line
        jsonl_reader r(text);
        message back;
        ASSERT_TRUE(r.next(back)) << "message " << i << ": " << text << "\n"
                                  << (r.error() ? r.error()->message : "");
        ASSERT_TRUE(test::same_message(back, canonical(m))) << "message " << i << ": " << text;
        // The text of what was read is the same text.
        ASSERT_EQ(to_json(back), text);
    }
}

TEST(json_round_trip, random_messages_as_one_stream) {
    // Many lines through one reader into one reused message.
    random_messages gen(42);
    std::vector<message> sent;
    std::string text;
    for (int i = 0; i < 5'000; ++i) {
        sent.push_back(gen.next());
        append_json(sent.back(), text);
        text += i % 3 == 0 ? "\r\n" : "\n";
    }
    jsonl_reader r(text);
    message back;
    for (std::size_t i = 0; i < sent.size(); ++i) {
        ASSERT_TRUE(r.next(back)) << "line " << i + 1 << ": "
                                  << (r.error() ? r.error()->message : "");
        ASSERT_EQ(r.line(), i + 1);
        ASSERT_TRUE(test::same_message(back, canonical(sent[i]))) << "line " << i + 1;
    }
    EXPECT_FALSE(r.next(back));
    EXPECT_FALSE(r.error());
}

// Every prefix of a line and lines with bytes replaced: the reader returns a message or an
// error inside the line, never crashes or reads out of bounds (run under ASan), and goes on
// with the next line.
TEST(json_round_trip, every_truncation_and_corruption_is_handled) {
    random_messages gen(99);
    std::mt19937_64 rng(3);
    static constexpr char nasty[] = {'"',  '\\', '{',    '}',    '[',    ']', ',', ':', '$',
                                     '\0', '\n', '\x80', '\xff', '\xc3', '0', 'e', '-', ' '};
    auto check = [](const std::string& line) {
        // A corruption may put a '\n' in the line: then it is two lines before [1].
        std::string text = line + "\n[1]\n";
        std::vector<std::size_t> lengths;
        for (std::size_t start = 0, nl; (nl = text.find('\n', start)) != std::string::npos;
             start = nl + 1)
            lengths.push_back(nl - start);
        jsonl_reader r(text);
        message m, last;
        bool any = false;
        for (int guard = 0; guard < 10; ++guard) {
            if (r.next(m)) {
                last = m;
                any = true;
                continue;
            }
            if (!r.error()) break;
            const auto& e = *r.error();
            ASSERT_GE(e.line, 1u);
            ASSERT_LE(e.line, lengths.size());
            EXPECT_GE(e.column, 1u) << line;
            EXPECT_LE(e.column, lengths[e.line - 1] + 1) << line << ": " << e.message;
            EXPECT_FALSE(e.message.empty());
        }
        ASSERT_TRUE(any) << line;
        EXPECT_EQ(r.line(), lengths.size());
        EXPECT_TRUE(test::same_message(last, {list{1}, {}})) << line;
    };
    for (int i = 0; i < 150; ++i) {
        std::string line = to_json(gen.next());
        for (std::size_t cut = 1; cut < line.size(); ++cut)
            check(line.substr(0, cut));
        for (int k = 0; k < 50; ++k) {
            std::string bad = line;
            bad[rng() % bad.size()] = nasty[rng() % sizeof nasty];
            check(bad);
        }
    }
}

TEST(json_round_trip, graph_workload_shape) {
    // Trip{id, stops: 1,000 references to 100 Points, back: itself}.
    auto point = make_record_type("Point", {"x", "y"});
    auto trip = make_record_type("Trip", {"id", "stops", "back"});
    std::mt19937_64 rng(5);
    message m;
    for (int i = 0; i < 100; ++i)
        m.objects.push_back(make_record(point, {static_cast<std::int64_t>(rng() % 1000),
                                                static_cast<double>(rng() % 100000) / 100.0}));
    list stops;
    for (int i = 0; i < 1000; ++i)
        stops.push_back(object_ref{static_cast<std::uint32_t>(rng() % 100)});
    m.objects.push_back(make_record(trip, {1, std::move(stops), object_ref{100}}));
    m.root = object_ref{100};
    std::string text = to_json(m);
    message back = test::read_one(text);
    EXPECT_TRUE(test::same_message(back, canonical(m)));
}

}  // namespace
}  // namespace objwire
