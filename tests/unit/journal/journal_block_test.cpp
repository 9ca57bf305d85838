// The journal block format (proto/journal_block.hpp): round trips, header fields, a fresh
// table per block, and every torn or corrupted byte detected.
#include <gtest/gtest.h>

#include "journal_support.hpp"
#include "proto/crc32c.hpp"

namespace objwire::test {
namespace {

std::vector<message> decode(const journal_block_view& b) {
    std::vector<message> out;
    EXPECT_FALSE(decode_journal_block(b, [&](message&& m) { out.push_back(std::move(m)); }));
    return out;
}

TEST(journal_block, round_trip_with_header_fields) {
    const auto msgs = events(0, 50);
    auto block = make_block(msgs, "sender-7", 12, 19);
    seal_journal_block(block, 1000);
    const auto r = parse_journal_block(block);
    ASSERT_EQ(r.state, journal_block_parse::status::block) << r.error.message();
    EXPECT_EQ(r.size, block.size());
    const auto& h = r.block.header;
    EXPECT_EQ(h.version, 1);
    EXPECT_EQ(h.message_count, 50u);
    EXPECT_EQ(h.first_offset, 1000u);
    EXPECT_EQ(r.block.end_offset(), 1050u);
    EXPECT_EQ(h.first_sequence, 12u);
    EXPECT_EQ(h.last_sequence, 19u);
    EXPECT_EQ(h.time_ms, 1700000000000u);
    EXPECT_EQ(r.block.sender_id, "sender-7");
    EXPECT_EQ(h.payload_len + journal_block_header_size + 8, block.size());
    EXPECT_EQ(decode(r.block), msgs);
}

// A frame that fails part-way is rolled back out of the open block: the block decodes to
// exactly the messages before the mark, and messages added after the rollback still decode
// although the dropped ones had put strings in the encoder's table.
TEST(journal_block, rollback_drops_what_was_added_since_the_mark) {
    const auto kept = events(0, 20);
    const auto dropped = events(20, 7);
    const auto after = events(0, 5);  // their strings were in the table before the rollback
    journal_block_writer w("s");
    for (const auto& m : kept)
        ASSERT_FALSE(w.add(m));
    w.mark();
    for (const auto& m : dropped)
        ASSERT_FALSE(w.add(m));
    w.rollback();
    EXPECT_EQ(w.messages(), 20u);
    for (const auto& m : after)
        ASSERT_FALSE(w.add(m));
    auto span = w.finish(1, 2, 1700000000000);
    std::vector<std::uint8_t> block(span.begin(), span.end());
    seal_journal_block(block, 0);
    const auto r = parse_journal_block(block);
    ASSERT_EQ(r.state, journal_block_parse::status::block) << r.error.message();
    auto want = kept;
    want.insert(want.end(), after.begin(), after.end());
    EXPECT_EQ(decode(r.block), want);
}

// A payload as a sender wrote it (its own encoder, its own table), optionally led by a reset.
std::vector<std::uint8_t> sender_payload(const std::vector<message>& msgs, bool reset_first) {
    stream_encoder enc({});
    byte_buffer out;
    if (reset_first) enc.reset(out);
    for (const auto& m : msgs)
        EXPECT_FALSE(enc.encode(m, out));
    return {out.data(), out.data() + out.size()};
}

// Received fresh frames go in as they came, mixed with objects the block encodes itself and
// rolled back like them: the block decodes to every message in order.
TEST(journal_block, fresh_payloads_mix_with_encoded_messages) {
    const auto a = events(0, 30);
    const auto b = events(30, 10);
    const auto c = events(40, 25);
    const auto d = events(65, 12);
    const auto dropped = events(77, 9);
    journal_block_writer w("s", true);
    const auto pa = sender_payload(a, false);  // a connection's first frame: no reset op
    ASSERT_FALSE(w.add_payload(pa, 30));
    for (const auto& m : b)  // the encoder's table is not the payload's: it resets first
        ASSERT_FALSE(w.add(m));
    ASSERT_FALSE(w.add_payload(sender_payload(c, false), 25));  // after the block's own strings
    w.mark();
    ASSERT_FALSE(w.add_payload(sender_payload(dropped, true), 9));
    w.rollback();
    ASSERT_FALSE(w.add_payload(sender_payload(d, true), 12));
    EXPECT_EQ(w.messages(), 77u);
    auto span = w.finish(1, 5, 1700000000000);
    std::vector<std::uint8_t> block(span.begin(), span.end());
    seal_journal_block(block, 0);
    const auto r = parse_journal_block(block);
    ASSERT_EQ(r.state, journal_block_parse::status::block) << r.error.message();
    auto want = a;
    for (const auto* part : {&b, &c, &d})
        want.insert(want.end(), part->begin(), part->end());
    EXPECT_EQ(decode(r.block), want);
    // The first payload went in byte for byte.
    EXPECT_TRUE(std::equal(pa.begin(), pa.end(), r.block.payload.begin()));
}

// Stored whole only what a journal reader can decode the same: a table budget no larger than
// its own (under a smaller one, a payload that evicted nothing), nothing above its other caps.
TEST(journal_block, payloads_are_held_only_under_the_journals_limits) {
    auto l = journal_block_limits();
    EXPECT_TRUE(journal_block_can_hold(l));
    decoder_limits daemon_default;
    daemon_default.table_budget = 4u << 20;
    EXPECT_TRUE(journal_block_can_hold(daemon_default));
    l.table_budget /= 2;
    EXPECT_TRUE(journal_block_can_hold(l));
    l.table_budget *= 4;
    EXPECT_FALSE(journal_block_can_hold(l));
    l = journal_block_limits();
    l.max_depth += 1;
    EXPECT_FALSE(journal_block_can_hold(l));
}

TEST(journal_block, rollback_to_an_empty_mark_leaves_an_empty_block) {
    journal_block_writer w("s");
    for (const auto& m : events(0, 3))
        ASSERT_FALSE(w.add(m));
    w.clear();  // a new block marks its start
    ASSERT_FALSE(w.add(event(9)));
    w.rollback();
    EXPECT_TRUE(w.empty());
    EXPECT_EQ(w.bytes(), journal_block_header_size + 1);  // header and sender id only
}

// docs/JOURNAL.md 2.1: flags bit 0, the 32-byte record after the sender id, the payload after
// it; the record survives a rollback to an empty block and the CRC covers it.
TEST(journal_block, stream_record_round_trips) {
    journal_block_writer w("ab", false, true);
    journal_stream_record rec;
    for (std::size_t i = 0; i < rec.fence.size(); ++i)
        rec.fence[i] = static_cast<std::uint8_t>(i + 1);
    rec.objects = 1'000'000;
    rec.digest = 0x0102030405060708ULL;
    ASSERT_FALSE(w.add(event(9)));
    w.rollback();
    EXPECT_EQ(w.bytes(), journal_block_header_size + 2 + journal_stream_record_size);
    for (const auto& m : events(0, 3))
        ASSERT_FALSE(w.add(m));
    w.set_record(rec);
    auto span = w.finish(5, 6, 7);
    std::vector<std::uint8_t> block(span.begin(), span.end());
    seal_journal_block(block, 0);
    EXPECT_EQ(block[5], 1);  // flags: a record
    EXPECT_EQ(load_le<std::uint32_t>(block.data() + 8),
              block.size() - journal_block_header_size - 2 - journal_stream_record_size);
    auto r = parse_journal_block(block);
    ASSERT_EQ(r.state, journal_block_parse::status::block) << r.error.message();
    ASSERT_TRUE(r.block.record);
    EXPECT_EQ(*r.block.record, rec);
    std::size_t n = 0;
    EXPECT_FALSE(decode_journal_block(r.block, [&](message&&) { ++n; }));
    EXPECT_EQ(n, 3u);
    block[journal_block_header_size + 2 + 20] ^= 1;  // in the record
    EXPECT_EQ(parse_journal_block(block).error, journal_errc::bad_checksum);
    block[journal_block_header_size + 2 + 20] ^= 1;
    block[5] = 2;  // an unknown flag
    EXPECT_EQ(parse_journal_block(block).error, journal_errc::bad_reserved);
}

TEST(journal_block, header_layout_is_as_documented) {
    auto block = make_block({event(1)}, "ab", 3, 4);
    seal_journal_block(block, 0x0102030405060708);
    const std::uint8_t* h = block.data();
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(h), 4), "OWJB");
    EXPECT_EQ(h[4], 1);                            // version
    EXPECT_EQ(h[5], 0);                            // flags
    EXPECT_EQ(load_le<std::uint16_t>(h + 6), 2u);  // sender id length
    EXPECT_EQ(load_le<std::uint32_t>(h + 8), block.size() - 52 - 2);
    EXPECT_EQ(load_le<std::uint32_t>(h + 12), 1u);  // messages
    EXPECT_EQ(load_le<std::uint64_t>(h + 16), 0x0102030405060708u);
    EXPECT_EQ(load_le<std::uint64_t>(h + 24), 3u);
    EXPECT_EQ(load_le<std::uint64_t>(h + 32), 4u);
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(h + 52), 2), "ab");
    // CRC-32C of sender id and payload, continued over header bytes 0..47.
    const std::span<const std::uint8_t> all(block);
    EXPECT_EQ(load_le<std::uint32_t>(h + 48), crc32c(all.first(48), crc32c(all.subspan(52))));
}

TEST(journal_block, every_block_starts_from_an_empty_table) {
    journal_block_writer w("s");
    for (const auto& m : events(0, 10))
        ASSERT_FALSE(w.add(m));
    auto first = w.finish(1, 1, 0);
    const std::vector<std::uint8_t> a(first.begin(), first.end());
    w.clear();
    for (const auto& m : events(0, 10))
        ASSERT_FALSE(w.add(m));
    auto second = w.finish(2, 2, 0);
    // The same messages give the same payload: nothing of the first block's table is used.
    const std::size_t payload_at = journal_block_header_size + 1;
    EXPECT_TRUE(
        std::equal(a.begin() + payload_at, a.end(), second.begin() + payload_at, second.end()));
    std::vector<std::uint8_t> b(second.begin(), second.end());
    seal_journal_block(b, 10);
    const auto r = parse_journal_block(b);
    ASSERT_EQ(r.state, journal_block_parse::status::block);
    EXPECT_EQ(decode(r.block), events(0, 10));  // decoded alone
}

TEST(journal_block, graphs_keep_identity) {
    // A trip referring twice to one point and once to itself.
    message m;
    m.root = object_ref{0};
    m.objects = {make_record(make_record_type("Trip", {"a", "b", "self"}),
                             {object_ref{1}, object_ref{1}, object_ref{0}}),
                 make_record(make_record_type("Point", {"x", "y"}), {1, 2})};
    auto block = make_block({m});
    seal_journal_block(block, 0);
    const auto r = parse_journal_block(block);
    ASSERT_EQ(r.state, journal_block_parse::status::block);
    EXPECT_EQ(decode(r.block), std::vector<message>{canonical(m)});
}

TEST(journal_block, every_prefix_is_need_more) {
    auto block = make_block(events(0, 5), "sender");
    seal_journal_block(block, 7);
    for (std::size_t n = 0; n < block.size(); ++n) {
        const auto r = parse_journal_block(std::span<const std::uint8_t>(block).first(n));
        ASSERT_EQ(r.state, journal_block_parse::status::need_more) << n;
        if (n < journal_block_header_size) {
            EXPECT_EQ(r.error, journal_errc::short_header) << n;
            EXPECT_EQ(r.size, journal_block_header_size);
        } else {
            EXPECT_EQ(r.error, journal_errc::short_block) << n;
            EXPECT_EQ(r.size, block.size());
        }
    }
}

TEST(journal_block, every_flipped_byte_is_detected) {
    auto block = make_block(events(0, 5), "sender");
    seal_journal_block(block, 7);
    for (std::size_t i = 0; i < block.size(); ++i) {
        for (const std::uint8_t flip : {0x01, 0x80}) {
            auto bad = block;
            bad[i] ^= flip;
            const auto r = parse_journal_block(bad);
            EXPECT_NE(r.state, journal_block_parse::status::block) << "byte " << i;
            if (i >= journal_block_header_size) {
                EXPECT_EQ(r.error, journal_errc::bad_checksum) << i;
            }
        }
    }
}

TEST(journal_block, header_checks) {
    auto block = make_block({event(1)});
    seal_journal_block(block, 0);
    auto bad = block;
    bad[0] = 'X';
    EXPECT_EQ(parse_journal_block(bad).error, journal_errc::bad_magic);
    bad = block;
    bad[4] = 2;
    EXPECT_EQ(parse_journal_block(bad).error, journal_errc::unsupported_version);
    bad = block;
    bad[5] = 2;  // bit 0 is the stream record (docs/JOURNAL.md 2.1)
    EXPECT_EQ(parse_journal_block(bad).error, journal_errc::bad_reserved);
    bad = block;
    store_le<std::uint32_t>(bad.data() + 8, journal_max_payload + 1);
    EXPECT_EQ(parse_journal_block(bad).error, journal_errc::too_large);
    // An empty block is well formed but never written: refused.
    journal_block_writer w;
    auto e = w.finish(0, 0, 0);
    std::vector<std::uint8_t> empty(e.begin(), e.end());
    seal_journal_block(empty, 0);
    EXPECT_EQ(parse_journal_block(empty).error, journal_errc::empty_block);
    EXPECT_EQ(journal_block_message_count(empty), 0u);
    EXPECT_EQ(journal_block_message_count(block), 1u);
}

TEST(journal_block, count_mismatch_is_an_error) {
    auto block = make_block(events(0, 3));
    store_le<std::uint32_t>(block.data() + 12, 4);  // claims 4; finish() checksummed the body
    seal_journal_block(block, 0);
    const auto r = parse_journal_block(block);
    ASSERT_EQ(r.state, journal_block_parse::status::block);
    EXPECT_EQ(decode_journal_block(r.block, [](message&&) {}), journal_errc::count_mismatch);
}

TEST(journal_block, a_refused_message_leaves_the_block_usable) {
    journal_block_writer w;
    ASSERT_FALSE(w.add(event(1)));
    message bad{make_record(event_type(), {1}), {}};  // wrong field count
    EXPECT_TRUE(w.add(bad));
    ASSERT_FALSE(w.add(event(2)));
    auto b = w.finish(1, 1, 0);
    std::vector<std::uint8_t> block(b.begin(), b.end());
    seal_journal_block(block, 0);
    const auto r = parse_journal_block(block);
    ASSERT_EQ(r.state, journal_block_parse::status::block);
    EXPECT_EQ(decode(r.block), (std::vector<message>{event(1), event(2)}));
}

TEST(journal_block, errors_have_a_category_and_text) {
    const std::error_code ec = journal_errc::bad_checksum;
    EXPECT_STREQ(ec.category().name(), "objwire.journal");
    EXPECT_EQ(ec.message(), "block checksum mismatch");
    EXPECT_EQ(std::error_code(journal_errc::short_header).message(), "short block header");
}

}  // namespace
}  // namespace objwire::test

namespace objwire::test {
namespace {

std::vector<std::uint8_t> finished(journal_block_writer& w, std::uint64_t sequence) {
    const auto span = w.finish(sequence, sequence, 1700000000000);
    return {span.begin(), span.end()};
}

// Writers sharing pools (a daemon's streams) write the same blocks as writers of their own,
// and between blocks hold neither a buffer nor an encoder: both wait in the pools.
TEST(journal_block, writers_sharing_pools_write_the_same_blocks_and_hold_nothing_between) {
    journal_block_pools pools;
    journal_block_writer a("a", false, true, &pools);
    journal_block_writer b("b", false, true, &pools);
    journal_block_writer alone_a("a", false, true);
    journal_block_writer alone_b("b", false, true);
    EXPECT_EQ(a.bytes(), 0u);  // nothing taken before the first message
    for (std::uint64_t round = 1; round <= 3; ++round) {
        const auto msgs = events(static_cast<std::int64_t>(round) * 100, 40);
        for (const auto& m : msgs) {
            ASSERT_FALSE(a.add(m));
            ASSERT_FALSE(alone_a.add(m));
        }
        for (const auto& m : events(0, 10)) {
            ASSERT_FALSE(b.add(m));
            ASSERT_FALSE(alone_b.add(m));
        }
        EXPECT_EQ(finished(a, round), finished(alone_a, round));
        EXPECT_EQ(finished(b, round), finished(alone_b, round));
        a.clear();
        b.clear();
        alone_a.clear();
        alone_b.clear();
        EXPECT_EQ(a.bytes(), 0u);
        EXPECT_EQ(pools.buffers.kept(), 2u);
        EXPECT_EQ(pools.encoders.kept(), 2u);
    }
}

// A rollback to an empty block with pools, and messages after it, as without.
TEST(journal_block, pooled_writer_rolls_back_to_an_empty_block) {
    journal_block_pools pools;
    journal_block_writer w("s", false, false, &pools);
    journal_block_writer alone("s", false, false);
    for (auto* x : {&w, &alone}) {
        x->mark();
        for (const auto& m : events(0, 5))
            ASSERT_FALSE(x->add(m));
        x->rollback();
        EXPECT_TRUE(x->empty());
        for (const auto& m : events(5, 3))
            ASSERT_FALSE(x->add(m));
    }
    EXPECT_EQ(finished(w, 1), finished(alone, 1));
}

}  // namespace
}  // namespace objwire::test
