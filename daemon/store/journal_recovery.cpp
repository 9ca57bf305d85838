// Opening a journal (docs/JOURNAL.md 4): the cheap check of closed segments, the open
// segment verified block by block (damage in the middle costs the damaged block only, a torn
// tail is cut), the sync checkpoint compared with what the files hold, and everything kept
// synced before the journal takes its first append.
#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "daemon/store/journal.hpp"
#include "daemon/store/journal_check.hpp"

namespace objwire::daemon {
namespace {

std::error_code last_errno() {
    return {errno, std::generic_category()};
}

class journal_open_category final : public std::error_category {
  public:
    const char* name() const noexcept override { return "objwire.journal_open"; }
    std::string message(int ev) const override {
        switch (static_cast<journal_open_errc>(ev)) {
            case journal_open_errc::synced_data_lost:
                return "the journal lost synced data (start with --repair-journal to accept it)";
            case journal_open_errc::segments_overlap:
                return "journal segments overlap";
            case journal_open_errc::locked:
                return "the data directory is locked by another process";
            case journal_open_errc::end_unproven:
                return "the journal's end cannot be proven (start with --repair-journal to "
                       "accept it)";
            case journal_open_errc::offset_out_of_range:
                return "the journal's records name an offset past the largest one it gives out";
        }
        return "objwire.journal_open error " + std::to_string(ev);
    }
};

// Reads [from, to) of a file in chunks: whether it is all zero bytes (what a file system can
// leave of unsynced appends after a power loss), and optionally a copy into another file.
std::error_code inspect_tail(const std::filesystem::path& path, std::uint64_t from,
                             std::uint64_t to, const std::filesystem::path* copy_to,
                             bool& all_zero) {
    all_zero = true;
    const int in = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (in < 0) return last_errno();
    int out = -1;
    if (copy_to) {
        out = ::open(copy_to->c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (out < 0) {
            auto ec = last_errno();
            ::close(in);
            return ec;
        }
    }
    std::error_code ec;
    std::vector<std::uint8_t> chunk(1 << 20);
    for (std::uint64_t at = from; at < to && !ec;) {
        const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(chunk.size(), to - at));
        const std::size_t n = read_at(in, chunk.data(), want, at, ec);
        if (ec || n == 0) break;
        const std::span<const std::uint8_t> got(chunk.data(), n);
        for (auto b : got)
            all_zero = all_zero && b == 0;
        if (out >= 0) ec = write_all_at(out, got, at - from);
        at += got.size();
    }
    if (out >= 0 && !ec && ::fsync(out) != 0) ec = last_errno();
    if (out >= 0) ::close(out);
    ::close(in);
    return ec;
}

std::string gap_text(const offset_gap& g) {
    return g.end - g.first == 1
               ? "offset " + std::to_string(g.first)
               : "offsets " + std::to_string(g.first) + " to " + std::to_string(g.end - 1);
}

}  // namespace

std::error_code make_error_code(journal_open_errc e) noexcept {
    static const journal_open_category category;
    return {static_cast<int>(e), category};
}

// Whether the recorded gaps, together, cover the whole range.
bool journal::gap_known(const offset_gap& gap) const {
    std::uint64_t covered = gap.first;
    for (bool grew = true; grew && covered < gap.end;) {
        grew = false;
        for (const auto& g : known_gaps_) {
            if (g.first <= covered && g.end > covered) {
                covered = g.end;
                grew = true;
            }
        }
    }
    return covered >= gap.end;
}

std::uint64_t journal::known_gap_end() const {
    std::lock_guard lock(gaps_mutex_);
    std::uint64_t end = 0;
    for (const auto& g : known_gaps_)
        end = std::max(end, g.end);
    return end;
}

void journal::note_gap(const offset_gap& gap, const std::string& where) {
    if (gap.end <= gap.first) return;
    std::lock_guard lock(gaps_mutex_);
    if (gap_known(gap)) {
        spdlog::warn("journal: {}: {} lost (a known gap, in {})", where, gap_text(gap),
                     gap_log_file_name);
        return;
    }
    spdlog::error(
        "journal: {}: {} lost; the blocks after it are kept in place and no offset is given "
        "out again",
        where, gap_text(gap));
    recorded_gap g{gap.first, gap.end, where};
    if (auto ec = append_gap_log(options_.dir, g))
        spdlog::error("journal: cannot record the gap in {}: {}",
                      (options_.dir / gap_log_file_name).string(), ec.message());
    known_gaps_.push_back(std::move(g));
}

journal_gap_stats journal::gap_stats() const {
    std::lock_guard lock(gaps_mutex_);
    journal_gap_stats s;
    s.gaps = known_gaps_.size();
    for (const auto& g : known_gaps_)
        s.lost_offsets += g.end - g.first;
    s.repairs = repairs_;
    return s;
}

// Cheap, for every closed segment; a segment that fails it gets the full check.
std::error_code journal::check_closed_segments() {
    for (std::size_t i = 0; i + 1 < segments_.size(); ++i) {
        const auto& seg = segments_[i];
        segment_findings f;
        if (auto ec = check_closed_segment(seg, segments_[i + 1].first_offset, false, f)) {
            spdlog::error("journal: cannot check {}: {}", seg.path.string(), ec.message());
            return ec;
        }
        if (f.overlap) {
            spdlog::error("journal: {}: {}; refusing to start (offsets would be ambiguous)",
                          seg.path.string(), f.damage);
            return journal_open_errc::segments_overlap;
        }
        if (!f.damage.empty()) spdlog::error("journal: {}: {}", seg.path.string(), f.damage);
        for (const auto& g : f.gaps) {
            recovery_.new_gaps.push_back(g);
            note_gap(g,
                     seg.path.filename().string() + " at position " + std::to_string(g.position));
        }
    }
    return {};
}

// Without either checkpoint file a cut of the open segment cannot be told from a torn tail,
// and offsets lost there would be given out again: the start refuses, unless repairing.
std::error_code journal::check_end_provable(const checkpoint_records& records,
                                            const std::vector<segment_info>& found) const {
    const bool holds_data =
        std::any_of(found.begin(), found.end(), [](const auto& s) { return s.bytes > 0; });
    if (records.any_file && records.missing.find(checkpoint_file_name) == 0)
        spdlog::warn("journal: {} is missing: {} proves how far the journal was synced",
                     (options_.dir / checkpoint_file_name).string(), checkpoint_copy_file_name);
    if (records.any_file || !holds_data) return {};
    if (!options_.repair) {
        spdlog::error(
            "journal: {}: {} and {} are both missing: a loss at the end of the open segment "
            "cannot be told from a torn tail, and new objects could take lost offsets; "
            "refusing to start (--repair-journal opens it at the end the segments show)",
            options_.dir.string(), checkpoint_file_name, checkpoint_copy_file_name);
        return journal_open_errc::end_unproven;
    }
    spdlog::warn(
        "journal: {}: {} and {} are both missing: opened at the end the segments show "
        "(--repair-journal)",
        options_.dir.string(), checkpoint_file_name, checkpoint_copy_file_name);
    return {};
}

std::error_code journal::recover(std::vector<segment_info> found) {
    std::string refused;
    known_gaps_ = read_gap_log(options_.dir, &refused);
    if (!refused.empty()) {
        spdlog::error(
            "journal: {}; refusing to start (offsets would wrap): correct or remove "
            "that line",
            refused);
        return journal_open_errc::offset_out_of_range;
    }
    const auto records = read_checkpoints(options_.dir);
    const auto& checkpoint = records.best;
    if (checkpoint && checkpoint->end_offset > max_journal_offset) {
        spdlog::error(
            "journal: {}: end offset {} is beyond the largest offset a journal gives "
            "out ({}); refusing to start",
            options_.dir.string(), checkpoint->end_offset, max_journal_offset);
        return journal_open_errc::offset_out_of_range;
    }
    if (!records.damaged.empty())
        spdlog::warn("journal: {}: {} damaged{}", options_.dir.string(), records.damaged,
                     checkpoint ? ""
                                : ": cuts of synced data cannot be told from torn appends "
                                  "at this start");
    if (auto ec = check_end_provable(records, found)) return ec;
    if (auto ec = checkpoint_.open(options_.dir)) return ec;
    segments_ = std::move(found);
    if (auto ec = check_closed_segments()) return ec;
    if (auto ec = recover_open_segment(checkpoint)) return ec;
    return sync_recovered();
}

std::error_code journal::recover_open_segment(const std::optional<sync_checkpoint>& checkpoint) {
    const bool fresh = segments_.empty();
    segment_reader reader;
    if (!fresh)
        if (auto ec = walk_open_segment(reader)) return ec;
    const std::uint64_t found_end = fresh ? 0 : reader.next_offset();
    const std::uint64_t end = std::max(found_end, known_gap_end());
    bool lost = false;
    if (auto ec = check_synced_end(checkpoint, found_end, lost)) return ec;
    if (!fresh)
        if (auto ec = cut_open_segment_tail(reader, lost)) return ec;
    if (lost) {
        const offset_gap gap{found_end, checkpoint->end_offset, recovery_.cut_at,
                             recovery_.cut_bytes};
        recovery_.new_gaps.push_back(gap);
        note_gap(gap, "repair: synced data lost at the end of the journal");
    }
    next_offset_ = durable_offset_ = std::max(end, lost ? checkpoint->end_offset : 0);
    if (fresh) {
        auto ec = open_segment(next_offset_, true);
        if (!ec) recovery_.segment = segments_.back().path;
        return ec;
    }
    return open_segment(segments_.back().first_offset, false);
}

std::error_code journal::walk_open_segment(segment_reader& reader) {
    const auto& last = segments_.back();
    recovery_.segment = last.path;
    if (auto ec = reader.open(last.path, last.first_offset)) return ec;
    segment_findings f;
    if (auto ec = walk_segment(reader, f)) return ec;
    recovery_.blocks = f.blocks;
    recovery_.messages = f.messages;
    for (const auto& g : f.gaps) {
        recovery_.new_gaps.push_back(g);
        note_gap(g, last.path.filename().string() + " at position " + std::to_string(g.position));
    }
    return {};
}

std::error_code journal::check_synced_end(const std::optional<sync_checkpoint>& checkpoint,
                                          std::uint64_t found_end, bool& lost) {
    // Synced data lost: the files end before what the checkpoint says was synced, and the
    // offsets between are not a loss accepted before (the gap log).
    lost = checkpoint && checkpoint->end_offset > found_end &&
           !gap_known({found_end, checkpoint->end_offset, 0, 0});
    if (!lost) return {};
    if (!options_.repair) {
        const offset_gap gap{found_end, checkpoint->end_offset, 0, 0};
        spdlog::error(
            "journal: {}: synced data lost: {} ({}) had been synced, but the journal ends "
            "at offset {}. Refusing to start: restore the files, or run objwired once with "
            "--repair-journal to accept the loss (what it cuts is kept aside)",
            options_.dir.string(), gap_text(gap), checkpoint_file_name, found_end);
        return journal_open_errc::synced_data_lost;
    }
    recovery_.repaired = true;
    ++repairs_;
    return {};
}

std::error_code journal::cut_open_segment_tail(const segment_reader& reader, bool lost) {
    auto& last = segments_.back();
    const std::uint64_t keep = reader.good_end();
    if (keep >= last.bytes) return {};
    recovery_.cut_at = keep;
    recovery_.cut_bytes = last.bytes - keep;
    recovery_.reason = reader.error();
    bool all_zero = false;
    if (auto ec = inspect_tail(last.path, keep, last.bytes, nullptr, all_zero)) return ec;
    const bool torn =
        !reader.error() || reader.error() == journal_errc::short_header ||
        reader.error() == journal_errc::short_block || all_zero ||
        (reader.error() == journal_errc::bad_checksum && keep + reader.bad_size() == last.bytes);
    if (!torn || lost) {
        recovery_.saved_to = last.path;
        recovery_.saved_to += (lost ? ".repaired-" : ".corrupt-") + std::to_string(keep);
        if (auto ec = inspect_tail(last.path, keep, last.bytes, &recovery_.saved_to, all_zero))
            return ec;
        spdlog::error(
            "journal: {}: bad block at position {} ({}) with nothing intact after it: "
            "cut {} bytes, kept a copy in {}; {} blocks ({} messages) are kept",
            last.path.string(), keep, recovery_.reason.message(), recovery_.cut_bytes,
            recovery_.saved_to.string(), recovery_.blocks, recovery_.messages);
    } else {
        spdlog::warn(
            "journal: {}: torn tail cut: {} bytes at position {} ({}); {} blocks ({} "
            "messages) kept",
            last.path.string(), recovery_.cut_bytes, keep, recovery_.reason.message(),
            recovery_.blocks, recovery_.messages);
    }
    if (::truncate(last.path.c_str(), static_cast<off_t>(keep)) != 0) return last_errno();
    last.bytes = keep;
    return {};
}

// What recovery keeps may be in the page cache only (written before a crash, never synced):
// it is synced - every segment and the directory - before anything can be acknowledged or a
// resume point announced from it, then the checkpoint says so.
std::error_code journal::sync_recovered() {
    const auto& last = segments_.back();
    if (options_.fsync != fsync_policy::never) {
        for (std::size_t i = 0; i + 1 < segments_.size(); ++i) {
            const int fd = ::open(segments_[i].path.c_str(), O_RDONLY | O_CLOEXEC);
            if (fd < 0) return last_errno();
            const int rc = run_sync(fd);
            ::close(fd);
            if (rc != 0) return last_errno();
            ++recovery_.files_synced;
        }
        if (last.bytes > 0 || recovery_.cut_bytes > 0) {
            if (run_sync(fd_) != 0) return last_errno();
            ++recovery_.files_synced;
        }
        if (::fsync(dir_fd_) != 0) return last_errno();
        if (auto ec = checkpoint_.write({last.first_offset, last.bytes, next_offset_})) return ec;
        if (auto ec = checkpoint_.sync()) return ec;
        checkpoint_synced_ = std::chrono::steady_clock::now();
    }
    dir_dirty_ = false;
    spdlog::info("journal: {} segments, next offset {}, open segment {} ({} bytes){}",
                 segments_.size(), next_offset_, last.path.filename().string(), last.bytes,
                 recovery_.files_synced > 0
                     ? ", " + std::to_string(recovery_.files_synced) + " segment files synced"
                     : std::string());
    return {};
}

}  // namespace objwire::daemon
