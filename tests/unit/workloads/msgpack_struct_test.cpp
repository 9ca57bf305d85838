// tests/bench/msgpack_struct.hpp, the msgpack peer's --struct receiver: the events and person
// workloads' records encoded as maps and arrays, decoded and converted, equal the structs made
// from the records themselves; objects of another shape are refused.
#include "tests/bench/msgpack_struct.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "client/workloads/workloads.hpp"
#include "tests/bench/typed_event.hpp"
#include "tests/bench/typed_person.hpp"

namespace objwire::msgpack_wire {
namespace {

// `T` from the one object `encoded` holds, or nothing when it is refused.
template <class T>
std::optional<T> convert(const std::string& encoded, record_form form) {
    const std::vector<std::uint8_t> in(encoded.begin(), encoded.end());
    decoder d;
    std::size_t pos = 0;
    if (d.next(in, pos) != decode_status::done || pos != in.size()) {
        ADD_FAILURE() << "not one whole object";
        return std::nullopt;
    }
    T out;
    if (!to_struct(d, form, out)) return std::nullopt;
    return out;
}

template <class T>
std::optional<T> convert(const value& v, record_form form) {
    std::string out;
    put_value(out, v, form);
    return convert<T>(out, form);
}

template <class T>
void expect_same(const T& got, const T& want) {
    boost::mp11::mp_for_each<struct_fields<T>>(
        [&](auto field) { EXPECT_EQ(got.*field.pointer, want.*field.pointer) << field.name; });
}

// Every record of `workload` through encode -> decode -> struct in both forms equals
// from_record's struct of it; a map in another key order converts alike.
template <class T, class FromRecord>
void round_trips(std::string_view workload, FromRecord from_record) {
    auto w = workloads::make(workload);
    message m;
    for (int i = 0; i < 1000; ++i) {
        w->next(m);
        const T want = from_record(m);
        for (auto form : {record_form::map, record_form::array}) {
            const auto got = convert<T>(m.root, form);
            ASSERT_TRUE(got) << workload << " record " << i;
            expect_same(*got, want);
        }
        const auto& r = m.root.get<record>();
        map reversed;
        for (std::size_t f = r.fields.size(); f-- > 0;)
            reversed.emplace_back(r.type->fields[f], r.fields[f]);
        const auto got = convert<T>(value(reversed), record_form::map);
        ASSERT_TRUE(got) << workload << " record " << i << ", keys reversed";
        expect_same(*got, want);
    }
}

TEST(MsgpackStruct, EventsRecordsConvertByNameAndByPosition) {
    round_trips<typed_events::Event>("events", typed_events::from_record);
}

TEST(MsgpackStruct, PersonRecordsConvertByNameAndByPosition) {
    round_trips<typed_person::Person>("person", typed_person::from_record);
}

using typed_person::Person;

TEST(MsgpackStruct, MapsWithoutEveryFieldOnceAreRefused) {
    EXPECT_TRUE(convert<Person>(value(map{{"firstName", "a"}, {"surname", "b"}, {"age", 1}}),
                                record_form::map));
    const std::vector<map> wrong = {
        {{"firstName", "a"}, {"surname", "b"}},                            // one missing
        {{"firstName", "a"}, {"surname", "b"}, {"age", 1}, {"extra", 2}},  // one more
        {{"firstName", "a"}, {"firstName", "b"}, {"age", 1}},              // one twice
        {{"firstName", "a"}, {"Surname", "b"}, {"age", 1}},                // not a field
        {{"firstName", "a"}, {"surname", "b"}, {"age", "1"}},              // a str for an int
        {{"firstName", 7}, {"surname", "b"}, {"age", 1}},                  // an int for a str
        {{"firstName", "a"}, {"surname", nullptr}, {"age", 1}},            // nil for a str
        {{"firstName", "a"}, {"surname", "b"}, {"age", 1.0}},              // float for an int
    };
    for (std::size_t i = 0; i < wrong.size(); ++i)
        EXPECT_FALSE(convert<Person>(value(wrong[i]), record_form::map)) << i;
}

TEST(MsgpackStruct, ArraysOfAnotherLengthOrKindAreRefused) {
    EXPECT_TRUE(convert<Person>(value(list{"a", "b", 1}), record_form::array));
    const std::vector<list> wrong = {
        {"a", "b"}, {"a", "b", 1, 2}, {"a", 1, "b"}, {list{"a"}, "b", 1}, {}};
    for (std::size_t i = 0; i < wrong.size(); ++i)
        EXPECT_FALSE(convert<Person>(value(wrong[i]), record_form::array)) << i;
}

TEST(MsgpackStruct, TheFormDecidesBetweenMapAndArray) {
    const value as_map = map{{"firstName", "a"}, {"surname", "b"}, {"age", 1}};
    const value as_array = list{"a", "b", 1};
    std::string map_bytes, array_bytes;
    put_value(map_bytes, as_map, record_form::map);
    put_value(array_bytes, as_array, record_form::map);
    EXPECT_FALSE(convert<Person>(map_bytes, record_form::array));
    EXPECT_FALSE(convert<Person>(array_bytes, record_form::map));
    EXPECT_FALSE(convert<Person>(value("a"), record_form::array));
}

TEST(MsgpackStruct, MapKeysMustBeStrings) {
    std::string in;
    put_map_header(in, 3);
    put_int(in, 1);  // an integer key where "firstName" goes
    put_str(in, "a");
    put_str(in, "surname");
    put_str(in, "b");
    put_str(in, "age");
    put_int(in, 1);
    EXPECT_FALSE(convert<Person>(in, record_form::map));
}

TEST(MsgpackStruct, IntegersConvertWhileTheyFitInt64) {
    const std::int64_t min = std::numeric_limits<std::int64_t>::min();
    const std::int64_t max = std::numeric_limits<std::int64_t>::max();
    for (std::int64_t age : {min, std::int64_t{-1}, std::int64_t{0}, max}) {
        const auto got = convert<Person>(value(list{"a", "b", age}), record_form::array);
        ASSERT_TRUE(got) << age;
        EXPECT_EQ(got->age, age);
    }
    std::string in;
    put_array_header(in, 3);
    put_str(in, "a");
    put_str(in, "b");
    put_uint(in, std::uint64_t{1} << 63);  // uint64 one past int64's maximum
    EXPECT_FALSE(convert<Person>(in, record_form::array));
}

TEST(MsgpackStruct, TheCheckSumsLengthsIntegersAndDoubleBits) {
    EXPECT_EQ(struct_check(Person{"Heinz", "Kabutz", 42}), 5u + 6u + 42u);
    typed_events::Event e{-3, "INFO", "host-001", "svc-01", "", "u", 1.5};
    EXPECT_EQ(struct_check(e), static_cast<std::uint64_t>(-3) + 4 + 8 + 6 + 0 + 1 +
                                   std::bit_cast<std::uint64_t>(1.5));
}

}  // namespace
}  // namespace objwire::msgpack_wire
