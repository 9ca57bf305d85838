#include "daemon/store/journal_reader.hpp"

namespace objwire::daemon {

journal_reader::journal_reader(std::filesystem::path dir, std::uint64_t from_offset)
    : dir_(std::move(dir)), from_(from_offset) {
    std::error_code ec;
    segments_ = list_segments(dir_, ec);
    if (ec) {
        fail(ec, dir_.string());
        return;
    }
    if (segments_.empty()) {
        done_ = true;
        return;
    }
    // Start in the last segment that begins at or before the offset asked for.
    for (std::size_t i = 0; i < segments_.size() && segments_[i].first_offset <= from_; ++i)
        segment_ = i;
    first_offset_ = std::max(from_, segments_.front().first_offset);
}

bool journal_reader::fail(std::error_code ec, const std::string& where) {
    error_ = ec;
    detail_ = where + ": " + ec.message();
    done_ = true;
    return false;
}

void journal_reader::add_gap(const offset_gap& lost, std::string where) {
    if (lost.end <= from_ || lost.end <= lost.first) return;
    gaps_.push_back({lost, std::move(where)});
}

bool journal_reader::next(message& out) {
    while (next_ >= pending_.size()) {
        if (done_ || !load_block()) return false;
    }
    out = std::move(pending_[next_]);
    offset_ = pending_first_ + next_;
    ++next_;
    block_ = pending_block_;
    sender_id_ = pending_sender_;
    return true;
}

bool journal_reader::load_block() {
    for (;;) {
        if (!opened_ && !open_segment()) return false;
        journal_block_view b;
        const auto st = reader_.next(b);
        std::optional<bool> loaded;
        switch (st) {
            case segment_reader::status::block:
                loaded = take_block(b);
                break;
            case segment_reader::status::end:
            case segment_reader::status::bad:
                loaded = end_of_segment(st == segment_reader::status::bad);
                break;
            case segment_reader::status::io_error:
                return fail(reader_.error(), position_text());
        }
        if (loaded) return *loaded;
    }
}

bool journal_reader::open_segment() {
    if (segment_ >= segments_.size()) {
        done_ = true;
        return false;
    }
    const auto& seg = segments_[segment_];
    if (auto ec = reader_.open(seg.path, seg.first_offset)) return fail(ec, seg.path.string());
    opened_ = true;
    return true;
}

std::optional<bool> journal_reader::take_block(const journal_block_view& b) {
    if (b.end_offset() <= from_) return std::nullopt;  // verified, not decoded
    pending_.clear();
    next_ = 0;
    if (auto ec = decode_journal_block(b, [&](message&& m) { pending_.push_back(std::move(m)); }))
        return fail(ec, position_text());
    pending_first_ = b.header.first_offset;
    if (from_ > pending_first_) next_ = static_cast<std::size_t>(from_ - pending_first_);
    pending_block_ = b.header;
    pending_sender_ = std::string(b.sender_id);
    return true;
}

std::optional<bool> journal_reader::end_of_segment(bool bad) {
    const bool last = segment_ + 1 == segments_.size();
    bool damaged_end = false;
    if (bad || reader_.leftover() > 0) {
        const auto why = position_text() + ": " + reader_.error().message();
        if (reader_.skip_damage()) {
            add_gap(reader_.lost(), why);
            return std::nullopt;
        }
        if (reader_.error().category() == std::generic_category())
            return fail(reader_.error(), position_text());
        if (last && !bad) {
            tail_bytes_ = reader_.leftover();
        } else if (last) {
            return fail(reader_.error(), position_text());
        } else {
            // Damage to the end of a closed segment: lost up to the next one.
            damaged_end = true;
            add_gap({reader_.next_offset(), segments_[segment_ + 1].first_offset,
                     reader_.position(), 0},
                    why);
        }
    }
    if (!last && !check_continued(damaged_end)) return false;
    reader_.close();
    opened_ = false;
    ++segment_;
    return std::nullopt;
}

bool journal_reader::check_continued(bool damaged_end) {
    const auto& seg = segments_[segment_];
    const auto& next = segments_[segment_ + 1];
    if (next.first_offset < reader_.next_offset())
        return fail(journal_errc::offset_gap, next.path.filename().string() + " overlaps " +
                                                  seg.path.filename().string() +
                                                  " (its messages end at offset " +
                                                  std::to_string(reader_.next_offset()) + ")");
    if (!damaged_end)
        add_gap({reader_.next_offset(), next.first_offset, 0, 0},
                next.path.filename().string() + " does not continue " +
                    seg.path.filename().string() + " (a segment file is missing)");
    return true;
}

std::string journal_reader::position_text() const {
    return segments_[segment_].path.filename().string() + " at position " +
           std::to_string(reader_.position());
}

}  // namespace objwire::daemon
