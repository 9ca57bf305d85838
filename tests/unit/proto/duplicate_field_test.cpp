// A record type that names a field twice is refused on the wire (duplicate_field), in build
// and check mode alike, as the JSON reader refuses such a record; unique names are accepted
// however many there are.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "proto/errors.hpp"
#include "test_support.hpp"

namespace objwire {
namespace {

std::vector<std::uint8_t> payload_of(const std::vector<std::string>& fields) {
    std::vector<value> values(fields.size(), value(std::int64_t{1}));
    const message m{make_record(make_record_type("Wide", fields), std::move(values)), {}};
    stream_encoder enc({});
    byte_buffer buf;
    EXPECT_FALSE(enc.encode(m, buf));
    return {buf.data(), buf.data() + buf.size()};
}

std::vector<std::string> names(std::size_t n) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < n; ++i)
        out.push_back("f" + std::to_string(i));
    return out;
}

std::error_code built(const std::vector<std::uint8_t>& payload) {
    stream_decoder dec({});
    return dec.decode_payload(payload, [](message&&) {});
}

std::error_code checked(const std::vector<std::uint8_t>& payload) {
    stream_decoder dec({});
    std::uint64_t messages = 0;
    return dec.check_payload(payload, messages);
}

TEST(DuplicateField, ARecordTypeNamingAFieldTwiceIsRefusedInBothModes) {
    auto few = names(3);
    few.push_back("f1");
    auto many = names(1000);  // past the pairwise comparison: the set
    many.push_back("f999");
    for (const auto& fields : {few, many}) {
        SCOPED_TRACE(fields.size());
        const auto payload = payload_of(fields);
        EXPECT_EQ(built(payload), proto_errc::duplicate_field);
        EXPECT_EQ(checked(payload), proto_errc::duplicate_field);
    }
}

TEST(DuplicateField, UniqueNamesDecode) {
    for (const std::size_t n : {1u, 16u, 17u, 20000u}) {
        SCOPED_TRACE(n);
        const auto payload = payload_of(names(n));
        EXPECT_FALSE(built(payload));
        EXPECT_FALSE(checked(payload));
    }
}

TEST(DuplicateField, FirstDuplicateFieldNamesTheRepeat) {
    EXPECT_EQ(first_duplicate_field({}), 0u);
    EXPECT_EQ(first_duplicate_field({"a", "b"}), 2u);
    EXPECT_EQ(first_duplicate_field({"a", "b", "a"}), 2u);
    auto many = names(100);
    many.insert(many.begin() + 50, "f7");
    EXPECT_EQ(first_duplicate_field(many), 50u);
}

}  // namespace
}  // namespace objwire
