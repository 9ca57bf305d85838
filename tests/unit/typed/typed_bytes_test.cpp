// The typed path writes exactly the value path's bytes: the events workload as a described
// struct against the workload's own records, under each table policy, with transient fields
// and in column layout; and the limits refuse the same things.
#include <gtest/gtest.h>

#include <limits>

#include "client/workloads/workloads.hpp"
#include "tests/bench/typed_event.hpp"
#include "typed_support.hpp"

namespace {

using typed_events::Event;
using typed_events::from_record;

// n events encoded from the workload's records on one encoder and from structs on another.
void expect_same_bytes(const objwire::encoder_options& o, int n, bool columns) {
    auto w = objwire::workloads::make("events", 7);
    objwire::stream_encoder values(o), typed(o);
    objwire::byte_buffer a, b;
    objwire::column_sections ca, cb;
    objwire::message m;
    for (int i = 0; i < n; ++i) {
        w->next(m);
        const Event e = from_record(m);
        const objwire::typed::record_source<Event> src(e);
        if (columns) {
            ASSERT_FALSE(values.encode(m, a, ca));
            ASSERT_FALSE(typed.encode(src, b, cb));
        } else {
            ASSERT_FALSE(values.encode(m, a));
            ASSERT_FALSE(typed.encode(src, b));
        }
    }
    ASSERT_EQ(a.size(), b.size());
    EXPECT_TRUE(std::equal(a.span().begin(), a.span().end(), b.span().begin()));
    EXPECT_EQ(ca.bytes(), cb.bytes());
    for (std::size_t s = 0; s < ca.fields().size(); ++s) {
        const auto x = ca.fields()[s].span(), y = cb.fields()[s].span();
        EXPECT_TRUE(std::equal(x.begin(), x.end(), y.begin(), y.end())) << "section " << s;
    }
}

TEST(typed_bytes, events_match_the_value_path_under_every_policy) {
    objwire::encoder_options adaptive;
    expect_same_bytes(adaptive, 20000, false);
    objwire::encoder_options never;
    never.reset.mode = objwire::reset_policy::kind::never;
    expect_same_bytes(never, 3000, false);
    objwire::encoder_options every;
    every.reset = {objwire::reset_policy::kind::every_messages, 100};
    expect_same_bytes(every, 3000, false);
    objwire::encoder_options small_table;  // evictions, and types sent inline when full
    small_table.peer.table_budget = 512;
    expect_same_bytes(small_table, 3000, false);
}

TEST(typed_bytes, transient_config_and_column_layout_match) {
    objwire::encoder_options o;
    o.transient["Event"] = {"user", "msg"};
    expect_same_bytes(o, 3000, false);
    expect_same_bytes(objwire::encoder_options{}, 3000, true);
}

enum class side { buy, sell };
BOOST_DESCRIBE_ENUM(side, buy, sell)
enum class venue : std::uint8_t { xnys = 1, xlon = 2 };  // not described: by value

struct Leg {
    std::string sym;
    double px = 0;
    BOOST_DESCRIBE_CLASS(Leg, (), (sym, px), (), ())
};
struct Node {
    std::int32_t id = 0;
    std::shared_ptr<Node> next;
};
BOOST_DESCRIBE_STRUCT(Node, (), (id, next))

struct Everything {
    std::int8_t i8 = -3;
    std::uint16_t u16 = 60000;
    std::int64_t i64 = -1234567890123;
    std::uint64_t u64 = 42;
    float f = 1.5f;
    bool flag = true;
    std::string s = "text";
    std::string_view sv = "view";
    std::vector<std::uint8_t> raw{1, 2, 3};
    std::vector<std::int32_t> ints{1, -2, 300000};
    std::optional<std::string> maybe;
    std::optional<std::int64_t> present = 7;
    std::map<std::string, double> prices{{"a", 1.0}, {"b", 2.0}};
    std::unordered_map<std::string, std::string> tags{{"k", "v"}};
    side sd = side::sell;
    venue vn = venue::xlon;
    Leg leg{"ACME", 12.25};
    std::vector<Leg> legs{{"X", 1}, {"Y", 2}};
    std::shared_ptr<Leg> shared = std::make_shared<Leg>(Leg{"S", 3});
    std::shared_ptr<Leg> again;  // the same object as `shared`
    std::shared_ptr<Node> ring;
    std::string cache = "never sent";
    static constexpr std::array<std::string_view, 1> objwire_transient{"cache"};
};
BOOST_DESCRIBE_STRUCT(Everything, (),
                      (i8, u16, i64, u64, f, flag, s, sv, raw, ints, maybe, present, prices, tags,
                       sd, vn, leg, legs, shared, again, ring, cache))

Everything make_everything(int i) {
    Everything e;
    e.i64 += i;
    e.s += std::to_string(i % 3);
    e.again = e.shared;
    auto a = std::make_shared<Node>(Node{1, nullptr});
    a->next = std::make_shared<Node>(Node{2, a});  // a cycle: a -> b -> a
    e.ring = a;
    if (i % 2) e.maybe = "here";
    return e;
}

void break_ring(Everything& e) {
    if (e.ring) e.ring->next.reset();
}

TEST(typed_bytes, every_field_type_matches_the_value_path) {
    typed_test::twin_encoders t;
    for (int i = 0; i < 50; ++i) {
        Everything e = make_everything(i);
        t.add(e);
        break_ring(e);
    }
    EXPECT_TRUE(t.same());
}

TEST(typed_bytes, limits_refuse_what_the_value_path_refuses) {
    objwire::encoder_options o;
    o.peer.max_depth = 3;  // Everything's ring needs more
    typed_test::twin_encoders t(o);
    Everything e = make_everything(0);
    const auto a = t.typed.encode(objwire::typed::record_source<Everything>(e), t.typed_out);
    const auto b = t.values.encode(objwire::typed::to_message(e), t.values_out);
    EXPECT_EQ(a, objwire::proto_errc::depth_exceeded);
    EXPECT_EQ(a, b);
    EXPECT_TRUE(t.same());  // rolled back and a reset op on both
    break_ring(e);
}

struct Big {
    std::uint64_t n = 0;
};
BOOST_DESCRIBE_STRUCT(Big, (), (n))

// A uint64 over 2^63-1 never wraps: the typed path refuses it, the value constructor throws.
TEST(typed_bytes, unsigned_over_int64_max_is_refused_not_wrapped) {
    objwire::stream_encoder enc(objwire::encoder_options{});
    objwire::byte_buffer out;
    const Big ok{static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())};
    EXPECT_FALSE(enc.encode(objwire::typed::record_source<Big>(ok), out));
    const Big over{std::uint64_t{1} << 63};
    const std::size_t before = out.size();
    EXPECT_EQ(enc.encode(objwire::typed::record_source<Big>(over), out),
              objwire::proto_errc::integer_out_of_range);
    EXPECT_EQ(out.size(), before + 1);  // only the reset op that keeps the peers in step
    EXPECT_THROW(objwire::value(std::uint64_t{1} << 63), std::out_of_range);
    EXPECT_THROW(objwire::value(std::numeric_limits<std::uint64_t>::max()), std::out_of_range);
    EXPECT_EQ(objwire::value(std::uint64_t{5}), objwire::value(std::int64_t{5}));
    const auto decoded = typed_test::decode_all(out);
    ASSERT_EQ(decoded.size(), 1u);
    EXPECT_EQ(decoded[0].root.get<objwire::record>().fields[0].get<std::int64_t>(),
              std::numeric_limits<std::int64_t>::max());
}

}  // namespace
