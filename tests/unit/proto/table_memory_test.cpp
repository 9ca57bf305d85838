// What a reference table is charged is what it holds in memory (docs/PROTOCOL.md section 5):
// tables filled by the streams a hostile peer would pick - kept lists of nulls, tiny strings,
// types of many fields, kept records and maps - hold no more heap than their accounted bytes,
// and the sender's mirror of each accounts exactly as the receiver does. alloc_probe.cpp
// counts the bytes asked of operator new (the accounting also covers malloc's own header).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../compression/alloc_probe.hpp"
#include "proto/byte_buffer.hpp"
#include "proto/decoder.hpp"
#include "proto/encoder.hpp"
#include "proto/wire.hpp"

namespace objwire {
namespace {

using bytes_t = std::vector<std::uint8_t>;

void put_varint(bytes_t& out, std::uint64_t v) {
    byte_buffer b;
    b.put_varint(v);
    out.insert(out.end(), b.data(), b.data() + b.size());
}

std::string unique_text(std::uint64_t n, std::size_t len) {
    std::string s;
    for (std::size_t i = 0; i < len; ++i, n /= 26)
        s.push_back(static_cast<char>('a' + n % 26));
    return s;
}

// Payloads written from the protocol's tags, as a peer that is not objwire's encoder would.
std::vector<bytes_t> kept_lists_of_nulls(int frames, std::uint64_t nulls) {
    std::vector<bytes_t> out;
    for (int f = 0; f < frames; ++f) {
        bytes_t p{wire::tag_object_keep, wire::tag_list};
        put_varint(p, nulls);
        p.insert(p.end(), nulls, wire::tag_null);
        out.push_back(std::move(p));
    }
    return out;
}

std::vector<bytes_t> tiny_strings(std::uint64_t count, std::size_t len) {
    std::vector<bytes_t> out;
    for (std::uint64_t n = 0; n < count;) {
        bytes_t p{wire::tag_list};
        const std::uint64_t here = std::min<std::uint64_t>(10'000, count - n);
        put_varint(p, here);
        for (std::uint64_t i = 0; i < here; ++i, ++n) {
            p.push_back(wire::tag_string_new);
            put_varint(p, len);
            const auto s = unique_text(n, len);
            p.insert(p.end(), s.begin(), s.end());
        }
        out.push_back(std::move(p));
    }
    return out;
}

// Records of new types of `fields` three-byte field names given as literals, all fields null.
std::vector<bytes_t> many_types(int count, std::uint64_t fields) {
    std::vector<bytes_t> out;
    for (int t = 0; t < count; ++t) {
        bytes_t p{wire::tag_record_new, wire::tag_string, 4};
        const auto name = unique_text(static_cast<std::uint64_t>(t), 4);
        p.insert(p.end(), name.begin(), name.end());
        put_varint(p, fields);
        for (std::uint64_t f = 0; f < fields; ++f) {
            p.insert(p.end(), {wire::tag_string, 3});
            const auto s = unique_text(f, 3);
            p.insert(p.end(), s.begin(), s.end());
        }
        p.insert(p.end(), fields, wire::tag_null);
        out.push_back(std::move(p));
    }
    return out;
}

// Heap the decoder's table holds after checking `payloads` (check mode builds no message, so
// what stays allocated is the table's), and what it accounts.
struct held {
    std::size_t heap = 0;
    std::uint64_t accounted = 0;
};
held fill(const std::vector<bytes_t>& payloads, std::uint64_t budget) {
    decoder_limits limits;
    limits.table_budget = budget;
    limits.max_frame_bytes = 64u << 20;
    const std::size_t before = test::live_bytes();
    stream_decoder dec(limits);
    const std::size_t empty = test::live_bytes();
    for (const auto& p : payloads) {
        std::uint64_t messages = 0;
        EXPECT_FALSE(dec.check_payload(p, messages));
    }
    held h{test::live_bytes() - empty, dec.table().bytes};
    EXPECT_LE(h.accounted, budget);
    EXPECT_GE(empty, before);
    return h;
}

constexpr std::uint64_t budget = 1u << 20;

TEST(TableMemory, KeptListsOfNullsHoldNoMoreThanTheirAccount) {
    // A 20 KB list of nulls is 20,000 decoded values: charged its 20 KB of wire, 48x this.
    const auto h = fill(kept_lists_of_nulls(60, 20'000), budget);
    EXPECT_GT(h.accounted, budget / 2);
    EXPECT_LE(h.heap, h.accounted);
}

TEST(TableMemory, TinyStringsHoldNoMoreThanTheirAccount) {
    for (std::size_t len : {1, 4, 15, 16, 40}) {
        const auto h = fill(tiny_strings(budget / 32, len), budget);
        EXPECT_GT(h.accounted, budget * 9 / 10) << len;
        // Within the 1.25x the daemon's RSS bound allows: the slots reserved for a full table
        // and the free-id queue come on top of the entries.
        EXPECT_LE(h.heap, h.accounted * 5 / 4) << len;
    }
}

TEST(TableMemory, ManyTypesHoldNoMoreThanTheirAccount) {
    const auto h = fill(many_types(200, 500), budget);
    EXPECT_GT(h.accounted, budget / 2);
    EXPECT_LE(h.heap, h.accounted);
}

// Kept records, maps and strings through objwire's own encoder: the sender's mirror is charged
// exactly what the receiver is, and the receiver's heap stays within it.
TEST(TableMemory, KeptValuesAreChargedAlikeOnBothSides) {
    auto type = make_record_type("Kept", {"id", "name", "tags", "attributes", "payload"});
    encoder_options opts;
    opts.peer.table_budget = budget;
    stream_encoder enc(opts);
    std::vector<byte_buffer> payloads(3'000);
    std::vector<std::uint64_t> sender_bytes;
    for (std::uint64_t i = 0; i < payloads.size(); ++i) {
        map attributes;
        for (std::uint64_t k = 0; k < 8; ++k)
            attributes.emplace_back(unique_text(i * 8 + k, 3 + k * 4), value(k));
        list tags;
        for (std::uint64_t k = 0; k < 12; ++k)
            tags.emplace_back(unique_text(i + k, 2 + k * 3));
        message m(value(object_ref{0}),
                  {make_record(type, {value(i), value(unique_text(i, 24)), value(std::move(tags)),
                                      value(std::move(attributes)),
                                      value(bytes{std::vector<std::uint8_t>(100, 7)})})});
        m.shared_keys = {i + 1};
        ASSERT_FALSE(enc.encode(m, payloads[i]));
        sender_bytes.push_back(enc.table().bytes);
    }
    decoder_limits limits;
    limits.table_budget = budget;
    const std::size_t before = test::live_bytes();
    {
        stream_decoder dec(limits);
        for (std::size_t i = 0; i < payloads.size(); ++i) {
            ASSERT_FALSE(dec.decode_payload(payloads[i].span(), [](message&&) {}));
            ASSERT_EQ(dec.table().bytes, sender_bytes[i]) << i;
        }
        EXPECT_GT(dec.table().bytes, budget * 3 / 4);
        // Plus the slots reserved for a full table of the smallest entries (reserved address
        // space: pages never written cost no memory, but operator new counts them).
        const std::uint64_t reserved = (budget / min_entry_cost + 1) * table_entry_overhead;
        EXPECT_LE(test::live_bytes() - before, dec.table().bytes + reserved);
    }
}

}  // namespace
}  // namespace objwire
