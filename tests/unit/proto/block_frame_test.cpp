// A reader's journal_block frame checked in one pass (parse_journal_block_frame, with the frame
// parser leaving the frame's checksum to it): for every byte of the frame flipped, it finds
// exactly what the frame's own check followed by parse_journal_block() finds.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "proto/errors.hpp"
#include "proto/frame.hpp"
#include "proto/journal_block.hpp"
#include "test_support.hpp"

namespace objwire {
namespace {

byte_buffer block_frame(std::span<const std::uint8_t> payload, std::uint64_t sequence = 7) {
    byte_buffer out;
    append_frame(out, frame_kind::journal_block, sequence, payload);
    return out;
}

frame_parser later_parser() {
    frame_parser p(1 << 20);
    p.check_payload_later(frame_kind::journal_block);
    return p;
}

// What the one-pass check says of `frame`, in the terms of the two-pass one: the frame's error
// (bad_checksum or none) and the block's parse.
struct verdict {
    std::error_code frame_error;
    journal_block_parse block;
};

verdict two_passes(std::span<const std::uint8_t> frame) {
    const auto r = frame_parser(1 << 20).parse(frame);
    if (r.state != frame_parser::status::frame) return {r.error, {}};
    return {{}, parse_journal_block(r.frame.payload)};
}

verdict one_pass(std::span<const std::uint8_t> frame) {
    const auto r = later_parser().parse(frame);
    if (r.state != frame_parser::status::frame) return {r.error, {}};
    EXPECT_FALSE(r.checked);
    const auto c = parse_journal_block_frame(r.frame.payload, r.head_sum, r.frame.header.crc);
    if (!c.frame_ok) return {proto_errc::bad_checksum, {}};
    return {{}, c.block};
}

void expect_same(const verdict& a, const verdict& b, const std::string& what) {
    EXPECT_EQ(a.frame_error, b.frame_error) << what;
    EXPECT_EQ(a.block.state, b.block.state) << what;
    EXPECT_EQ(a.block.error, b.block.error) << what;
    EXPECT_EQ(a.block.size, b.block.size) << what;
    if (a.block.state != journal_block_parse::status::block) return;
    EXPECT_EQ(a.block.block.header.first_offset, b.block.block.header.first_offset) << what;
    EXPECT_EQ(a.block.block.header.message_count, b.block.block.header.message_count) << what;
    EXPECT_EQ(a.block.block.sender_id, b.block.block.sender_id) << what;
    EXPECT_EQ(a.block.block.payload.data(), b.block.block.payload.data()) << what;
    EXPECT_EQ(a.block.block.payload.size(), b.block.block.payload.size()) << what;
}

TEST(BlockFrame, AWholeBlockFrameIsTheBlockParseJournalBlockFinds) {
    const auto block = test::stored_block("sender-a", 100, 5);
    const auto frame = block_frame(block.span());
    const auto one = one_pass(frame.span());
    ASSERT_FALSE(one.frame_error);
    ASSERT_EQ(one.block.state, journal_block_parse::status::block);
    EXPECT_EQ(one.block.block.header.first_offset, 100u);
    EXPECT_EQ(one.block.block.header.message_count, 5u);
    EXPECT_EQ(one.block.block.sender_id, "sender-a");
    expect_same(one, two_passes(frame.span()), "intact");
}

TEST(BlockFrame, AFlippedByteAnywhereIsFoundAsTheTwoChecksFindIt) {
    const auto block = test::stored_block("sender-a", 100, 5);
    const auto frame = block_frame(block.span());
    int frame_faults = 0;
    for (std::size_t at = 0; at < frame.size(); ++at) {
        for (const std::uint8_t bit : {0x01, 0x20, 0x80}) {
            byte_buffer damaged;
            damaged.append(frame.span());
            damaged.data()[at] ^= bit;
            const auto one = one_pass(damaged.span());
            expect_same(one, two_passes(damaged.span()),
                        "byte " + std::to_string(at) + " bit " + std::to_string(bit));
            // A flipped bit never passes as a good block.
            EXPECT_NE(one.block.state, journal_block_parse::status::block) << at;
            frame_faults += one.frame_error == proto_errc::bad_checksum;
        }
    }
    // Past the header's kind and lengths (which the parser refuses first), the checksum.
    EXPECT_GT(frame_faults, static_cast<int>(frame.size()));
}

TEST(BlockFrame, ABlockWhoseOwnChecksumIsWrongInAGoodFrameIsABadBlock) {
    auto block = test::stored_block("sender-a", 100, 5);
    block.data()[block.size() - 1] ^= 0x01;        // the body, after the block was sealed
    const auto frame = block_frame(block.span());  // a frame sealed over the damaged block
    const auto one = one_pass(frame.span());
    EXPECT_FALSE(one.frame_error);
    EXPECT_EQ(one.block.state, journal_block_parse::status::bad);
    EXPECT_EQ(one.block.error, journal_errc::bad_checksum);
    expect_same(one, two_passes(frame.span()), "bad block");
}

TEST(BlockFrame, APayloadThatIsNotOneWholeBlockIsCheckedAsAFrameFirst) {
    const auto block = test::stored_block("sender-a", 100, 5);
    byte_buffer longer;
    longer.append(block.span());
    longer.append(block.span().first(3));
    const auto shorter = block.span().first(block.size() - 1);
    const auto header_only = block.span().first(10);
    const std::span<const std::uint8_t> payloads[] = {longer.span(), shorter, header_only};
    for (const auto payload : payloads) {
        const auto frame = block_frame(payload);
        const auto one = one_pass(frame.span());
        EXPECT_FALSE(one.frame_error);
        // A block with bytes after it is for the reader to refuse (trailing bytes).
        EXPECT_TRUE(one.block.state != journal_block_parse::status::block ||
                    one.block.size < payload.size());
        expect_same(one, two_passes(frame.span()), std::to_string(payload.size()));
        byte_buffer damaged;
        damaged.append(frame.span());
        damaged.data()[damaged.size() - 1] ^= 0x04;
        EXPECT_EQ(one_pass(damaged.span()).frame_error, proto_errc::bad_checksum);
    }
}

TEST(BlockFrame, OtherKindsAreStillCheckedByTheParser) {
    byte_buffer frame;
    const std::uint8_t payload[] = {1, 2, 3, 4};
    append_frame(frame, frame_kind::gap, 0, payload);
    frame.data()[frame.size() - 1] ^= 0x01;
    const auto r = later_parser().parse(frame.span());
    EXPECT_EQ(r.state, frame_parser::status::error);
    EXPECT_EQ(r.error, proto_errc::bad_checksum);
    // Without the rule every kind is checked, block frames too.
    const auto block = test::stored_block("sender-a", 1, 1);
    auto damaged = block_frame(block.span());
    damaged.data()[damaged.size() - 1] ^= 0x01;
    const auto checked = frame_parser(1 << 20).parse(damaged.span());
    EXPECT_EQ(checked.error, proto_errc::bad_checksum);
    EXPECT_TRUE(later_parser().parse(block_frame(block.span()).span()).state ==
                frame_parser::status::frame);
}

}  // namespace
}  // namespace objwire
