// objwired's durable store: an append-only log of journal blocks (proto/journal_block.hpp) in
// segment files of the data directory, numbered by message offset. Sessions append whole
// blocks - one write each - from any thread; a background thread makes them durable with
// fdatasync as the fsync policy says and tells each append when it is (group commit: one sync
// covers every block written before it). Opening a journal recovers it: the last segment is
// verified block by block and a torn tail is cut off and logged. Retention deletes whole old
// segments. The byte layout and the rules are in docs/JOURNAL.md.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <vector>

#include "daemon/store/data_dir_lock.hpp"
#include "daemon/store/journal_checkpoint.hpp"
#include "daemon/store/journal_segments.hpp"
#include "daemon/store/start_index.hpp"
#include "daemon/store/sync_schedule.hpp"

namespace objwire::daemon {

enum class fsync_policy {
    always,    // every append is synced before it counts as durable (group commit)
    interval,  // an append is durable about fsync_interval after it was written, by a sync
               // shared with every append around it (daemon/store/sync_schedule.hpp)
    never,     // durable once written (the kernel's page cache); a crash of the machine may lose
               // what the last seconds wrote, a crash of objwired loses nothing
};
std::optional<fsync_policy> parse_fsync_policy(std::string_view text);
std::string_view to_string(fsync_policy p);

struct journal_options {
    std::filesystem::path dir;
    fsync_policy fsync = fsync_policy::interval;
    std::chrono::milliseconds fsync_interval{100};
    // Policy interval: also sync once this many bytes wait, so that senders' windows, not the
    // interval, bound throughput (a window of W bytes moves at most W per interval).
    std::uint64_t fsync_bytes = 4ull << 20;
    std::uint64_t segment_bytes = 64ull << 20;  // a segment is closed before it would pass this
    std::uint64_t retention_bytes = 0;          // total size kept; 0 keeps everything
    std::chrono::seconds retention_age{0};      // age of a closed segment; 0 keeps forever
    // Makes a segment file's data durable; fdatasync unless a test counts calls.
    std::function<int(int fd)> sync;
    // The time for block stamps and retention by age; system_clock::now unless a test moves it.
    std::function<std::chrono::system_clock::time_point()> clock;
    // Recovery may accept the loss of synced data (docs/JOURNAL.md 4): it keeps a copy of
    // what it cuts, records the lost offsets as a gap and numbers on after them. Without it,
    // opening a journal that lost synced data fails (synced_data_lost).
    bool repair = false;
};

// Why opening a journal failed beyond an errno: the log says the details.
enum class journal_open_errc {
    synced_data_lost = 1,  // the sync checkpoint covers offsets the files no longer hold
    segments_overlap,      // a segment's blocks run into the next segment's offsets
    locked,                // another process holds the data directory's lock
    offset_out_of_range,   // the gap log or checkpoint names an offset past max_journal_offset
    end_unproven,          // both checkpoint files are gone from a journal holding data
};
std::error_code make_error_code(journal_open_errc e) noexcept;

// What opening the journal found in the last segment.
struct journal_recovery {
    std::filesystem::path segment;
    std::uint64_t blocks = 0;     // whole, verified blocks kept
    std::uint64_t messages = 0;   // messages in them
    std::uint64_t cut_at = 0;     // file position of the first bad block
    std::uint64_t cut_bytes = 0;  // bytes removed from there to the end (0: nothing was wrong)
    std::error_code reason;       // why the first cut block was bad (a journal_errc)
    // Set when the cut did not look like a torn append (a bad block with data after it) or
    // cut synced data (a repair): the cut bytes were kept in this file for inspection.
    std::filesystem::path saved_to;
    // Offsets lost to damage found at this start (not counting gaps recorded before).
    std::vector<offset_gap> new_gaps;
    bool repaired = false;           // synced data was found lost and the loss accepted
    std::uint64_t files_synced = 0;  // segment files synced before the journal took appends
};

struct journal_gap_stats {
    std::uint64_t gaps = 0;          // ranges of lost offsets known (the gap log)
    std::uint64_t lost_offsets = 0;  // offsets in them
    std::uint64_t repairs = 0;       // recoveries that accepted lost synced data (this start)
};

// The journal's files as they stand, for the metrics: kept up to date by appends, rotation,
// retention and recovery, so reading them costs no file system call.
struct journal_disk_stats {
    std::uint64_t bytes = 0;               // the segment files' sizes
    std::uint64_t segments = 0;            // segment files, the open one included
    std::uint64_t first_offset = 0;        // the oldest segment's first offset
    std::uint64_t next_offset = 0;         // the offset the next append gets
    std::uint64_t durable_offset = 0;      // offsets below it are durable
    std::uint64_t retention_segments = 0;  // segments retention deleted since the start
    std::uint64_t retention_bytes = 0;     // their bytes
};

class journal {
  public:
    // Called once per append: with no error when it is durable under the policy, or with the
    // error that made the journal fail. Runs on the appending thread (policy never) or on the
    // journal's sync thread: keep it short (post to an executor).
    using durable_handler = std::function<void(std::error_code)>;

    // Creates the directory if needed, recovers the last segment, starts the sync thread.
    static std::unique_ptr<journal> open(journal_options options, std::error_code& ec);
    ~journal();
    journal(const journal&) = delete;
    journal& operator=(const journal&) = delete;

    // Appends one finished block (journal_block_writer::finish()) with one write, after giving
    // it its first offset. Returns the offset after the block, or why nothing was stored; on
    // success on_durable runs exactly once later (or before append returns, policy never).
    // Thread-safe.
    std::uint64_t append(std::span<std::uint8_t> block, durable_handler on_durable,
                         std::error_code& ec);

    // Makes everything appended so far durable now, whatever the policy, and waits for it.
    std::error_code sync();
    // As sync(), without waiting: a sender that finished is acknowledged without waiting out
    // the interval.
    void request_sync();
    // Something else made durable by the journal's syncs (the named cursors' staged positions,
    // daemon/store/cursor_store.hpp): `rider` runs on the sync thread after each sync that
    // follows a rider_written(), once that sync's appends are acknowledged.
    void set_sync_rider(std::function<void()> rider);
    // The rider has something to make durable: a sync is due as for an append (policy
    // interval: within fsync_interval; always: at once). False when no sync will run it
    // (policy never, no rider, a failed or closing journal): the caller makes it durable.
    bool rider_written();
    // Deletes closed segments beyond retention_bytes or older than retention_age (the open
    // segment always stays). Returns how many were deleted. Also runs after each rotation
    // and every minute on the sync thread.
    std::size_t enforce_retention();
    // Final sync (unless policy never), completes every waiter, stops the sync thread.
    // Appends fail afterwards. The destructor closes too.
    void close();

    std::uint64_t next_offset() const;
    std::uint64_t durable_offset() const;
    std::uint64_t syncs() const;  // calls of the sync function so far
    std::vector<segment_info> segments() const;
    journal_disk_stats disk_stats() const;
    const journal_recovery& recovery() const { return recovery_; }
    journal_gap_stats gap_stats() const;
    // Records offsets found lost (by recovery, or by a reader meeting damage in a closed
    // segment): logged as an error and appended to the gap log the first time, a warning when
    // the gap log already holds them. `where` names the file and position.
    void note_gap(const offset_gap& gap, const std::string& where);
    const journal_options& options() const { return options_; }
    std::string describe() const;

    // Readers that follow the journal (daemon/roles/reader_service.cpp) learn here when more of it
    // is durable: `listener(durable_offset)` runs each time the durable offset advances, on
    // the thread that advanced it, outside the journal's lock - keep it short (post to an
    // executor). After unsubscribe(id) returns it is never called again. With no listener the
    // append path pays one atomic load.
    using durable_listener = std::function<void(std::uint64_t durable_offset)>;
    std::uint64_t subscribe(durable_listener listener);
    void unsubscribe(std::uint64_t id);

    // The start index (daemon/store/start_index.hpp), built at open from block headers and
    // kept by appends and retention: `use(index)` runs under its lock - keep it short. It may
    // hold blocks not yet durable; queries take the durable offset as their limit.
    template <class F>
    auto with_start_index(F&& use) const {
        std::lock_guard lock(index_mutex_);
        return use(static_cast<const start_index&>(index_));
    }

  private:
    explicit journal(journal_options options);
    std::error_code recover(std::vector<segment_info> found);
    // The start index from the recovered segments' block headers.
    std::error_code build_start_index();
    // With mutex_ held: the block just written at `position` of the open segment.
    void index_block(std::span<const std::uint8_t> block, std::uint64_t position);
    std::error_code check_end_provable(const checkpoint_records& records,
                                       const std::vector<segment_info>& found) const;
    std::error_code check_closed_segments();
    std::error_code recover_open_segment(const std::optional<sync_checkpoint>& checkpoint);
    // recover_open_segment()'s steps: the last segment read through (its blocks and gaps
    // recorded); whether synced data is lost (`lost`; an error unless repairing); the bytes
    // after its last good block cut, kept aside unless a torn write explains them.
    std::error_code walk_open_segment(segment_reader& reader);
    std::error_code check_synced_end(const std::optional<sync_checkpoint>& checkpoint,
                                     std::uint64_t found_end, bool& lost);
    std::error_code cut_open_segment_tail(const segment_reader& reader, bool lost);
    std::error_code sync_recovered();
    bool gap_known(const offset_gap& gap) const;
    std::uint64_t known_gap_end() const;
    std::error_code open_segment(std::uint64_t first_offset, bool create);
    std::error_code rotate();
    void sync_loop();
    // With mutex_ held: when the next sync is due (time_point::min(): now), or nullopt when
    // there is nothing the policy syncs.
    std::optional<std::chrono::steady_clock::time_point> next_sync_at() const;
    // Syncs what was appended and rotated so far, the lock released meanwhile.
    void sync_once(std::unique_lock<std::mutex>& lock);
    // A sync reached `target`: sync() requests up to `serving` and the waiters it covers are
    // answered, the listeners told.
    void complete_sync(std::unique_lock<std::mutex>& lock, std::uint64_t target,
                       std::uint64_t serving);
    void fail(std::error_code ec, std::unique_lock<std::mutex>& lock);
    void notify_listeners(std::uint64_t durable_offset);
    int run_sync(int fd);
    std::error_code advance_checkpoint(const sync_checkpoint& reached,
                                       std::chrono::steady_clock::time_point now, bool final_sync);

    struct waiter {
        std::uint64_t end_offset;
        durable_handler handler;
    };

    journal_options options_;
    journal_recovery recovery_;
    data_dir_lock lock_;
    int dir_fd_ = -1;
    checkpoint_writer checkpoint_;  // written by recovery, then by the sync thread only
    std::chrono::steady_clock::time_point checkpoint_synced_;

    mutable std::mutex gaps_mutex_;
    std::vector<recorded_gap> known_gaps_;
    std::uint64_t repairs_ = 0;

    mutable std::mutex mutex_;
    // One retention pass at a time, deletions included: a pass that finds nothing to do
    // returns only once the files another pass took are gone.
    std::mutex retention_mutex_;
    std::condition_variable wake_sync_;   // work for the sync thread
    std::condition_variable synced_;      // a sync finished (sync() waits on it)
    int fd_ = -1;                         // the open segment
    std::vector<segment_info> segments_;  // oldest first; the last is the open one
    std::vector<int> closed_fds_;         // rotated segments, synced (per policy) then closed
    bool dir_dirty_ = false;              // a segment was created since the last sync
    std::function<void()> rider_;         // set_sync_rider
    bool rider_dirty_ = false;            // rider_written since the last sync started
    std::uint64_t next_offset_ = 0;
    std::uint64_t durable_offset_ = 0;
    std::uint64_t disk_bytes_ = 0;  // the sum of segments_' bytes
    std::uint64_t retention_segments_ = 0;
    std::uint64_t retention_bytes_ = 0;
    std::uint64_t unsynced_bytes_ = 0;     // appended since the last sync started
    sync_schedule sync_schedule_;          // policy interval: when the next sync is due
    std::atomic<std::uint64_t> syncs_{0};  // counted where the sync runs, outside the lock
    std::uint64_t sync_requested_ = 0;     // sync() calls so far
    std::uint64_t sync_served_ = 0;        // of them, served by a finished sync
    std::deque<waiter> waiters_;           // ordered by end_offset
    std::error_code failed_;
    bool retention_due_ = false;
    bool stopping_ = false;
    bool closed_ = false;
    std::thread sync_thread_;

    // Taken inside mutex_ (appends, retention) or alone (readers' starts).
    mutable std::mutex index_mutex_;
    start_index index_;

    // Separate from mutex_ so that followers never hold up appends and syncs.
    std::mutex listeners_mutex_;
    std::vector<std::pair<std::uint64_t, durable_listener>> listeners_;
    std::uint64_t next_listener_id_ = 0;
    std::atomic<bool> has_listeners_{false};
};

// Tests make appends fail as a full disk would (docs/SECURITY.md): while `fault` returns an
// error, every append fails with it before writing, exactly as a failed write does. Empty
// function: off. Process-wide, for in-process daemons.
struct journal_testing {
    static void inject_write_fault(std::function<std::error_code()> fault);
};

}  // namespace objwire::daemon

template <>
struct std::is_error_code_enum<objwire::daemon::journal_open_errc> : std::true_type {};
