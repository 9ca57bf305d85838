#include "daemon/store/journal_check.hpp"

#include <algorithm>
#include <optional>

namespace objwire::daemon {
namespace {

// The block that ends exactly at the end of the file among those walked from the first intact
// one at or after `from`; damage on the way is skipped as in every walk.
std::optional<journal_block_header> last_block_from(segment_reader& reader, std::uint64_t from,
                                                    std::error_code& ec) {
    const auto failed = [&] {
        if (reader.error().category() == std::generic_category()) ec = reader.error();
        return std::nullopt;
    };
    if (!reader.read_from_intact(from)) return failed();
    std::optional<journal_block_header> last;
    journal_block_view block;
    for (;;) {
        const auto st = reader.next(block);
        if (st == segment_reader::status::block) {
            last = block.header;
            continue;
        }
        if (st == segment_reader::status::io_error) {
            ec = reader.error();
            return std::nullopt;
        }
        if (st == segment_reader::status::end && reader.leftover() == 0) return last;
        if (!reader.skip_damage()) return failed();
        last.reset();
    }
}

// The block that ends exactly at the end of the file, looked for among the blocks of the
// file's last MiB, then of its last 64 MiB, then of all of it (a block may be larger than a
// window): a block is self-contained and checksummed, so the first intact one in a window
// starts a walk that reaches the last one.
std::optional<journal_block_header> last_block(segment_reader& reader, std::uint64_t size,
                                               std::error_code& ec) {
    for (std::uint64_t window : {std::uint64_t{1} << 20, std::uint64_t{64} << 20, size}) {
        window = std::min(window, size);
        if (auto last = last_block_from(reader, size - window, ec)) return last;
        if (ec || window == size) break;
    }
    return std::nullopt;
}

// The cheap check: true when the first and last blocks are intact and the segment ends where
// the next begins (or a whole file is missing in between, a gap with nothing damaged).
bool cheap_check(const segment_info& seg, std::uint64_t next_first, segment_findings& out,
                 std::error_code& ec) {
    segment_reader reader;
    if ((ec = reader.open(seg.path, seg.first_offset))) return false;
    // The first block must be whole and start at the segment's first offset.
    journal_block_view first;
    const auto st = reader.next(first);
    if (st == segment_reader::status::io_error) ec = reader.error();
    if (st != segment_reader::status::block) return false;
    const auto last = last_block(reader, seg.bytes, ec);
    if (ec || !last) return false;
    const std::uint64_t end = last->first_offset + last->message_count;
    if (end > next_first || last->first_offset < seg.first_offset) return false;
    if (end < next_first) {
        out.gaps.push_back({end, next_first, seg.bytes, 0});
        out.damage = "the next segment begins at offset " + std::to_string(next_first) +
                     ", this one ends at " + std::to_string(end) + " (a segment file is missing)";
    }
    return true;
}

}  // namespace

std::error_code walk_segment(segment_reader& reader, segment_findings& out) {
    journal_block_view block;
    for (;;) {
        const auto st = reader.next(block);
        if (st == segment_reader::status::block) {
            ++out.blocks;
            out.messages += block.header.message_count;
            out.largest_block = std::max<std::uint64_t>(out.largest_block, block.bytes());
            continue;
        }
        if (st == segment_reader::status::io_error) return reader.error();
        // A partial block with an intact one after it is damage (a length field hit), not
        // the end; with nothing after it, a torn tail or an append in progress.
        const bool partial = st == segment_reader::status::end;
        if (partial && reader.leftover() == 0) return {};
        const auto at = reader.position();
        const auto why = reader.error();
        if (!reader.skip_damage()) {
            out.bad_end = !partial;
            if (reader.error() && reader.error().category() == std::generic_category())
                return reader.error();
            return {};
        }
        if (out.damage.empty())
            out.damage = "damaged block at position " + std::to_string(at) + " (" + why.message() +
                         "): offsets " + std::to_string(reader.lost().first) + " to " +
                         std::to_string(reader.lost().end - 1) + " lost";
        out.gaps.push_back(reader.lost());
    }
}

std::error_code check_closed_segment(const segment_info& seg, std::uint64_t next_first, bool full,
                                     segment_findings& out) {
    std::error_code ec;
    if (!full && seg.bytes > 0 && cheap_check(seg, next_first, out, ec)) return {};
    if (ec) return ec;
    segment_reader reader;
    if ((ec = reader.open(seg.path, seg.first_offset))) return ec;
    if ((ec = walk_segment(reader, out))) return ec;
    const std::uint64_t end = reader.next_offset();
    const std::uint64_t cut = seg.bytes - reader.good_end();
    if (cut > 0 && out.damage.empty())
        out.damage = std::to_string(cut) + " bytes at position " +
                     std::to_string(reader.good_end()) + " are not whole blocks (" +
                     (reader.error() ? reader.error().message() : std::string("short")) + ")";
    if (end < next_first) {
        out.gaps.push_back({end, next_first, reader.good_end(), cut});
        if (out.damage.empty())
            out.damage = "the next segment begins at offset " + std::to_string(next_first) +
                         ", this one ends at " + std::to_string(end) +
                         " (a segment file is missing)";
    } else if (end > next_first) {
        out.overlap = true;
        out.damage = "its blocks run to offset " + std::to_string(end) +
                     ", past the next segment's first offset " + std::to_string(next_first);
    }
    return {};
}

}  // namespace objwire::daemon
