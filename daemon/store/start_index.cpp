#include "daemon/store/start_index.hpp"

#include <algorithm>

namespace objwire::daemon {

bool start_index::opens_span(const indexed_block& b) const {
    if (spans_.empty()) return true;
    const auto& last = spans_.back();
    return last.place.segment_first != b.segment_first || last.blocks >= span_blocks_ ||
           last.bytes >= span_bytes_;
}

void start_index::add(const indexed_block& b) {
    if (b.count == 0) return;
    if (opens_span(b)) {
        span s;
        s.place = {b.segment_first, b.position, b.first_offset, b.first_offset};
        s.time_prefix_max = spans_.empty() ? 0 : spans_.back().time_prefix_max;
        spans_.push_back(s);
    }
    auto& s = spans_.back();
    ++s.blocks;
    s.bytes += b.size;
    s.place.end_offset = b.first_offset + b.count;
    s.max_time_ms = std::max(s.max_time_ms, b.time_ms);
    s.time_prefix_max = std::max(s.time_prefix_max, b.time_ms);
    const std::uint64_t seq = base_seq_ + spans_.size() - 1;
    auto it = senders_.find(b.sender_id);
    if (it == senders_.end()) {
        it = senders_.emplace(std::string(b.sender_id), std::vector<sender_entry>{}).first;
        id_bytes_ += b.sender_id.size();
    }
    auto& entries = it->second;
    if (!entries.empty() && entries.back().span_seq == seq) {
        entries.back().objects += b.count;
        return;
    }
    const std::uint64_t before =
        entries.empty() ? 0 : entries.back().objects_before + entries.back().objects;
    entries.push_back({seq, before, b.count});
    ++sender_records_;
}

void start_index::drop_before(std::uint64_t first_offset) {
    std::size_t dropped = 0;
    while (dropped < spans_.size() && spans_[dropped].place.end_offset <= first_offset &&
           spans_[dropped].place.segment_first < first_offset)
        ++dropped;
    if (dropped == 0) return;
    spans_.erase(spans_.begin(), spans_.begin() + static_cast<std::ptrdiff_t>(dropped));
    base_seq_ += dropped;
    // The prefix maximum may have come from a dropped span: recomputed, so it stays the
    // maximum of what the journal still holds.
    std::uint64_t max = 0;
    for (auto& s : spans_)
        s.time_prefix_max = max = std::max(max, s.max_time_ms);
    for (auto& [id, entries] : senders_) {
        const auto keep = std::find_if(entries.begin(), entries.end(), [&](const sender_entry& e) {
            return e.span_seq >= base_seq_;
        });
        sender_records_ -= static_cast<std::size_t>(keep - entries.begin());
        entries.erase(entries.begin(), keep);
    }
}

void start_index::clear() {
    base_seq_ += spans_.size();
    spans_.clear();
    senders_.clear();
    sender_records_ = 0;
    id_bytes_ = 0;
}

std::optional<block_place> start_index::place_of(std::uint64_t offset) const {
    const auto it = std::partition_point(
        spans_.begin(), spans_.end(), [&](const span& s) { return s.place.end_offset <= offset; });
    if (it == spans_.end()) return std::nullopt;
    return it->place;
}

std::optional<block_place> start_index::place_of_time(std::uint64_t since_ms,
                                                      std::uint64_t limit) const {
    const auto it = std::partition_point(
        spans_.begin(), spans_.end(), [&](const span& s) { return s.time_prefix_max < since_ms; });
    if (it == spans_.end() || it->place.first_offset >= limit) return std::nullopt;
    return it->place;
}

const std::vector<start_index::sender_entry>* start_index::entries_of(
    std::string_view sender) const {
    const auto it = senders_.find(sender);
    if (it == senders_.end() || it->second.empty()) return nullptr;
    return &it->second;
}

sender_span start_index::to_sender_span(const sender_entry& e) const {
    return {spans_[e.span_seq - base_seq_].place, e.objects_before, e.objects};
}

std::optional<sender_span> start_index::last_span_of(std::string_view sender,
                                                     std::uint64_t limit) const {
    const auto* entries = entries_of(sender);
    if (!entries) return std::nullopt;
    const auto it =
        std::partition_point(entries->begin(), entries->end(), [&](const sender_entry& e) {
            return spans_[e.span_seq - base_seq_].place.first_offset < limit;
        });
    if (it == entries->begin()) return std::nullopt;
    return to_sender_span(*std::prev(it));
}

std::optional<sender_span> start_index::span_of_rank(std::string_view sender,
                                                     std::uint64_t rank) const {
    const auto* entries = entries_of(sender);
    if (!entries) return std::nullopt;
    auto it = std::partition_point(entries->begin(), entries->end(), [&](const sender_entry& e) {
        return e.objects_before + e.objects <= rank;
    });
    if (it == entries->end()) it = std::prev(it);
    return to_sender_span(*it);
}

std::size_t start_index::memory_bytes() const {
    return spans_.size() * span_record_bytes + sender_records_ * sender_record_bytes + id_bytes_;
}

}  // namespace objwire::daemon
