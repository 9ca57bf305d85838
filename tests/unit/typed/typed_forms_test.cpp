// Field types beyond the first ones: the standard types built on the wire_form customization
// point or given a form of their own (chrono, containers, pair, tuple, variant, unique_ptr,
// integer-keyed maps, shared_ptr<const T>, char, vector<bool>, u8string), a program's own type, the
// unknown-enumerator policy both ways, several record types in one stream (filter and
// variant) and a refused write that names its field's path.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include <objwire/typed_reader.hpp>
#include "proto/journal_block.hpp"
#include "typed_support.hpp"

// A program's own type sent as an existing wire form (an integer count of cents).
namespace till {
struct money {
    std::int64_t cents = 0;
    bool operator==(const money&) const = default;
};
}  // namespace till

template <>
struct objwire::typed::wire_form<till::money> {
    using wire_type = std::int64_t;
    static wire_type to_wire(const till::money& m) { return m.cents; }
    static bool from_wire(const wire_type& cents, till::money& out) {
        if (cents < 0) return false;  // this shop has no negative prices
        out = till::money{cents};
        return true;
    }
};

namespace {

using namespace std::chrono_literals;
namespace typed = objwire::typed;

enum class colour { red, green };
BOOST_DESCRIBE_ENUM(colour, red, green)

struct Item {
    std::string name;
    till::money price;
    bool operator==(const Item&) const = default;
    bool operator<(const Item& o) const { return name < o.name; }
};
BOOST_DESCRIBE_STRUCT(Item, (), (name, price))

struct Forms {
    std::chrono::milliseconds timeout{0};
    std::chrono::duration<double> seconds{0};
    std::chrono::system_clock::time_point at;
    std::chrono::sys_seconds at_seconds;
    std::array<std::int32_t, 3> triple{};
    std::array<std::uint8_t, 4> digest{};
    std::set<std::string> tags;
    std::multiset<int> counts;
    std::unordered_set<std::int64_t> ids;
    std::deque<Item> queue;
    std::list<double> samples;
    std::unique_ptr<Item> owned;
    std::unique_ptr<Item> none;
    std::pair<std::string, int> pair;
    std::tuple<int, std::string, colour> tuple;
    std::variant<std::monostate, std::int64_t, std::string, Item> pick;
    std::variant<std::monostate, std::int64_t> empty_pick;
    std::map<std::int32_t, std::string> by_id;
    std::unordered_map<std::uint64_t, Item> by_key;
    std::shared_ptr<const Item> frozen;
    std::shared_ptr<const Item> frozen_again;
    std::shared_ptr<Item> same_as_frozen;
    char letter = 0;
    signed char small = 0;
    char32_t rune = 0;
    std::vector<bool> bits;
    till::money total;
    std::optional<std::vector<std::set<int>>> nested;
};
BOOST_DESCRIBE_STRUCT(Forms, (),
                      (timeout, seconds, at, at_seconds, triple, digest, tags, counts, ids, queue,
                       samples, owned, none, pair, tuple, pick, empty_pick, by_id, by_key, frozen,
                       frozen_again, same_as_frozen, letter, small, rune, bits, total, nested))

Forms make_forms() {
    Forms f;
    f.timeout = 1500ms;
    f.seconds = std::chrono::duration<double>(0.25);
    f.at =
        std::chrono::system_clock::time_point(std::chrono::nanoseconds(1'764'000'000'123'456'789));
    f.at_seconds = std::chrono::sys_seconds(std::chrono::seconds(-86'400));
    f.triple = {1, -2, 3};
    f.digest = {0xde, 0xad, 0xbe, 0xef};
    f.tags = {"b", "a"};
    f.counts = {2, 1, 2};
    f.ids = {7, -9};
    f.queue = {Item{"x", {100}}, Item{"y", {250}}};
    f.samples = {0.5, -1};
    f.owned = std::make_unique<Item>(Item{"owned", {1}});
    f.pair = {"p", 4};
    f.tuple = {5, "t", colour::green};
    f.pick = Item{"picked", {3}};
    f.by_id = {{-1, "minus"}, {42, "answer"}};
    f.by_key = {{std::uint64_t{1} << 40, Item{"big", {9}}}};
    auto shared = std::make_shared<Item>(Item{"shared", {7}});
    f.frozen = shared;
    f.frozen_again = shared;
    f.same_as_frozen = shared;
    f.letter = 'q';
    f.small = -5;
    f.rune = U'\u00e9';
    f.bits = {true, false, true, true};
    f.total = {12345};
    f.nested = std::vector<std::set<int>>{{3, 1}, {}};
    return f;
}

template <class T>
objwire::message through_wire(const T& object) {
    objwire::stream_encoder e(objwire::encoder_options{});
    objwire::byte_buffer out;
    EXPECT_FALSE(e.encode(typed::record_source<T>(object), out));
    auto all = typed_test::decode_all(out);
    EXPECT_EQ(all.size(), 1u);
    return all.empty() ? objwire::message{} : std::move(all[0]);
}

const objwire::value& field(const objwire::message& m, std::string_view name) {
    const auto& r = m.root.get<objwire::record>();
    return r.fields.at(static_cast<std::size_t>(r.type->field_index(name)));
}

TEST(typed_forms, every_standard_type_comes_back) {
    const Forms f = make_forms();
    const objwire::message m = through_wire(f);
    Forms r;
    const auto st = typed::decode(m, r);
    ASSERT_FALSE(st) << st.detail;
    EXPECT_EQ(r.timeout, f.timeout);
    EXPECT_EQ(r.seconds, f.seconds);
    EXPECT_EQ(r.at, f.at);
    EXPECT_EQ(r.at_seconds, f.at_seconds);
    EXPECT_EQ(r.triple, f.triple);
    EXPECT_EQ(r.digest, f.digest);
    EXPECT_EQ(r.tags, f.tags);
    EXPECT_EQ(r.counts, f.counts);
    EXPECT_EQ(r.ids, f.ids);
    EXPECT_EQ(r.queue, f.queue);
    EXPECT_EQ(r.samples, f.samples);
    ASSERT_TRUE(r.owned);
    EXPECT_EQ(*r.owned, *f.owned);
    EXPECT_FALSE(r.none);
    EXPECT_EQ(r.pair, f.pair);
    EXPECT_EQ(r.tuple, f.tuple);
    EXPECT_EQ(r.pick, f.pick);
    EXPECT_EQ(r.empty_pick.index(), 0u);
    EXPECT_EQ(r.by_id, f.by_id);
    EXPECT_EQ(r.by_key, f.by_key);
    ASSERT_TRUE(r.frozen);
    EXPECT_EQ(*r.frozen, *f.frozen);
    EXPECT_EQ(r.frozen.get(), r.frozen_again.get());    // one object, still
    EXPECT_EQ(r.frozen.get(), r.same_as_frozen.get());  // const or not, the same object
    EXPECT_EQ(r.letter, 'q');
    EXPECT_EQ(r.small, -5);
    EXPECT_EQ(r.rune, U'\u00e9');
    EXPECT_EQ(r.bits, f.bits);
    EXPECT_EQ(r.total, f.total);
    EXPECT_EQ(r.nested, f.nested);
}

// What the wire holds, as docs/LIBRARY.md's table says.
TEST(typed_forms, the_wire_holds_the_documented_forms) {
    const objwire::message m = through_wire(make_forms());
    EXPECT_EQ(field(m, "timeout"), objwire::value(std::int64_t{1500}));  // ticks of its period
    EXPECT_EQ(field(m, "seconds"), objwire::value(0.25));
    EXPECT_EQ(field(m, "at"), objwire::value(std::int64_t{1'764'000'000'123'456'789}));
    EXPECT_EQ(field(m, "at_seconds"), objwire::value(std::int64_t{-86'400'000'000'000}));
    EXPECT_TRUE(field(m, "digest").get_if<objwire::bytes>());
    EXPECT_EQ(field(m, "pair"), objwire::value(objwire::list{"p", std::int64_t{4}}));
    EXPECT_EQ(field(m, "tags"), objwire::value(objwire::list{"a", "b"}));
    EXPECT_EQ(field(m, "by_id"), objwire::value(objwire::map{{"-1", "minus"}, {"42", "answer"}}));
    EXPECT_TRUE(field(m, "none").is_null());
    EXPECT_EQ(field(m, "letter"), objwire::value(std::int64_t{'q'}));
    EXPECT_EQ(field(m, "total"), objwire::value(std::int64_t{12345}));
    const auto& pick = field(m, "pick").get<objwire::record>();
    EXPECT_EQ(pick.type->name, "variant");
    EXPECT_EQ(pick.fields.at(0), objwire::value(std::int64_t{3}));
    EXPECT_EQ(pick.fields.at(1).get<objwire::record>().type->name, "Item");
}

// The typed path writes what the value path writes for the new types too.
TEST(typed_forms, the_new_types_write_the_value_paths_bytes) {
    typed_test::twin_encoders t;
    for (int i = 0; i < 20; ++i) {
        Forms f = make_forms();
        f.timeout += std::chrono::milliseconds(i);
        if (i % 2) f.pick = std::int64_t{i};
        t.add(f);
    }
    EXPECT_TRUE(t.same());
}

struct Titled {
    std::u8string title;
    std::optional<std::u8string> subtitle;
    std::vector<std::u8string> tags;
};
BOOST_DESCRIBE_STRUCT(Titled, (), (title, subtitle, tags))
struct TitledAsString {
    std::string title;
    std::optional<std::string> subtitle;
    std::vector<std::string> tags;
    static constexpr std::string_view objwire_name = "Titled";
};
BOOST_DESCRIBE_STRUCT(TitledAsString, (), (title, subtitle, tags))

// std::u8string travels as a string: the bytes of the same text in a std::string, back as it
// was, and refused like one when it is not UTF-8.
TEST(typed_forms, a_u8string_is_a_string) {
    const Titled t{u8"caf\u00e9", u8"\u2014", {u8"a", u8""}};
    const objwire::message m = through_wire(t);
    EXPECT_EQ(field(m, "title"), objwire::value("caf\u00e9"));
    EXPECT_EQ(m.root, through_wire(TitledAsString{"caf\u00e9", "\u2014", {"a", ""}}).root);
    Titled back;
    const auto st = typed::decode(m, back);
    ASSERT_FALSE(st) << st.detail;
    // GoogleTest as Debian builds it cannot print a std::u8string: compared as bools.
    EXPECT_TRUE(back.title == t.title);
    EXPECT_TRUE(back.subtitle == t.subtitle);
    EXPECT_TRUE(back.tags == t.tags);

    objwire::stream_encoder e(objwire::encoder_options{});
    objwire::byte_buffer out;
    const Titled bad{std::u8string(1, char8_t{0xff}), std::nullopt, {}};
    typed::record_source<Titled> source(bad);
    EXPECT_EQ(e.encode(source, out), objwire::proto_errc::invalid_utf8);
    EXPECT_EQ(source.refused_at(), "Titled.title");
}

struct Priced {
    till::money price;
};
BOOST_DESCRIBE_STRUCT(Priced, (), (price))
struct Fixed {
    std::array<int, 2> two{};
    std::array<std::uint8_t, 2> bytes{};
    std::map<int, int> by_number;
};
BOOST_DESCRIBE_STRUCT(Fixed, (), (two, bytes, by_number))
struct FixedWritten {
    std::vector<int> two;
    std::vector<std::uint8_t> bytes;
    std::map<std::string, int> by_number;
    static constexpr std::string_view objwire_name = "Fixed";
};
BOOST_DESCRIBE_STRUCT(FixedWritten, (), (two, bytes, by_number))

TEST(typed_forms, values_a_type_cannot_hold_are_errors_naming_the_field) {
    Priced p;
    const auto refused = typed::decode(through_wire(Priced{{-5}}), p, 9);
    EXPECT_EQ(refused.code, typed::typed_errc::refused_value);
    EXPECT_EQ(refused.detail,
              "Priced.price: a value wire_form<money>::from_wire refused (message at offset 9)");

    Fixed f;
    auto st = typed::decode(through_wire(FixedWritten{{1, 2, 3}, {1, 2}, {}}), f);
    EXPECT_EQ(st.code, typed::typed_errc::wrong_type);
    EXPECT_NE(st.detail.find("Fixed.two: expected a list of 2, found a list of 3"),
              std::string::npos)
        << st.detail;
    st = typed::decode(through_wire(FixedWritten{{1, 2}, {1}, {}}), f);
    EXPECT_NE(st.detail.find("Fixed.bytes: expected 2 bytes, found 1"), std::string::npos)
        << st.detail;
    st = typed::decode(through_wire(FixedWritten{{1, 2}, {1, 2}, {{"7x", 1}}}), f);
    EXPECT_NE(st.detail.find("Fixed.by_number[\"7x\"]: expected an integer key"), std::string::npos)
        << st.detail;
    st = typed::decode(through_wire(FixedWritten{{1, 2}, {1, 2}, {{"-7", 1}}}), f);
    ASSERT_FALSE(st) << st.detail;
    EXPECT_EQ(f.by_number.at(-7), 1);
}

// A newer writer's enumerator: an error naming the field and the name, or a fallback.
enum class status { unknown, open, closed };
BOOST_DESCRIBE_ENUM(status, unknown, open, closed)
enum class strict_status { open, closed };
BOOST_DESCRIBE_ENUM(strict_status, open, closed)

struct Ticket {
    status st = status::open;
    strict_status strict = strict_status::open;
};
BOOST_DESCRIBE_STRUCT(Ticket, (), (st, strict))
struct TicketNewer {
    std::string st;
    std::string strict;
    static constexpr std::string_view objwire_name = "Ticket";
};
BOOST_DESCRIBE_STRUCT(TicketNewer, (), (st, strict))

}  // namespace

template <>
struct objwire::typed::enum_traits<status> {
    static constexpr status fallback = status::unknown;
};

namespace {

TEST(typed_forms, an_unknown_enumerator_maps_to_the_types_fallback) {
    Ticket t;
    ASSERT_FALSE(typed::decode(through_wire(TicketNewer{"escalated", "closed"}), t));
    EXPECT_EQ(t.st, status::unknown);
    EXPECT_EQ(t.strict, strict_status::closed);
    ASSERT_FALSE(typed::decode(through_wire(TicketNewer{"closed", "open"}), t));
    EXPECT_EQ(t.st, status::closed);  // a known name is still itself
}

TEST(typed_forms, an_unknown_enumerator_without_fallback_fails_naming_field_and_value) {
    Ticket t;
    t.st = status::closed;
    const auto st = typed::decode(through_wire(TicketNewer{"open", "reopened"}), t, 17);
    EXPECT_EQ(st.code, typed::typed_errc::unknown_enumerator);
    EXPECT_EQ(st.detail,
              "Ticket.strict: 'reopened' names no enumerator of strict_status (message at "
              "offset 17)");
    EXPECT_EQ(t.st, status::closed);  // left as it was
}

// A refused write names the path of the field, through records, lists and maps.
struct Line {
    std::string name;
};
BOOST_DESCRIBE_STRUCT(Line, (), (name))
struct Basket {
    std::vector<Line> items;
    std::map<std::string, std::optional<Line>> by_tag;
    std::tuple<int, std::uint64_t> pair;
    std::variant<std::int64_t, Line> pick;
    static constexpr std::string_view objwire_name = "Order";
};
BOOST_DESCRIBE_STRUCT(Basket, (), (items, by_tag, pair, pick))

TEST(typed_forms, a_refused_write_names_the_field_path) {
    objwire::stream_encoder e(objwire::encoder_options{});
    objwire::byte_buffer out;
    Basket b;
    b.items = {{"a"}, {"b"}, {"c"}, {"bad \xff"}};
    typed::record_source<Basket> source(b);
    EXPECT_EQ(e.encode(source, out), objwire::proto_errc::invalid_utf8);
    EXPECT_EQ(source.refused_at(), "Order.items[3].name");

    b.items.pop_back();
    b.by_tag = {{"ok", Line{"fine"}}, {"tag", Line{"\xc3"}}};
    EXPECT_EQ(e.encode(source, out), objwire::proto_errc::invalid_utf8);
    EXPECT_EQ(source.refused_at(), "Order.by_tag[\"tag\"].name");

    b.by_tag.clear();
    b.pair = {1, std::uint64_t{1} << 63};
    EXPECT_EQ(e.encode(source, out), objwire::proto_errc::integer_out_of_range);
    EXPECT_EQ(source.refused_at(), "Order.pair[1]");

    b.pair = {};
    b.pick = Line{"\xfe"};
    EXPECT_EQ(e.encode(source, out), objwire::proto_errc::invalid_utf8);
    EXPECT_EQ(source.refused_at(), "Order.pick<1>.name");

    b.pick = std::int64_t{1};
    EXPECT_FALSE(e.encode(source, out));
    EXPECT_EQ(source.refused_at(), "");  // not refused: no path
}

// Two record types in one file of journal blocks, read with a filter and as a variant.
struct Quote {
    std::string sym;
    double px = 0;
};
BOOST_DESCRIBE_STRUCT(Quote, (), (sym, px))
struct Fill {
    std::string sym;
    std::int64_t qty = 0;
};
BOOST_DESCRIBE_STRUCT(Fill, (), (sym, qty))

class two_types : public testing::Test {
  protected:
    void SetUp() override {
        // A file of each test's own: ctest runs the cases of this fixture side by side.
        path_ = testing::TempDir() + "typed_two_types_" +
                testing::UnitTest::GetInstance()->current_test_info()->name() + "_" +
                std::to_string(::getpid()) + ".owj";
        std::ofstream f(path_, std::ios::binary);
        objwire::journal_block_writer w("mixed");
        for (int i = 0; i < 10; ++i) {
            // Quote, Quote, Fill, Quote, Quote, Fill, ...: 7 quotes and 3 fills.
            if (i % 3 == 2)
                ASSERT_FALSE(w.add(typed::to_message(Fill{"F" + std::to_string(i), i})));
            else
                ASSERT_FALSE(w.add(typed::to_message(Quote{"Q" + std::to_string(i), i * 0.5})));
        }
        auto block = w.finish(1, 1, 0);
        objwire::seal_journal_block(block, 0);
        f.write(reinterpret_cast<const char*>(block.data()),
                static_cast<std::streamsize>(block.size()));
    }
    void TearDown() override { std::remove(path_.c_str()); }
    std::string path_;
};

TEST_F(two_types, a_filter_reads_one_type_and_skips_the_other) {
    objwire::client::stored_file file(path_);
    ASSERT_FALSE(file.open()) << file.last_error();
    typed::reader<Quote, objwire::client::stored_file> quotes(file, typed::other_records::skip);
    Quote q;
    std::vector<std::string> seen;
    while (quotes.next(q))
        seen.push_back(q.sym);
    EXPECT_FALSE(quotes.error()) << quotes.last_error();
    EXPECT_EQ(seen, (std::vector<std::string>{"Q0", "Q1", "Q3", "Q4", "Q6", "Q7", "Q9"}));
    EXPECT_EQ(quotes.skipped(), 3u);
}

TEST_F(two_types, without_the_filter_another_type_is_an_error) {
    objwire::client::stored_file file(path_);
    ASSERT_FALSE(file.open()) << file.last_error();
    typed::reader<Quote, objwire::client::stored_file> quotes(file);
    Quote q;
    int n = 0;
    while (quotes.next(q))
        ++n;
    EXPECT_EQ(n, 2);
    EXPECT_EQ(quotes.error(), typed::typed_errc::wrong_record);
    EXPECT_NE(quotes.last_error().find("a record Quote, found a record Fill"), std::string::npos)
        << quotes.last_error();
}

TEST_F(two_types, a_variant_reader_hands_back_each_type) {
    objwire::client::stored_file file(path_);
    ASSERT_FALSE(file.open()) << file.last_error();
    typed::variant_reader<objwire::client::stored_file, Quote, Fill> in(file);
    std::variant<Quote, Fill> m;
    std::vector<std::string> quotes;
    std::int64_t filled = 0;
    while (in.next(m)) {
        std::visit(
            [&](const auto& x) {
                if constexpr (std::is_same_v<std::decay_t<decltype(x)>, Quote>)
                    quotes.push_back(x.sym);
                else
                    filled += x.qty;
            },
            m);
    }
    EXPECT_FALSE(in.error()) << in.last_error();
    EXPECT_EQ(quotes.size(), 7u);
    EXPECT_EQ(filled, 2 + 5 + 8);
}

TEST_F(two_types, a_variant_reader_of_one_type_skips_or_fails_on_the_other) {
    objwire::client::stored_file file(path_);
    ASSERT_FALSE(file.open()) << file.last_error();
    typed::variant_reader<objwire::client::stored_file, Fill> strict(file);
    std::variant<Fill> m;
    EXPECT_FALSE(strict.next(m));
    EXPECT_EQ(strict.error(), typed::typed_errc::wrong_record);
    EXPECT_NE(strict.last_error().find("a record of Fill, found a record Quote"), std::string::npos)
        << strict.last_error();

    objwire::client::stored_file again(path_);
    ASSERT_FALSE(again.open()) << again.last_error();
    typed::variant_reader<objwire::client::stored_file, Fill> fills(again,
                                                                    typed::other_records::skip);
    int n = 0;
    while (fills.next(m))
        ++n;
    EXPECT_FALSE(fills.error()) << fills.last_error();
    EXPECT_EQ(n, 3);
    EXPECT_EQ(fills.skipped(), 7u);
}

}  // namespace
