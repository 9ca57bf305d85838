// The walker of a segment's bytes (proto/journal_walk.hpp): the same blocks however the bytes
// arrive (every split point, every read size), a torn tail at every length, every flipped
// byte caught, offsets checked, sizes capped before they are asked for. The scan for the next
// intact block after damage: found from every position however the bytes arrive, damaged
// candidates passed over, what it asks for capped.
#include <gtest/gtest.h>

#include "journal_support.hpp"
#include "proto/journal_walk.hpp"

namespace objwire::test {
namespace {

using bytes_t = std::vector<std::uint8_t>;

struct segment {
    bytes_t bytes;
    std::vector<std::size_t> starts;  // position of each block, then the end
    std::uint64_t first_offset = 0;
};

// Blocks of different shapes: with and without a sender id and a stream record, one message
// and several, numbered on from `first_offset`.
segment make_segment(std::uint64_t first_offset) {
    segment s;
    s.first_offset = first_offset;
    std::uint64_t offset = first_offset;
    const auto add = [&](bytes_t block) {
        seal_journal_block(block, offset);
        offset += journal_block_message_count(block);
        s.starts.push_back(s.bytes.size());
        s.bytes.insert(s.bytes.end(), block.begin(), block.end());
    };
    add(make_block(events(0, 3), "sender-a", 1, 2));
    add(make_block(events(3, 1), "", 3, 3));
    journal_block_writer w("sender-b", false, true);
    w.set_record({{1, 2, 3}, 9, 77});
    for (const auto& m : events(4, 2))
        EXPECT_FALSE(w.add(m));
    const auto b = w.finish(4, 5, 1700000000001);
    add({b.begin(), b.end()});
    s.starts.push_back(s.bytes.size());
    return s;
}

struct walked {
    std::vector<std::size_t> positions;  // of the blocks handed out
    std::vector<std::uint64_t> offsets;  // their first offsets
    journal_walk_step last;              // what stopped the walk
};

// A caller that holds the bytes it has read so far and reads `read_size` more whenever the
// walker needs more; `file` is what the file holds.
walked walk(std::span<const std::uint8_t> file, journal_walker w, std::size_t read_size) {
    walked out;
    std::size_t have = 0;  // bytes read from the file
    for (std::size_t steps = 0; steps < 10 * file.size() + 10; ++steps) {
        const auto pos = static_cast<std::size_t>(w.position());
        const auto s = w.next(file.subspan(pos, have - pos), have == file.size());
        if (s.what == journal_walk::need_more) {
            EXPECT_GT(s.size, have - pos);
            EXPECT_LE(s.size, journal_max_block_bytes);
            have = std::min(file.size(), have + read_size);
            continue;
        }
        if (s.what != journal_walk::block) {
            out.last = s;
            return out;
        }
        EXPECT_EQ(s.position, pos);
        EXPECT_EQ(s.bytes.data(), file.data() + pos);
        EXPECT_EQ(s.bytes.size(), s.size);
        EXPECT_EQ(w.position(), pos + s.size);
        out.positions.push_back(pos);
        out.offsets.push_back(s.block.header.first_offset);
    }
    ADD_FAILURE() << "the walk did not end";
    return out;
}

TEST(journal_walk, every_read_size_gives_the_same_blocks) {
    const auto seg = make_segment(100);
    const std::vector<std::size_t> starts(seg.starts.begin(), seg.starts.end() - 1);
    for (std::size_t read = 1; read <= seg.bytes.size(); ++read) {
        const auto r = walk(seg.bytes, journal_walker(seg.first_offset), read);
        ASSERT_EQ(r.positions, starts) << "reads of " << read;
        EXPECT_EQ(r.offsets, (std::vector<std::uint64_t>{100, 103, 104}));
        EXPECT_EQ(r.last.what, journal_walk::end);
        EXPECT_EQ(r.last.position, seg.bytes.size());
    }
}

// The caller holds the bytes up to a split point, then all of them: whatever the split, every
// block comes out whole and once.
TEST(journal_walk, every_split_point_gives_the_same_blocks) {
    const auto seg = make_segment(0);
    const std::span<const std::uint8_t> file(seg.bytes);
    for (std::size_t split = 0; split <= file.size(); ++split) {
        journal_walker w(0);
        std::vector<std::size_t> got;
        for (bool all = false;;) {
            const auto pos = static_cast<std::size_t>(w.position());
            const std::size_t have = all ? file.size() : std::max(split, pos);
            const auto s = w.next(file.subspan(pos, have - pos), all);
            if (s.what == journal_walk::need_more) {
                ASSERT_FALSE(all);
                all = true;
                continue;
            }
            if (s.what != journal_walk::block) {
                EXPECT_EQ(s.what, journal_walk::end) << "split at " << split;
                break;
            }
            got.push_back(pos);
        }
        EXPECT_EQ(got, std::vector<std::size_t>(seg.starts.begin(), seg.starts.end() - 1))
            << "split at " << split;
    }
}

// The file ends at every length: the whole blocks before the cut come out, then the end (at a
// block boundary) or a torn tail that says where the cut block starts and how much of it is
// there.
TEST(journal_walk, torn_tail_at_every_length) {
    const auto seg = make_segment(7);
    for (std::size_t len = 0; len < seg.bytes.size(); ++len) {
        const std::span<const std::uint8_t> file(seg.bytes.data(), len);
        const auto r = walk(file, journal_walker(7), 64);
        std::size_t whole = 0;  // blocks wholly before the cut
        while (seg.starts[whole + 1] <= len)
            ++whole;
        ASSERT_EQ(r.positions.size(), whole) << "cut at " << len;
        const std::size_t boundary = seg.starts[whole];
        EXPECT_EQ(r.last.position, boundary);
        if (len == boundary) {
            EXPECT_EQ(r.last.what, journal_walk::end) << "cut at " << len;
            continue;
        }
        EXPECT_EQ(r.last.what, journal_walk::torn_tail) << "cut at " << len;
        EXPECT_EQ(r.last.size, len - boundary);
        EXPECT_EQ(r.last.error, len - boundary < journal_block_header_size
                                    ? journal_errc::short_header
                                    : journal_errc::short_block);
    }
}

// A flipped byte anywhere costs its block: the blocks before it come out unchanged, the
// damaged one never does (its CRC covers every byte, its lengths are checked), and the walk
// stops there as damaged - or torn when the flip made the block announce more than the file
// holds.
TEST(journal_walk, every_flipped_byte_stops_the_walk_at_its_block) {
    const auto seg = make_segment(0);
    for (std::size_t i = 0; i < seg.bytes.size(); ++i) {
        for (const std::uint8_t flip : {0x01, 0x80, 0xFF}) {
            auto bytes = seg.bytes;
            bytes[i] ^= flip;
            std::size_t hit = 0;
            while (seg.starts[hit + 1] <= i)
                ++hit;
            const auto r = walk(bytes, journal_walker(0), 4096);
            ASSERT_EQ(r.positions.size(), hit) << "byte " << i << " ^ " << int(flip);
            EXPECT_EQ(r.last.position, seg.starts[hit]);
            EXPECT_TRUE(r.last.what == journal_walk::damaged ||
                        r.last.what == journal_walk::torn_tail)
                << "byte " << i << " ^ " << int(flip);
            EXPECT_TRUE(r.last.error) << "byte " << i;
        }
    }
}

TEST(journal_walk, a_block_numbered_lower_is_damage_a_higher_one_a_jump) {
    auto seg = make_segment(50);
    {
        journal_walker w(60);  // expects 60: the first block starts at 50
        const auto s = w.next(seg.bytes, true);
        EXPECT_EQ(s.what, journal_walk::damaged);
        EXPECT_EQ(s.error, journal_errc::offset_gap);
        EXPECT_EQ(s.size, seg.starts[1]);
        EXPECT_EQ(w.position(), 0u);
    }
    journal_walker w(40);  // expects 40: offsets 40..49 are missing before the first block
    auto s = w.next(seg.bytes, true);
    ASSERT_EQ(s.what, journal_walk::offset_jump);
    EXPECT_EQ(s.block.header.first_offset, 50u);
    EXPECT_EQ(w.position(), 0u);
    EXPECT_EQ(w.next_offset(), 40u);
    w.resume_at(s.position, s.block.header.first_offset);
    s = w.next(seg.bytes, true);
    ASSERT_EQ(s.what, journal_walk::block);
    EXPECT_EQ(w.next_offset(), 53u);
    // Without numbers to check, any order is taken.
    const auto r = walk(seg.bytes, journal_walker(), 4096);
    EXPECT_EQ(r.offsets, (std::vector<std::uint64_t>{50, 53, 54}));
    EXPECT_EQ(r.last.what, journal_walk::end);
}

// After damage the caller finds the next intact block (it reads the file) and resumes there:
// the walk goes on with that block's numbering.
TEST(journal_walk, resumes_after_damage_where_told) {
    auto seg = make_segment(0);
    seg.bytes[seg.starts[1] + journal_block_header_size + 2] ^= 0x10;  // its payload
    journal_walker w(0);
    auto s = w.next(seg.bytes, true);
    ASSERT_EQ(s.what, journal_walk::block);
    const std::span<const std::uint8_t> file(seg.bytes);
    s = w.next(file.subspan(w.position()), true);
    ASSERT_EQ(s.what, journal_walk::damaged);
    EXPECT_EQ(s.error, journal_errc::bad_checksum);
    EXPECT_EQ(s.size, seg.starts[2] - seg.starts[1]);
    w.resume_at(seg.starts[2], 4);
    s = w.next(file.subspan(w.position()), true);
    ASSERT_EQ(s.what, journal_walk::block);
    EXPECT_EQ(s.position, seg.starts[2]);
    EXPECT_EQ(w.next(file.subspan(w.position()), true).what, journal_walk::end);
}

// A header announcing more than the cap is damage before a byte of its body is asked for.
TEST(journal_walk, sizes_are_capped_before_they_are_asked_for) {
    const auto seg = make_segment(0);
    const std::size_t first = seg.starts[1];
    journal_walker w(0);
    w.set_max_block(first - 1);
    auto s = w.next(std::span(seg.bytes).first(journal_block_header_size), false);
    EXPECT_EQ(s.what, journal_walk::damaged);
    EXPECT_EQ(s.error, journal_errc::too_large);
    s = w.next(seg.bytes, true);
    EXPECT_EQ(s.what, journal_walk::damaged);
    EXPECT_EQ(s.error, journal_errc::too_large);
    // The format's own cap: a payload length over 1 GiB.
    auto bytes = seg.bytes;
    store_le<std::uint32_t>(bytes.data() + 8, journal_max_payload + 1);
    s = journal_walker(0).next(std::span(bytes).first(journal_block_header_size), false);
    EXPECT_EQ(s.what, journal_walk::damaged);
    EXPECT_EQ(s.error, journal_errc::too_large);
    EXPECT_EQ(s.size, 0u);
}

TEST(journal_walk, a_short_tail_that_cannot_start_a_block_is_told_apart) {
    const auto seg = make_segment(0);
    EXPECT_TRUE(journal_block_prefix_ok(std::span(seg.bytes).first(3)));
    EXPECT_TRUE(journal_block_prefix_ok({}));
    const bytes_t garbage{'{', '"', 'a'};
    EXPECT_FALSE(journal_block_prefix_ok(garbage));
    const auto s = journal_walker().next(garbage, true);
    EXPECT_EQ(s.what, journal_walk::torn_tail);
    EXPECT_EQ(s.size, 3u);
}

// The header-only parse (the sender index's) agrees with the whole parse on every header rule.
TEST(journal_walk, header_parse_agrees_with_the_whole_parse) {
    const auto seg = make_segment(0);
    for (std::size_t i = 0; i < journal_block_header_size; ++i) {
        auto bytes = seg.bytes;
        bytes[i] ^= 0x80;
        const auto head = parse_journal_block_head(bytes);
        const auto whole = parse_journal_block(bytes);
        if (head.state == journal_block_parse::status::bad) {
            EXPECT_EQ(whole.state, journal_block_parse::status::bad) << "byte " << i;
            EXPECT_EQ(whole.error, head.error) << "byte " << i;
        } else {
            EXPECT_EQ(whole.size, head.size) << "byte " << i;
        }
    }
    const auto head = parse_journal_block_head(seg.bytes);
    ASSERT_EQ(head.state, journal_block_parse::status::block);
    EXPECT_EQ(head.size, seg.starts[1]);
    EXPECT_EQ(head.sender_len, 8u);
    EXPECT_EQ(head.header.message_count, 3u);
}

// The scan for the next intact block after damage (journal_resync), fed by a caller that
// holds the bytes from where the scan stands and reads `read_size` more whenever it needs
// more; `asked` collects the largest extent the scan asked for.
journal_resync_step resync(std::span<const std::uint8_t> file, journal_resync scan,
                           std::size_t read_size, std::size_t* asked = nullptr) {
    std::size_t have = static_cast<std::size_t>(scan.position());  // read up to here
    for (std::size_t steps = 0; steps < 10 * file.size() + 10; ++steps) {
        const auto pos = static_cast<std::size_t>(scan.position());
        const auto s = scan.next(file.subspan(pos, have - pos));
        if (s.what != journal_resync_status::need_more) return s;
        const auto now = static_cast<std::size_t>(scan.position());
        EXPECT_EQ(s.position, now);
        EXPECT_GE(now, pos);  // never back to bytes ruled out
        EXPECT_GT(s.size, have - now);
        EXPECT_LE(now + s.size, file.size());
        if (asked) *asked = std::max(*asked, s.size);
        have = std::min(file.size(), have + read_size);
    }
    ADD_FAILURE() << "the scan did not end";
    return {};
}

// From every position of a segment, whatever the reads (a block split across them, or held
// whole), the scan finds the first block starting at or after it, and nothing after the last.
TEST(journal_resync, finds_the_next_block_from_every_position) {
    const auto seg = make_segment(20);
    const std::vector<std::uint64_t> offsets{20, 23, 24};
    const std::span<const std::uint8_t> file(seg.bytes);
    for (std::size_t from = 0; from <= file.size(); ++from) {
        std::size_t next = 0;
        while (next < 3 && seg.starts[next] < from)
            ++next;
        for (const std::size_t read : {std::size_t{1}, std::size_t{13}, file.size()}) {
            const auto s = resync(file, journal_resync(from, file.size(), 0), read);
            if (next == 3) {
                EXPECT_EQ(s.what, journal_resync_status::none) << "from " << from;
                continue;
            }
            ASSERT_EQ(s.what, journal_resync_status::found) << "from " << from << " reads " << read;
            EXPECT_EQ(s.position, seg.starts[next]);
            EXPECT_EQ(s.size, seg.starts[next + 1] - seg.starts[next]);
            EXPECT_EQ(s.first_offset, offsets[next]);
        }
    }
}

// The caller holds the bytes up to a split point, then the rest: a block cut by the split is
// asked for whole and found.
TEST(journal_resync, a_block_split_across_reads_is_found) {
    const auto seg = make_segment(0);
    const std::span<const std::uint8_t> file(seg.bytes);
    for (std::size_t split = 0; split <= file.size(); ++split) {
        journal_resync scan(1, file.size(), 0);  // past the first block's start
        auto s = scan.next(file.subspan(1, std::max<std::size_t>(split, 1) - 1));
        if (s.what == journal_resync_status::need_more) {
            const auto pos = static_cast<std::size_t>(scan.position());
            s = scan.next(file.subspan(pos));
        }
        ASSERT_EQ(s.what, journal_resync_status::found) << "split at " << split;
        EXPECT_EQ(s.position, seg.starts[1]) << "split at " << split;
    }
}

// A damaged candidate - any byte of it flipped - is passed over and the block after it found;
// so is an intact block numbered below what is expected.
TEST(journal_resync, passes_over_a_damaged_candidate) {
    const auto seg = make_segment(0);
    for (std::size_t i = seg.starts[1]; i < seg.starts[2]; ++i) {
        for (const std::uint8_t flip : {0x01, 0x80, 0xFF}) {
            auto bytes = seg.bytes;
            bytes[i] ^= flip;
            const auto s = resync(bytes, journal_resync(seg.starts[1], bytes.size(), 3), 7);
            ASSERT_EQ(s.what, journal_resync_status::found) << "byte " << i << " ^ " << int(flip);
            EXPECT_EQ(s.position, seg.starts[2]);
            EXPECT_EQ(s.first_offset, 4u);
        }
    }
    const auto s = resync(seg.bytes, journal_resync(0, seg.bytes.size(), 4), 7);
    ASSERT_EQ(s.what, journal_resync_status::found);
    EXPECT_EQ(s.position, seg.starts[2]);
}

// A candidate announcing more than the cap, or more than the file holds, is passed over
// without its bytes being asked for: what the caller holds at once stays bounded.
TEST(journal_resync, never_asks_for_more_than_the_cap_or_the_file) {
    const auto seg = make_segment(0);
    const std::size_t first = seg.starts[1];
    const std::size_t cap = seg.starts[2] - seg.starts[1];
    ASSERT_GT(first, cap);  // the second block is smaller than the first
    journal_resync scan(0, seg.bytes.size(), 0);
    scan.set_max_block(cap);
    std::size_t asked = 0;
    auto s = resync(seg.bytes, scan, 1, &asked);
    ASSERT_EQ(s.what, journal_resync_status::found);
    EXPECT_EQ(s.position, seg.starts[1]);
    EXPECT_LE(asked, cap);

    // A payload length of 1 GiB (the format's cap) in a file that holds far less.
    auto bytes = seg.bytes;
    store_le<std::uint32_t>(bytes.data() + 8, journal_max_payload);
    asked = 0;
    s = resync(bytes, journal_resync(0, bytes.size(), 0), 1, &asked);
    ASSERT_EQ(s.what, journal_resync_status::found);
    EXPECT_EQ(s.position, seg.starts[1]);
    EXPECT_LE(asked, bytes.size());
    // The file is said to be larger than the bytes held: the cap still bounds the ask.
    journal_resync big(0, std::uint64_t{1} << 40, 0);
    big.set_max_block(4096);
    s = big.next(std::span(bytes).first(journal_block_header_size));
    EXPECT_EQ(s.what, journal_resync_status::need_more);
    EXPECT_LE(s.size, 4096u);
    EXPECT_GT(big.position(), 0u);  // the candidate at 0 is ruled out
}

// Fewer bytes than a header before the end: nothing can start there.
TEST(journal_resync, nothing_intact_in_a_short_or_empty_rest) {
    const auto seg = make_segment(0);
    const std::span<const std::uint8_t> file(seg.bytes);
    EXPECT_EQ(journal_resync(0, 0, 0).next({}).what, journal_resync_status::none);
    const auto tail = file.size() - journal_block_header_size + 1;
    EXPECT_EQ(journal_resync(tail, file.size(), 0).next(file.subspan(tail)).what,
              journal_resync_status::none);
    const bytes_t zeros(3 * journal_block_header_size, 0);
    EXPECT_EQ(resync(zeros, journal_resync(0, zeros.size(), 0), 5).what,
              journal_resync_status::none);
}

}  // namespace
}  // namespace objwire::test
