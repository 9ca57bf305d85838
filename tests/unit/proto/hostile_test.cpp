// Decoder inputs that hostile peers send, found by fuzzing and review (docs/SECURITY.md): each
// is refused with its own error and without allocating more than the bytes could fill.
#include <gtest/gtest.h>

#include <vector>

#include "proto/decoder.hpp"
#include "proto/errors.hpp"
#include "proto/wire.hpp"
#include "test_support.hpp"

namespace objwire {
namespace {

using test::append_varint;

using bytes_t = std::vector<std::uint8_t>;

std::error_code decode_bytes(const bytes_t& bytes, decoder_limits limits = {}) {
    stream_decoder dec(limits);
    return dec.decode_payload(bytes, [](message&&) {});
}

// Each level of nested containers used to be checked against the bytes left alone, so every
// level could claim them all again: 63 lists of 1,000,000 in a 1 MB frame made the decoder
// reserve 63 million values (3 GB). The slots a message sizes ahead of their values now fit in
// its bytes together; the claim that does not is refused before anything is reserved.
TEST(Hostile, NestedListCountsTogetherCannotExceedTheMessage) {
    bytes_t p;
    for (int i = 0; i < 63; ++i) {
        p.push_back(wire::tag_list);
        append_varint(p, 1'000'000);
    }
    p.resize(p.size() + 1'000'000, wire::tag_null);
    EXPECT_EQ(decode_bytes(p), proto_errc::truncated);

    // Refused at the second claim, not at the bad byte inside the first list's elements.
    bytes_t q{wire::tag_list};
    append_varint(q, 1000);
    q.push_back(wire::tag_list);
    append_varint(q, 1000);
    q.resize(q.size() + 1000, wire::tag_null);
    q[q.size() - 500] = 0x12;  // a reserved tag
    EXPECT_EQ(decode_bytes(q), proto_errc::truncated);
}

TEST(Hostile, NestedRecordsOfAWideTypeCannotExceedTheMessage) {
    // Type T with 500 fields (names f0 ... f499, literals not kept), inserted in the table
    // (id 1), whose first field is a record of T again, ten deep: 500 slots a level for one
    // byte each, 5,500 in all in about 3,500 bytes.
    bytes_t p{wire::tag_record_new, wire::tag_string_new, 1, 'T'};
    append_varint(p, 500);
    for (int i = 0; i < 500; ++i) {
        const std::string name = "f" + std::to_string(i);
        p.push_back(wire::tag_string);
        p.push_back(static_cast<std::uint8_t>(name.size()));
        p.insert(p.end(), name.begin(), name.end());
    }
    p.insert(p.end(), 10, wire::short_record + 1);
    p.resize(p.size() + 600, wire::tag_null);
    p[p.size() - 300] = 0x12;  // a reserved tag
    EXPECT_EQ(decode_bytes(p), proto_errc::truncated);
}

// An integer change outside a record field is an unknown tag, as docs/PROTOCOL.md says -
// also when the frame ends before its varint (it was `truncated`, found by
// BadInput.UnknownTag sending the lone byte 0x11).
TEST(Hostile, IntegerChangeOutsideARecordFieldIsAnUnknownTag) {
    EXPECT_EQ(decode_bytes({wire::tag_int_delta}), proto_errc::unknown_tag);
    EXPECT_EQ(decode_bytes({wire::tag_list, 1, wire::tag_int_delta}), proto_errc::unknown_tag);
    EXPECT_EQ(decode_bytes({wire::short_delta}), proto_errc::unknown_tag);
}

TEST(Hostile, ValidNestingStillDecodes) {
    // Slots backed by bytes: a list of 2 lists of 2, a record type inside a list.
    bytes_t p{wire::tag_list,  2,
              wire::tag_list,  2,
              wire::tag_null,  wire::tag_true,
              wire::tag_list,  2,
              wire::tag_false, wire::tag_null};
    EXPECT_FALSE(decode_bytes(p));
    bytes_t r{wire::tag_list,
              1,
              wire::tag_record_new,
              wire::tag_string_new,
              1,
              'P',
              2,
              wire::tag_string_new,
              1,
              'x',
              wire::tag_string_new,
              1,
              'y',
              wire::tag_null,
              wire::short_record + 3,
              wire::tag_true,
              wire::tag_false};
    EXPECT_FALSE(decode_bytes(r));
}

}  // namespace
}  // namespace objwire
