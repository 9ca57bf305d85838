#include "daemon/store/journal_starts.hpp"

namespace objwire::daemon {
namespace {

// Reads the headers of the span at `span` below `limit`, calling found(entry) for each block.
std::error_code read_span(const journal& j, const block_place& span, std::uint64_t limit,
                          const std::function<void(const sender_index_entry&)>& found,
                          journal_index_scan& stats, std::string& detail) {
    const segment_info seg{j.options().dir / segment_file_name(span.segment_first),
                           span.segment_first, 0};
    auto ec = scan_segment_headers(seg, span.position, span.first_offset,
                                   std::min(limit, span.end_offset), found, stats);
    if (ec) detail = seg.path.string() + ": " + ec.message();
    return ec;
}

block_place place_of(const sender_index_entry& e) {
    return {e.segment_first, e.position, e.first_offset, e.first_offset + e.count};
}

// The sender's objects below `limit` in its span `s`.
std::uint64_t objects_below(const journal& j, std::string_view sender, const sender_span& s,
                            std::uint64_t limit, journal_index_scan& stats, found_start& out) {
    if (s.span.end_offset <= limit) return s.objects;
    std::uint64_t n = 0;
    out.error = read_span(
        j, s.span, limit,
        [&](const sender_index_entry& e) {
            if (e.sender_id == sender) n += e.count;
        },
        stats, out.detail);
    return n;
}

}  // namespace

found_start start_at_offset(const journal& j, std::uint64_t offset) {
    return {offset,
            j.with_start_index([&](const start_index& ix) { return ix.place_of(offset); }),
            {},
            {}};
}

found_start start_of_time(const journal& j, std::uint64_t since_ms, std::uint64_t limit,
                          journal_index_scan& stats) {
    found_start out{limit, std::nullopt, {}, {}};
    const auto span = j.with_start_index(
        [&](const start_index& ix) { return ix.place_of_time(since_ms, limit); });
    if (!span) return out;
    out.error = read_span(
        j, *span, limit,
        [&](const sender_index_entry& e) {
            if (out.place || e.time_ms < since_ms) return;
            out.offset = e.first_offset;
            out.place = place_of(e);
        },
        stats, out.detail);
    return out;
}

found_start start_of_senders_last(const journal& j, std::string_view sender, std::uint64_t n,
                                  std::uint64_t limit, journal_index_scan& stats) {
    found_start out{limit, std::nullopt, {}, {}};
    const auto last =
        j.with_start_index([&](const start_index& ix) { return ix.last_span_of(sender, limit); });
    if (!last || n == 0) return out;
    // Ranks count the sender's objects since the index began: the start is the one of rank
    // total - n, or its first kept when it holds fewer than n.
    const std::uint64_t total =
        last->objects_before + objects_below(j, sender, *last, limit, stats, out);
    if (out.error) return out;
    const std::uint64_t rank = total > n ? total - n : 0;
    const auto span =
        j.with_start_index([&](const start_index& ix) { return ix.span_of_rank(sender, rank); });
    if (!span) return out;
    std::uint64_t before = span->objects_before;
    const std::uint64_t want = std::max(rank, before);
    out.error = read_span(
        j, span->span, limit,
        [&](const sender_index_entry& e) {
            if (out.place || e.sender_id != sender) return;
            if (want < before + e.count) {
                out.offset = e.first_offset + (want - before);
                out.place = place_of(e);
            }
            before += e.count;
        },
        stats, out.detail);
    return out;
}

}  // namespace objwire::daemon
