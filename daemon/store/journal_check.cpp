#include "daemon/store/journal_check.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>

namespace objwire::daemon {
namespace {

std::error_code last_errno() {
    return {errno, std::generic_category()};
}

std::size_t read_at(int fd, std::vector<std::uint8_t>& out, std::uint64_t at, std::size_t n,
                    std::error_code& ec) {
    out.resize(n);
    out.resize(daemon::read_at(fd, out.data(), n, at, ec));
    return out.size();
}

// The block that ends exactly at the end of the file, found by looking back for its magic in
// growing windows of the file's end (a block is self-contained and checksummed, so a match
// is the last block).
std::optional<journal_block_header> last_block(int fd, std::uint64_t size, std::error_code& ec) {
    std::vector<std::uint8_t> tail;
    for (std::uint64_t window : {std::uint64_t{1} << 20, std::uint64_t{64} << 20, size}) {
        window = std::min(window, size);
        const std::uint64_t base = size - window;
        if (read_at(fd, tail, base, static_cast<std::size_t>(window), ec) != window)
            return std::nullopt;
        for (std::size_t i = tail.size() >= journal_block_header_size
                                 ? tail.size() - journal_block_header_size + 1
                                 : 0;
             i-- > 0;) {
            if (std::memcmp(tail.data() + i, journal_block_magic, 4) != 0) continue;
            const auto r = parse_journal_block(std::span(tail).subspan(i));
            if (r.state == journal_block_parse::status::block && i + r.size == tail.size())
                return r.block.header;
        }
        if (window == size) break;
    }
    return std::nullopt;
}

// The cheap check: true when the first and last blocks are intact and the segment ends where
// the next begins (or a whole file is missing in between, a gap with nothing damaged).
bool cheap_check(const segment_info& seg, std::uint64_t next_first, segment_findings& out,
                 std::error_code& ec) {
    const int fd = ::open(seg.path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        ec = last_errno();
        return false;
    }
    std::vector<std::uint8_t> head;
    read_at(fd, head, 0, static_cast<std::size_t>(std::min<std::uint64_t>(seg.bytes, 1 << 20)), ec);
    auto first = parse_journal_block(head);
    if (first.state == journal_block_parse::status::need_more &&
        first.error == journal_errc::short_block && first.size <= seg.bytes) {
        read_at(fd, head, 0, first.size, ec);
        first = parse_journal_block(head);
    }
    std::optional<journal_block_header> last;
    if (!ec && first.state == journal_block_parse::status::block &&
        first.block.header.first_offset == seg.first_offset)
        last = last_block(fd, seg.bytes, ec);
    ::close(fd);
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
