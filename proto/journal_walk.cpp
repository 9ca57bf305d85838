#include "proto/journal_walk.hpp"

#include <algorithm>
#include <cstring>
#include <iterator>

namespace objwire {

journal_walk_step journal_walker::stop(journal_walk what, std::size_t size,
                                       std::error_code why) const {
    journal_walk_step s;
    s.what = what;
    s.position = position_;
    s.size = size;
    s.error = why;
    return s;
}

journal_walk_step journal_walker::next(std::span<const std::uint8_t> in, bool at_end) {
    if (in.empty() && at_end) return stop(journal_walk::end, 0, {});
    const auto r = parse_journal_block(in);
    // The announced extent is checked first: a damaged length field never makes a caller
    // buffer more than the cap, and the verdict is the same however many bytes were held.
    if (r.size > max_block_) return stop(journal_walk::damaged, 0, journal_errc::too_large);
    if (r.state == journal_block_parse::status::need_more) {
        // Only the file's end makes a short block torn: before it, the rest is still coming.
        if (at_end) return stop(journal_walk::torn_tail, in.size(), r.error);
        return stop(journal_walk::need_more, r.size, r.error);
    }
    if (r.state == journal_block_parse::status::bad)
        return stop(journal_walk::damaged, r.size, r.error);
    auto s = stop(journal_walk::block, r.size, {});
    s.block = r.block;
    // A block numbered below the expected offset repeats offsets already given out: damage.
    // One numbered above follows offsets that are missing, and is itself intact.
    if (checked_ && r.block.header.first_offset < next_offset_) {
        s.what = journal_walk::damaged;
        s.error = journal_errc::offset_gap;
        return s;
    }
    if (checked_ && r.block.header.first_offset > next_offset_) {
        s.what = journal_walk::offset_jump;
        s.error = journal_errc::offset_gap;
        return s;
    }
    s.bytes = in.first(r.size);
    position_ += r.size;
    next_offset_ = r.block.end_offset();
    return s;
}

void journal_walker::resume_at(std::uint64_t position, std::uint64_t first_offset) {
    position_ = position;
    next_offset_ = first_offset;
}

journal_resync_step journal_resync::step(journal_resync_status what, std::size_t size) const {
    journal_resync_step s;
    s.what = what;
    s.position = position_;
    s.size = size;
    return s;
}

journal_resync_step journal_resync::next(std::span<const std::uint8_t> in) {
    const auto pass = [&](std::size_t n) {
        in = in.subspan(n);
        position_ += n;
    };
    in = in.first(std::min<std::uint64_t>(in.size(), end_ - std::min(end_, position_)));
    for (;;) {
        if (end_ < position_ + journal_block_header_size)
            return step(journal_resync_status::none, 0);
        if (in.size() < journal_block_header_size)
            return step(journal_resync_status::need_more, journal_block_header_size);
        // Candidates are the positions with a header's worth of bytes held after them.
        const auto window = in.first(in.size() - journal_block_header_size + 4);
        const auto hit = std::search(window.begin(), window.end(), std::begin(journal_block_magic),
                                     std::end(journal_block_magic));
        if (hit == window.end()) {
            pass(window.size() - 3);
            continue;
        }
        pass(static_cast<std::size_t>(hit - window.begin()));
        std::size_t need = 0;
        journal_resync_step found;
        if (intact(in, need, found)) return found;
        if (need > 0) return step(journal_resync_status::need_more, need);
        pass(1);
    }
}

bool journal_resync::intact(std::span<const std::uint8_t> at, std::size_t& need,
                            journal_resync_step& out) const {
    const auto r = parse_journal_block(at);
    // An extent past the cap or the file's end is a damaged length field, never read.
    if (r.size > max_block_ || r.size > end_ - position_) return false;
    if (r.state == journal_block_parse::status::need_more) {
        need = r.size;
        return false;
    }
    if (r.state != journal_block_parse::status::block || r.block.header.first_offset < min_offset_)
        return false;
    out = step(journal_resync_status::found, r.size);
    out.first_offset = r.block.header.first_offset;
    return true;
}

bool journal_block_prefix_ok(std::span<const std::uint8_t> bytes) {
    const std::size_t n = std::min<std::size_t>(bytes.size(), sizeof journal_block_magic);
    return n == 0 || std::memcmp(bytes.data(), journal_block_magic, n) == 0;
}

}  // namespace objwire
