#include "daemon/store/journal_cursor.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace objwire::daemon {
namespace {
constexpr std::size_t read_chunk = 256 * 1024;
}

journal_cursor::journal_cursor(std::filesystem::path dir, std::uint64_t from,
                               std::optional<block_place> start)
    : dir_(std::move(dir)), from_(from), start_(start) {
    if (start_ && start_->first_offset > from_) start_.reset();
}

journal_cursor::~journal_cursor() {
    close_segment();
}

void journal_cursor::close_segment() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    buf_.clear();
    pos_ = 0;
    buf_file_ = 0;
    eof_ = false;
}

void journal_cursor::finish_segment() {
    close_segment();
    segment_done_ = true;
}

journal_cursor::status journal_cursor::fail(std::error_code ec, std::string detail) {
    error_ = ec;
    detail_ = std::move(detail) + ": " + ec.message();
    close_segment();
    return status::error;
}

void journal_cursor::set_gap(std::uint64_t first, std::uint64_t end, std::string detail,
                             bool retention) {
    gap_ = {first, end, 0, 0};
    gap_detail_ = std::move(detail);
    gap_by_retention_ = retention;
    gap_pending_ = true;
}

const segment_info* journal_cursor::pick_next(const std::vector<segment_info>& segments,
                                              std::uint64_t offset) {
    if (offset < segments.front().first_offset &&
        (!segment_done_ || segments.front().first_offset > segment_first_)) {
        // Retention deleted what this reader had not read yet: the reader learns it as a gap.
        const auto& front = segments.front();
        skipped_ += front.first_offset - offset;
        set_gap(offset, front.first_offset,
                "retention deleted offsets " + std::to_string(offset) + " to " +
                    std::to_string(front.first_offset - 1) + " before this reader read them",
                true);
        return &front;
    }
    for (const auto& s : segments) {
        if (s.first_offset < offset || (segment_done_ && s.first_offset <= segment_first_))
            continue;
        if (s.first_offset > offset)
            set_gap(offset, s.first_offset,
                    s.path.filename().string() + " is the next segment after offset " +
                        std::to_string(offset) + " (a segment file is missing, empty or damaged)",
                    false);
        return &s;
    }
    return nullptr;
}

// Opens the segment whose first message is `offset` (at the start: the one holding from_), or
// after the segment read to its end, the next one (the offsets up to it are a gap).
// False with no error when the journal has no segment yet.
bool journal_cursor::open_segment_holding(std::uint64_t offset, std::uint64_t limit) {
    std::error_code ec;
    const auto segments = list_segments(dir_, ec);
    if (ec) {
        fail(ec, dir_.string());
        return false;
    }
    if (segments.empty()) return false;
    const segment_info* pick = nullptr;
    if (!started_) {
        pick = &segments.front();
        for (const auto& s : segments)
            if (s.first_offset <= from_) pick = &s;
    } else {
        pick = pick_next(segments, offset);
        if (!pick && damage_) {
            fail(damage_, damage_where_);
            return false;
        }
        if (!pick && segment_done_ && segments.back().first_offset == segment_first_ &&
            offset < limit)
            return resume_after_cut(segments.back(), offset, limit);
        if (!pick) {
            fail(journal_errc::offset_gap,
                 dir_.string() + ": no segment holds offset " + std::to_string(offset));
            return false;
        }
    }
    fd_ = ::open(pick->path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) {
        // Deleted by retention between listing and opening: the next call lists again.
        if (errno == ENOENT && started_) return true;
        fail({errno, std::generic_category()}, pick->path.string());
        return false;
    }
    segment_ = pick->path;
    segment_first_ = pick->first_offset;
    segment_done_ = false;
    damage_.clear();
    damage_where_.clear();
    walker_ = journal_walker(pick->first_offset);
    if (!started_ && start_ && start_->segment_first == pick->first_offset) {
        // The blocks before the start's need not be read to be skipped.
        buf_file_ = start_->position;
        walker_.resume_at(start_->position, start_->first_offset);
    }
    started_ = true;
    return true;
}

bool journal_cursor::resume_after_cut(const segment_info& last, std::uint64_t offset,
                                      std::uint64_t limit) {
    fd_ = ::open(last.path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) {
        fail({errno, std::generic_category()}, last.path.string());
        return false;
    }
    const std::uint64_t at = walker_.position();
    set_gap(offset, limit,
            last.path.filename().string() + " at position " + std::to_string(at) +
                ": its blocks end at offset " + std::to_string(offset) +
                ", the journal goes on at " + std::to_string(limit) + " (offsets cut by a repair)",
            false);
    gap_.position = at;
    segment_done_ = false;
    buf_file_ = at;
    walker_.resume_at(at, limit);
    return true;
}

bool journal_cursor::fill(std::size_t need) {
    if (pos_ > 0) {
        buf_.consume_front(pos_);
        buf_file_ += pos_;
        pos_ = 0;
    }
    while (buf_.size() < need) {
        const std::size_t want = std::max(read_chunk, need - buf_.size());
        std::uint8_t* p = buf_.prepare(want);
        const ssize_t n = ::pread(fd_, p, want, static_cast<off_t>(buf_file_ + buf_.size()));
        if (n < 0) {
            if (errno == EINTR) continue;
            error_ = {errno, std::generic_category()};
            return false;
        }
        if (n == 0) {
            eof_ = true;
            return false;
        }
        buf_.commit(static_cast<std::size_t>(n));
    }
    return true;
}

std::size_t journal_cursor::release_buffer(keep what) {
    const std::size_t ahead = buf_.size() - pos_;
    // A buffer of a chunk and the part of a block before it is the usual size: kept.
    if (what == keep::read_ahead && ahead > 0 && buf_.capacity() <= 2 * read_chunk) return 0;
    const std::size_t had = buf_.capacity();
    byte_buffer kept;
    if (what == keep::read_ahead && ahead > 0) {
        kept.reserve_exact(ahead);
        kept.append(buf_.span().subspan(pos_));
    } else {
        eof_ = false;  // what was read to the file's end is read again
    }
    // buf_[0] is to be the first byte not handed out, as after fill() moves it to the front.
    buf_file_ += pos_;
    pos_ = 0;
    buf_ = std::move(kept);
    return had - std::min(had, buf_.capacity());
}

bool journal_cursor::skip_damage(std::uint64_t limit, bool offset_jump, std::error_code why) {
    struct stat st {};
    if (::fstat(fd_, &st) != 0) return false;
    const std::uint64_t at = buf_file_ + pos_;
    std::error_code ec;
    const auto found =
        find_intact_block(fd_, offset_jump ? at : at + 1, static_cast<std::uint64_t>(st.st_size),
                          walker_.next_offset(), ec);
    if (!found || found->first_offset >= limit) return false;
    gap_ = {walker_.next_offset(), found->first_offset, at, found->position - at};
    gap_by_retention_ = false;
    gap_detail_ =
        segment_.filename().string() + " at position " + std::to_string(at) + ": " + why.message();
    buf_.clear();
    pos_ = 0;
    buf_file_ = found->position;
    eof_ = false;
    walker_.resume_at(found->position, found->first_offset);
    return true;
}

journal_cursor::status journal_cursor::next(std::uint64_t limit, journal_block_view& view,
                                            std::span<const std::uint8_t>& bytes) {
    bool reread = false;  // the bytes at pos_ were read again from the file once
    for (;;) {
        if (const auto stop = before_next_block(limit)) return *stop;
        const auto s = walker_.next(buf_.span().subspan(pos_), eof_);
        std::optional<status> out;
        switch (s.what) {
            case journal_walk::need_more:
                out = after_short_block(s);
                break;
            case journal_walk::end:
                finish_segment();
                break;
            case journal_walk::torn_tail:
                out = after_torn_tail(limit, s);
                break;
            case journal_walk::damaged:
            case journal_walk::offset_jump:
                out = after_bad_block(limit, s, reread);
                break;
            case journal_walk::block:
                out = take_block(s, view, bytes, reread);
                break;
        }
        if (out) return *out;
    }
}

std::optional<journal_cursor::status> journal_cursor::before_next_block(std::uint64_t limit) {
    for (;;) {
        if (gap_pending_) {
            gap_pending_ = false;
            if (gap_.end > from_) return status::gap;
        }
        if (limit == 0 || (started_ && walker_.next_offset() >= limit)) return status::caught_up;
        if (fd_ >= 0) return std::nullopt;
        // Opening the segment that holds the next offset may find a gap before it.
        if (!open_segment_holding(walker_.next_offset(), limit))
            return error_ ? status::error : status::caught_up;
    }
}

std::optional<journal_cursor::status> journal_cursor::after_short_block(
    const journal_walk_step& s) {
    if (fill(s.size) || !error_) return std::nullopt;  // at the file's end the walker decides
    return fail(error_, position_text());
}

std::optional<journal_cursor::status> journal_cursor::after_torn_tail(std::uint64_t limit,
                                                                      const journal_walk_step& s) {
    // Below the durable limit every block is whole: the segment's end is a rotation, and a
    // partial block is damage (the offsets up to the next segment are lost).
    if (skip_damage(limit, false, s.error)) return gap_if_asked_for();
    finish_segment();
    return std::nullopt;
}

std::optional<journal_cursor::status> journal_cursor::after_bad_block(std::uint64_t limit,
                                                                      const journal_walk_step& s,
                                                                      bool& reread) {
    // Bytes read ahead of the durable limit may have been an append that failed and was cut:
    // read them again before calling the journal bad.
    if (!reread) {
        reread = true;
        buf_.resize(pos_);
        eof_ = false;
        return std::nullopt;
    }
    const bool jump = s.what == journal_walk::offset_jump;
    if (skip_damage(limit, jump, s.error)) return gap_if_asked_for();
    // Nothing intact after it in this segment: a later segment goes on, the offsets up to it
    // a gap. So too a whole block numbered below its place (a segment renamed): whatever the
    // file's name says, what it cannot hold in order is lost. With no later segment the
    // journal cannot be read on, and this is the reason.
    damage_ = s.error;
    damage_where_ = position_text();
    finish_segment();
    return std::nullopt;
}

std::optional<journal_cursor::status> journal_cursor::take_block(
    const journal_walk_step& s, journal_block_view& view, std::span<const std::uint8_t>& bytes,
    bool& reread) {
    bytes = s.bytes;
    view = s.block;
    pos_ += s.size;
    reread = false;
    if (view.end_offset() <= from_) return std::nullopt;  // before the start asked for
    return status::block;
}

std::optional<journal_cursor::status> journal_cursor::gap_if_asked_for() const {
    if (gap_.end > from_) return status::gap;
    return std::nullopt;
}

std::string journal_cursor::position_text() const {
    return segment_.filename().string() + " at position " + std::to_string(buf_file_ + pos_);
}

}  // namespace objwire::daemon
