// Typed reading: every field type back from the bytes the typed path wrote, shared objects
// shared and cyclic, a reader struct newer than the data, a changed field type named in the
// error, and a typed read of a file of journal blocks.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include <objwire/typed_reader.hpp>
#include "proto/journal_block.hpp"
#include "typed_support.hpp"

namespace {

enum class side { buy, sell };
BOOST_DESCRIBE_ENUM(side, buy, sell)
enum class venue : std::uint8_t { xnys = 1, xlon = 2 };

struct Leg {
    std::string sym;
    double px = 0;
    bool operator==(const Leg&) const = default;
};
BOOST_DESCRIBE_STRUCT(Leg, (), (sym, px))

struct Node {
    std::int32_t id = 0;
    std::shared_ptr<Node> next;
};
BOOST_DESCRIBE_STRUCT(Node, (), (id, next))

struct Order {
    std::int8_t i8 = 0;
    std::uint16_t u16 = 0;
    std::int64_t i64 = 0;
    std::uint64_t u64 = 0;
    float f = 0;
    double d = 0;
    bool flag = false;
    std::string s;
    std::vector<std::uint8_t> raw;
    std::vector<std::byte> raw2;
    std::vector<std::int32_t> ints;
    std::vector<std::vector<std::string>> nested;
    std::optional<std::string> absent;
    std::optional<std::int64_t> present;
    std::map<std::string, double> prices;
    std::unordered_map<std::string, Leg> by_name;
    side sd = side::buy;
    venue vn = venue::xnys;
    Leg leg;
    std::vector<Leg> legs;
    std::shared_ptr<Leg> shared;
    std::shared_ptr<Leg> again;
    std::shared_ptr<Leg> none;
    std::shared_ptr<Node> ring;
    std::string cache = "default";
    static constexpr std::array<std::string_view, 1> objwire_transient{"cache"};
};
BOOST_DESCRIBE_STRUCT(Order, (),
                      (i8, u16, i64, u64, f, d, flag, s, raw, raw2, ints, nested, absent, present,
                       prices, by_name, sd, vn, leg, legs, shared, again, none, ring, cache))

Order make_order() {
    Order o;
    o.i8 = -100;
    o.u16 = 65535;
    o.i64 = std::numeric_limits<std::int64_t>::min();
    o.u64 = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    o.f = 0.25f;
    o.d = -1e300;
    o.flag = true;
    o.s = "h\xc3\xa9llo";
    o.raw = {0, 255, 7};
    o.raw2 = {std::byte{9}};
    o.ints = {1, -2, 3};
    o.nested = {{"a", "b"}, {}};
    o.present = 0;
    o.prices = {{"x", 1.5}};
    o.by_name = {{"k", Leg{"K", 2}}};
    o.sd = side::sell;
    o.vn = venue::xlon;
    o.leg = {"ACME", 12.5};
    o.legs = {{"A", 1}, {"B", 2}};
    o.shared = std::make_shared<Leg>(Leg{"S", 3});
    o.again = o.shared;
    o.ring = std::make_shared<Node>(Node{1, nullptr});
    o.ring->next = std::make_shared<Node>(Node{2, o.ring});
    o.cache = "not sent";
    return o;
}

template <class T>
objwire::message through_wire(const T& object) {
    objwire::stream_encoder e(objwire::encoder_options{});
    objwire::byte_buffer out;
    EXPECT_FALSE(e.encode(objwire::typed::record_source<T>(object), out));
    auto all = typed_test::decode_all(out);
    EXPECT_EQ(all.size(), 1u);
    return all.empty() ? objwire::message{} : std::move(all[0]);
}

TEST(typed_round_trip, every_field_type_comes_back) {
    Order o = make_order();
    const objwire::message m = through_wire(o);
    EXPECT_EQ(objwire::typed::root_record_name(m), "Order");
    Order r;
    const auto st = objwire::typed::decode(m, r);
    ASSERT_FALSE(st) << st.detail;
    EXPECT_EQ(r.i8, o.i8);
    EXPECT_EQ(r.u16, o.u16);
    EXPECT_EQ(r.i64, o.i64);
    EXPECT_EQ(r.u64, o.u64);
    EXPECT_EQ(r.f, o.f);
    EXPECT_EQ(r.d, o.d);
    EXPECT_EQ(r.flag, o.flag);
    EXPECT_EQ(r.s, o.s);
    EXPECT_EQ(r.raw, o.raw);
    EXPECT_EQ(r.raw2, o.raw2);
    EXPECT_EQ(r.ints, o.ints);
    EXPECT_EQ(r.nested, o.nested);
    EXPECT_FALSE(r.absent.has_value());
    EXPECT_EQ(r.present, std::optional<std::int64_t>(0));
    EXPECT_EQ(r.prices, o.prices);
    EXPECT_EQ(r.by_name, o.by_name);
    EXPECT_EQ(r.sd, side::sell);
    EXPECT_EQ(r.vn, venue::xlon);
    EXPECT_EQ(r.leg, o.leg);
    EXPECT_EQ(r.legs, o.legs);
    ASSERT_TRUE(r.shared);
    EXPECT_EQ(*r.shared, *o.shared);
    EXPECT_EQ(r.shared.get(), r.again.get());  // one object, twice
    EXPECT_FALSE(r.none);
    ASSERT_TRUE(r.ring && r.ring->next);
    EXPECT_EQ(r.ring->next->id, 2);
    EXPECT_EQ(r.ring->next->next.get(), r.ring.get());  // the cycle closes on the same object
    EXPECT_EQ(r.cache, "default");                      // transient: never sent
    // The enum travels by name, the transient field not at all.
    const auto& rec = m.root.get<objwire::record>();
    EXPECT_EQ(rec.type->field_index("cache"), -1);
    EXPECT_EQ(rec.fields[static_cast<std::size_t>(rec.type->field_index("sd"))],
              objwire::value("sell"));
    r.ring->next.reset();
    o.ring->next.reset();
}

// Version 1 of a type, and version 2 with `note` removed and `added` added.
struct ThingV1 {
    std::int64_t id = 0;
    std::string note;
    std::string name;
    static constexpr std::string_view objwire_name = "Thing";
};
BOOST_DESCRIBE_STRUCT(ThingV1, (), (id, note, name))
struct ThingV2 {
    std::string name;
    std::int64_t id = 0;
    double added = 5;
    static constexpr std::string_view objwire_name = "Thing";
};
BOOST_DESCRIBE_STRUCT(ThingV2, (), (name, id, added))
struct ThingRetyped {
    std::string id;
    static constexpr std::string_view objwire_name = "Thing";
};
BOOST_DESCRIBE_STRUCT(ThingRetyped, (), (id))
struct ThingNarrow {
    std::int8_t id = 0;
    static constexpr std::string_view objwire_name = "Thing";
};
BOOST_DESCRIBE_STRUCT(ThingNarrow, (), (id))

TEST(typed_round_trip, a_newer_reader_reads_old_data_by_field_name) {
    const objwire::message m = through_wire(ThingV1{41, "gone", "widget"});
    ThingV2 r;
    r.added = 99;  // decode starts from ThingV2{}: the default, not what was there
    const auto st = objwire::typed::decode(m, r);
    ASSERT_FALSE(st) << st.detail;
    EXPECT_EQ(r.id, 41);
    EXPECT_EQ(r.name, "widget");
    EXPECT_EQ(r.added, 5);
}

TEST(typed_round_trip, a_changed_field_type_is_an_error_naming_type_field_and_offset) {
    const objwire::message m = through_wire(ThingV1{41, "", "widget"});
    ThingRetyped r;
    const auto st = objwire::typed::decode(m, r, 1234);
    EXPECT_EQ(st.code, objwire::typed::typed_errc::wrong_type);
    EXPECT_EQ(st.detail, "Thing.id: expected string, found integer (message at offset 1234)");

    ThingNarrow n;
    const auto big = objwire::typed::decode(through_wire(ThingV1{300, "", ""}), n, 7);
    EXPECT_EQ(big.code, objwire::typed::typed_errc::out_of_range);
    EXPECT_NE(big.detail.find("Thing.id"), std::string::npos) << big.detail;
    EXPECT_NE(big.detail.find("300"), std::string::npos) << big.detail;

    Leg leg;
    const auto other = objwire::typed::decode(m, leg, 1);
    EXPECT_EQ(other.code, objwire::typed::typed_errc::wrong_record);
    EXPECT_NE(other.detail.find("a record Leg, found a record Thing"), std::string::npos)
        << other.detail;
}

struct Tagged {
    side sd = side::buy;
};
BOOST_DESCRIBE_STRUCT(Tagged, (), (sd))
struct TaggedText {
    std::string sd;
    static constexpr std::string_view objwire_name = "Tagged";
};
BOOST_DESCRIBE_STRUCT(TaggedText, (), (sd))

TEST(typed_round_trip, an_unknown_enumerator_is_an_error) {
    Tagged t;
    const auto st = objwire::typed::decode(through_wire(TaggedText{"hold"}), t, 3);
    EXPECT_EQ(st.code, objwire::typed::typed_errc::unknown_enumerator);
    EXPECT_NE(st.detail.find("Tagged.sd: 'hold' names no enumerator"), std::string::npos)
        << st.detail;
}

// A file of journal blocks (what `objwire encode` writes, what a journal segment holds) read
// typed, with each message's offset.
TEST(typed_round_trip, a_block_file_reads_typed) {
    const std::string path = testing::TempDir() + "typed_blocks.owj";
    {
        std::ofstream f(path, std::ios::binary);
        std::uint64_t offset = 100;
        for (int b = 0; b < 3; ++b) {
            objwire::journal_block_writer w("producer");
            for (int i = 0; i < 4; ++i) {
                const ThingV1 t{b * 4 + i, "n", "thing " + std::to_string(i)};
                ASSERT_FALSE(w.add(objwire::typed::to_message(t)));
            }
            auto block = w.finish(1, 1, 0);
            objwire::seal_journal_block(block, offset);
            offset += 4;
            f.write(reinterpret_cast<const char*>(block.data()),
                    static_cast<std::streamsize>(block.size()));
        }
    }
    objwire::client::stored_file file(path);
    ASSERT_FALSE(file.open()) << file.last_error();
    objwire::typed::reader<ThingV2, objwire::client::stored_file> things(file);
    ThingV2 t;
    std::int64_t n = 0;
    while (things.next(t)) {
        EXPECT_EQ(t.id, n);
        EXPECT_EQ(things.offset(), 100u + static_cast<std::uint64_t>(n));
        EXPECT_EQ(things.sender_id(), "producer");
        ++n;
    }
    EXPECT_FALSE(things.error()) << things.last_error();
    EXPECT_EQ(n, 12);
    std::remove(path.c_str());
}

}  // namespace

// A type from a library that cannot be changed. BOOST_DESCRIBE_STRUCT must sit in the type's
// own namespace (Boost.Describe finds it by argument-dependent lookup; at global scope it is
// not found), so the program reopens that namespace in its own source: nothing in the
// library's header changes, and only public members can be named.
namespace thirdparty {
struct Point {
    int x = 0;
    int y = 0;
};
}  // namespace thirdparty
namespace thirdparty {
BOOST_DESCRIBE_STRUCT(Point, (), (x, y))
}  // namespace thirdparty

namespace {

TEST(typed_round_trip, a_third_party_type_described_in_the_programs_source) {
    const thirdparty::Point p{3, -4};
    thirdparty::Point r;
    ASSERT_FALSE(objwire::typed::decode(through_wire(p), r));
    EXPECT_EQ(r.x, 3);
    EXPECT_EQ(r.y, -4);
    EXPECT_EQ(objwire::typed::record_type_of<thirdparty::Point>()->name, "Point");
}

}  // namespace
