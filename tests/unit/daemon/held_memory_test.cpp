// What a relay's queued messages are charged is what they hold in memory
// (daemon/sinks/held_memory.hpp): batches decoded from the payloads a hostile or an honest peer
// would send - frames of null messages, tiny strings, records sharing a type, maps, nested
// lists - hold no more heap than their accounted bytes, record types are charged once per
// batch, and the session's rules (the charge, the read limit, the frame refusal) hold their
// bounds. alloc_probe.cpp counts the bytes asked of operator new.
#include "daemon/sinks/held_memory.hpp"

#include <gtest/gtest.h>

#include <deque>
#include <string>
#include <vector>

#include "../compression/alloc_probe.hpp"
#include "proto/byte_buffer.hpp"
#include "proto/decoder.hpp"
#include "proto/wire.hpp"

namespace objwire::daemon {
namespace {

using bytes_t = std::vector<std::uint8_t>;

void put_varint(bytes_t& out, std::uint64_t v) {
    byte_buffer b;
    b.put_varint(v);
    out.insert(out.end(), b.data(), b.data() + b.size());
}

void put_text(bytes_t& out, std::uint8_t tag, const std::string& s) {
    out.push_back(tag);
    put_varint(out, s.size());
    out.insert(out.end(), s.begin(), s.end());
}

bytes_t nulls(std::size_t n) {
    return bytes_t(n, wire::tag_null);
}

bytes_t tiny_strings(std::size_t n) {
    bytes_t p;
    for (std::size_t i = 0; i < n; ++i)
        put_text(p, wire::tag_string, std::string(1 + i % 3, 'a'));
    return p;
}

// A Point{x, y} type defined by the first message, then named by its id (0) by the rest.
bytes_t points(std::size_t n) {
    bytes_t p{wire::tag_record_new};
    put_text(p, wire::tag_string, "Point");
    put_varint(p, 2);
    put_text(p, wire::tag_string, "x");
    put_text(p, wire::tag_string, "y");
    p.insert(p.end(), {wire::tag_int, 2, wire::tag_int, 4});
    for (std::size_t i = 1; i < n; ++i)
        p.insert(p.end(), {wire::tag_record, 0, wire::tag_null, wire::tag_int, 6});
    return p;
}

bytes_t maps(std::size_t n) {
    bytes_t p;
    for (std::size_t i = 0; i < n; ++i) {
        p.insert(p.end(), {wire::tag_map, 2});
        put_text(p, wire::tag_string, "k");
        p.push_back(wire::tag_null);
        put_text(p, wire::tag_string, "a longer key than fits inline in a std::string");
        p.push_back(wire::tag_true);
    }
    return p;
}

bytes_t nested_lists(std::size_t n) {
    bytes_t p;
    for (std::size_t i = 0; i < n; ++i)
        p.insert(p.end(), {wire::tag_list, 3, wire::tag_list, 0, wire::tag_null, wire::tag_list, 1,
                           wire::tag_list, 0});
    return p;
}

// A batch as the forward sink keeps it: each decoded message copied into a deque and charged.
struct batch {
    std::deque<message> messages;
    message_memory memory;
};

// Decodes `payloads` into a batch, then measures what the batch alone holds on the heap (the
// decoder, with its table, is gone by then: the types the messages share count too).
struct measured {
    std::size_t heap = 0;
    std::uint64_t accounted = 0;
    std::uint64_t messages = 0;
};
measured measure(const std::vector<bytes_t>& payloads) {
    batch b;
    {
        stream_decoder dec(decoder_limits{});
        for (const auto& p : payloads) {
            const auto ec = dec.decode_payload(p, [&](message&& m) {
                b.memory.add(m);
                b.messages.push_back(m);
            });
            EXPECT_FALSE(ec) << ec.message();
        }
    }
    measured r{0, b.memory.bytes(), b.messages.size()};
    const std::size_t held = test::live_bytes();
    b.messages.clear();
    b.messages.shrink_to_fit();
    r.heap = held - test::live_bytes();
    return r;
}

void expect_within_account(const char* what, const std::vector<bytes_t>& payloads) {
    const auto m = measure(payloads);
    EXPECT_GT(m.messages, 0u) << what;
    EXPECT_LE(m.heap, m.accounted) << what << ": " << m.messages << " messages";
    // Not a wild over-charge either: honest relays are paused by it.
    EXPECT_LE(m.accounted, 2 * m.heap + 4096) << what;
}

TEST(HeldMemory, BatchesHoldNoMoreThanTheirAccount) {
    expect_within_account("nulls", {nulls(20'000), nulls(20'000)});
    expect_within_account("tiny strings", {tiny_strings(10'000)});
    expect_within_account("points", {points(10'000)});
    expect_within_account("maps", {maps(5'000)});
    expect_within_account("nested lists", {nested_lists(5'000)});
}

TEST(HeldMemory, NoWireByteDecodesToMoreThanTheReadLimitAssumes) {
    for (const auto& p :
         {nulls(10'000), tiny_strings(10'000), points(10'000), maps(1'000), nested_lists(1'000)}) {
        batch b;
        stream_decoder dec(decoder_limits{});
        ASSERT_FALSE(dec.decode_payload(p, [&](message&& m) { b.memory.add(m); }));
        EXPECT_LE(b.memory.bytes(), memory_charge::max_per_wire_byte * p.size());
    }
    // The null message is the worst: one byte, one message slot.
    message_memory m;
    EXPECT_EQ(m.add(message{}), memory_charge::max_per_wire_byte);
}

TEST(HeldMemory, ARecordTypeIsChargedOncePerBatch) {
    auto type = std::make_shared<record_type>(record_type{"Point", {"x", "y"}});
    const message point{value(record{type, {1, 2}})};
    message_memory m;
    const auto first = m.add(point);
    const auto second = m.add(point);
    EXPECT_LT(second, first);
    EXPECT_EQ(m.bytes(), first + second);
    // A new batch holds the type again.
    m.clear();
    EXPECT_EQ(m.bytes(), 0u);
    EXPECT_EQ(m.add(point), first);
}

TEST(HeldMemory, RollbackForgetsTheFrameAndTheTypesItBroughtIn) {
    auto type = std::make_shared<record_type>(record_type{"Point", {"x", "y"}});
    const message point{value(record{type, {1, 2}})};
    message_memory m;
    m.add(message{"kept"});
    m.mark();
    const auto before = m.bytes();
    const auto first = m.add(point);
    m.add(point);
    m.rollback();
    EXPECT_EQ(m.bytes(), before);
    // The type left with the frame: the next message that holds it is charged it again.
    EXPECT_EQ(m.add(point), first);
}

TEST(HeldMemory, TheChargeIsTheLargerOfWireBytesAndMemory) {
    EXPECT_EQ(memory_charge::charge(1000, 112'000), 112'000u);
    EXPECT_EQ(memory_charge::charge(5000, 300), 5000u);
    EXPECT_EQ(memory_charge::charge(0, 0), 0u);
}

TEST(HeldMemory, AReadTakesNoMoreThanCouldDecodeWithinTheCap) {
    constexpr std::uint64_t cap = 16u << 20;
    constexpr std::size_t offered = 256u << 10;
    const auto k = memory_charge::max_per_wire_byte;
    // Nothing held: what the cap leaves room for, or the buffer if smaller.
    EXPECT_EQ(memory_charge::read_limit(offered, 0, cap), cap / k);
    EXPECT_EQ(memory_charge::read_limit(offered, 0, std::uint64_t{1} << 40), offered);
    // Half held: half as much.
    EXPECT_EQ(memory_charge::read_limit(offered, cap / 2, cap), cap / 2 / k);
    // At or past the cap (hold_reading() waits there first): still some progress.
    EXPECT_EQ(memory_charge::read_limit(offered, cap, cap), memory_charge::min_read);
    EXPECT_EQ(memory_charge::read_limit(offered, 2 * cap, cap), memory_charge::min_read);
    EXPECT_EQ(memory_charge::read_limit(100, cap, cap), 100u);
    // Whatever is held within the cap, a read of nulls decodes to no more than what is left of
    // it plus min_read's worth.
    for (std::uint64_t held = 0; held <= cap; held += cap / 64) {
        const auto n = memory_charge::read_limit(offered, held, cap);
        EXPECT_LE(held + n * k, cap + memory_charge::min_read * k) << held;
    }
}

TEST(HeldMemory, AFrameOverTheCapIsRefusedNamingTheKey) {
    EXPECT_EQ(memory_charge::frame_refusal(1000, 1000), "");
    const auto why = memory_charge::frame_refusal(1001, 1000);
    EXPECT_NE(why.find("limits.max_buffered_bytes (1000 bytes)"), std::string::npos) << why;
    EXPECT_NE(why.find("1001 bytes"), std::string::npos) << why;
}

}  // namespace
}  // namespace objwire::daemon
