// When the journal syncs under `fsync = interval` (docs/JOURNAL.md 3): the interval bounds how
// long written data waits for its sync, measured from the write. A sync starts as soon as the
// last one started an interval ago, and at the latest when the oldest write not yet synced has
// waited the interval less what a sync takes - so a write is durable about an interval after it
// arrived, not an interval after the last sync plus the next sync's own time, and a steady
// stream still syncs about once per interval.
//
// What a sync takes is a running estimate of the recent syncs, each counted from when it was
// due (a sync thread that woke late on a busy machine delays the acknowledgements as much as a
// slow disk) to when it finished: it rises at once to a longer sync (a late acknowledgement
// costs more than an early sync) and comes down an eighth of the way to a shorter one, capped
// at a quarter of the interval, so that a slow disk cannot make syncs follow each other without
// pause: they start at least three quarters of an interval apart. No clock of its own: the
// caller says when, so tests run on made-up times.
#pragma once

#include <algorithm>
#include <chrono>
#include <optional>

namespace objwire::daemon {

class sync_schedule {
  public:
    using clock = std::chrono::steady_clock;

    explicit sync_schedule(clock::duration interval) : interval_(interval) {}

    // A write was appended at `now`: the first since the last sync started sets the deadline.
    void written(clock::time_point now) {
        if (!oldest_write_) oldest_write_ = now;
    }
    // A sync started at `now`, covering every write so far.
    void sync_started(clock::time_point now) {
        const auto was_due = due();
        counted_from_ = was_due ? std::min(now, *was_due) : now;
        oldest_write_.reset();
        last_start_ = now;
    }
    // The sync started last finished at `now`: its length, from when it was due, feeds the
    // estimate.
    void sync_finished(clock::time_point now) { learn(now - counted_from_); }

    // When the next sync is due (now or earlier: at once), or nullopt when nothing was written
    // since the last sync started.
    std::optional<clock::time_point> due() const {
        if (!oldest_write_) return std::nullopt;
        if (!last_start_) return oldest_write_;  // the first sync: nothing to pace it against
        const auto latest = *oldest_write_ + interval_ - estimate();
        const auto paced = std::max(*oldest_write_, *last_start_ + interval_);
        return std::min(latest, paced);
    }
    // What a sync is expected to take, within cap().
    clock::duration estimate() const { return std::min(estimate_, cap()); }
    clock::duration cap() const { return interval_ / 4; }

  private:
    void learn(clock::duration took) {
        if (took >= estimate_)
            estimate_ = took;
        else
            estimate_ -= (estimate_ - took) / 8;
    }

    clock::duration interval_;
    clock::duration estimate_{0};
    std::optional<clock::time_point> oldest_write_;  // since the last sync started
    std::optional<clock::time_point> last_start_;
    clock::time_point counted_from_;  // the last sync's start, or when it was due if earlier
};

}  // namespace objwire::daemon
