// Fuzz target: the walker of a segment's bytes (proto/journal_walk.hpp). Whatever the bytes: a
// block handed out lies inside the input where the walker stood, parses again to itself and
// continues the numbering (when checked); need_more asks for more than is held and no more
// than the cap; a walk fed in reads of any size hands out the same blocks and stops with the
// same verdict as a walk over the whole input; a damaged or jumped block resumed after one
// byte (as a caller skipping damage would) keeps every invariant. The scan for the next intact
// block (journal_resync) finds the first position that holds one and no other, whatever the
// reads, and asks for no more than the cap or the input holds.
//
// Input: one knob byte (bit 0: offsets checked from the first block's own offset; bit 1: a
// block cap of 4 KiB; bits 2..7: read size 1..64), then the bytes of a segment.
#include <algorithm>
#include <vector>

#include "fuzz_support.hpp"
#include "proto/journal_walk.hpp"

using namespace objwire;

namespace {

struct verdict {
    journal_walk what = journal_walk::need_more;
    std::uint64_t position = 0;
    std::size_t size = 0;
    std::error_code error;
    bool operator==(const verdict&) const = default;
};

struct walk_result {
    std::vector<std::uint64_t> positions;
    verdict last;
};

journal_walker make_walker(std::uint8_t knob, std::span<const std::uint8_t> in) {
    journal_walker w;
    if ((knob & 1) && in.size() >= journal_block_header_size) {
        const auto head = parse_journal_block_head(in);
        w = journal_walker(head.header.first_offset);
    }
    if (knob & 2) w.set_max_block(4096);
    return w;
}

// Feeds `in` in reads of `read_size` (SIZE_MAX: all at once) until the walker stops; each step
// hands out a block or takes in at least one byte, so the walk ends within the bound.
walk_result walk(std::span<const std::uint8_t> in, journal_walker w, std::size_t read_size,
                 std::size_t cap) {
    walk_result out;
    std::size_t have = std::min(read_size, in.size());
    for (std::size_t steps = 0; steps <= 4 * in.size() + 8; ++steps) {
        const auto pos = static_cast<std::size_t>(w.position());
        FUZZ_CHECK(pos <= in.size());
        const auto held = in.subspan(pos, std::max(have, pos) - pos);
        const bool at_end = have >= in.size();
        const auto s = w.next(held, at_end);
        FUZZ_CHECK(s.position == pos);
        switch (s.what) {
            case journal_walk::need_more:
                FUZZ_CHECK(!at_end);
                FUZZ_CHECK(s.size > held.size() && s.size <= cap);
                have = std::min(in.size(), have + std::max<std::size_t>(read_size, 1));
                continue;
            case journal_walk::block: {
                FUZZ_CHECK(s.size <= held.size() && s.size <= cap);
                FUZZ_CHECK(s.bytes.data() == held.data() && s.bytes.size() == s.size);
                const auto again = parse_journal_block(s.bytes);
                FUZZ_CHECK(again.state == journal_block_parse::status::block);
                FUZZ_CHECK(again.size == s.size);
                FUZZ_CHECK(s.block.header.message_count > 0);
                FUZZ_CHECK(w.position() == pos + s.size);
                FUZZ_CHECK(w.next_offset() == s.block.end_offset());
                out.positions.push_back(pos);
                continue;
            }
            case journal_walk::end:
                FUZZ_CHECK(at_end && held.empty());
                break;
            case journal_walk::torn_tail:
                FUZZ_CHECK(at_end && s.size == held.size() && s.size > 0);
                FUZZ_CHECK(s.error == journal_errc::short_header ||
                           s.error == journal_errc::short_block);
                break;
            case journal_walk::damaged:
            case journal_walk::offset_jump:
                FUZZ_CHECK(s.error);
                FUZZ_CHECK(w.position() == pos);
                break;
        }
        out.last = {s.what, s.position, s.size, s.error};
        return out;
    }
    fuzz::invariant_failed("the walk ends within its step bound", __FILE__, __LINE__);
}

bool intact_at(std::span<const std::uint8_t> in, std::size_t at, std::uint64_t min_offset,
               std::size_t cap) {
    const auto r = parse_journal_block(in.subspan(at));
    return r.state == journal_block_parse::status::block && r.size <= cap &&
           r.block.header.first_offset >= min_offset;
}

// Feeds `in` from `from` on in reads of `read_size` until the scan answers.
journal_resync_step resync(std::span<const std::uint8_t> in, std::size_t from,
                           std::uint64_t min_offset, std::size_t read_size, std::size_t cap) {
    journal_resync scan(from, in.size(), min_offset);
    scan.set_max_block(cap);
    read_size = std::min(read_size, in.size());  // SIZE_MAX: all at once
    std::size_t have = std::min(in.size(), from + read_size);
    for (std::size_t steps = 0; steps <= 4 * in.size() + 8; ++steps) {
        const auto pos = static_cast<std::size_t>(scan.position());
        FUZZ_CHECK(pos >= from && pos <= have);
        const auto s = scan.next(in.subspan(pos, have - pos));
        if (s.what != journal_resync_status::need_more) return s;
        const auto now = static_cast<std::size_t>(scan.position());
        FUZZ_CHECK(now >= pos && s.position == now);
        FUZZ_CHECK(s.size > have - now && s.size <= cap && now + s.size <= in.size());
        have = std::min(in.size(), have + read_size);
    }
    fuzz::invariant_failed("the scan ends within its step bound", __FILE__, __LINE__);
}

void check_resync(std::span<const std::uint8_t> in, std::size_t from, std::uint64_t min_offset,
                  std::size_t read_size, std::size_t cap) {
    const auto whole = resync(in, from, min_offset, SIZE_MAX, cap);
    const auto fed = resync(in, from, min_offset, read_size, cap);
    FUZZ_CHECK(fed.what == whole.what && fed.position == whole.position);
    const std::size_t upto = whole.what == journal_resync_status::found
                                 ? static_cast<std::size_t>(whole.position)
                                 : in.size();
    for (std::size_t p = from; p < upto; ++p)
        FUZZ_CHECK(!intact_at(in, p, min_offset, cap));
    if (whole.what != journal_resync_status::found) return;
    FUZZ_CHECK(intact_at(in, upto, min_offset, cap));
    FUZZ_CHECK(whole.size == parse_journal_block(in.subspan(upto)).size);
    FUZZ_CHECK(whole.first_offset >= min_offset);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const std::uint8_t knob = data[0];
    const std::span<const std::uint8_t> in(data + 1, size - 1);
    const std::size_t cap = (knob & 2) ? 4096 : journal_max_block_bytes;
    const std::size_t read_size = 1 + (knob >> 2);

    const auto whole = walk(in, make_walker(knob, in), SIZE_MAX, cap);
    const auto fed = walk(in, make_walker(knob, in), read_size, cap);
    FUZZ_CHECK(fed.positions == whole.positions);
    FUZZ_CHECK(fed.last == whole.last);

    // Past damage: a caller resumes at a later position with that block's own numbering.
    auto w = make_walker(knob, in);
    verdict last = whole.last;
    for (int resumes = 0; resumes < 8; ++resumes) {
        if (last.what != journal_walk::damaged && last.what != journal_walk::offset_jump) break;
        const std::uint64_t at =
            last.what == journal_walk::offset_jump ? last.position : last.position + 1;
        if (at > in.size()) break;
        const auto head = parse_journal_block_head(in.subspan(static_cast<std::size_t>(at)));
        w.resume_at(at, head.header.first_offset);
        const auto rest = walk(in, w, SIZE_MAX, cap);
        last = rest.last;
        if (!rest.positions.empty()) FUZZ_CHECK(rest.positions.front() == at);
    }

    // From the start, and from past where the walk stopped (as a caller skipping damage
    // would); numbered from the first block's offset on when offsets are checked.
    const std::uint64_t min_offset =
        (knob & 1) ? parse_journal_block_head(in).header.first_offset : 0;
    check_resync(in, 0, 0, read_size, cap);
    const auto past =
        static_cast<std::size_t>(std::min<std::uint64_t>(whole.last.position + 1, in.size()));
    check_resync(in, past, min_offset, read_size, cap);
    return 0;
}
