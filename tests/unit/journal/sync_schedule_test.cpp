// When `fsync = interval` syncs (daemon/store/sync_schedule.hpp), on made-up times: a write is
// durable about an interval after it arrived, the sync starting early by what syncs take; a
// steady stream syncs about once per interval; a lone write after a quiet spell is synced at
// once; the estimate of a sync's length rises at once, falls slowly and stays within its cap.
#include "daemon/store/sync_schedule.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace objwire::test {
namespace {

using namespace std::chrono_literals;
using daemon::sync_schedule;
using time_point = sync_schedule::clock::time_point;

const time_point t0 = time_point() + 1h;
constexpr auto interval = 100ms;

// One sync from `start` that takes `took`.
void run_sync(sync_schedule& s, time_point start, sync_schedule::clock::duration took) {
    s.sync_started(start);
    s.sync_finished(start + took);
}

TEST(SyncSchedule, NothingWrittenNothingDue) {
    sync_schedule s(interval);
    EXPECT_FALSE(s.due());
    run_sync(s, t0, 3ms);
    EXPECT_FALSE(s.due());
}

TEST(SyncSchedule, TheFirstWriteIsSyncedAtOnce) {
    sync_schedule s(interval);
    s.written(t0);
    EXPECT_EQ(s.due(), t0);
}

TEST(SyncSchedule, AWriteAfterAQuietSpellIsSyncedAtOnce) {
    sync_schedule s(interval);
    s.written(t0);
    run_sync(s, t0, 3ms);
    s.written(t0 + 250ms);
    EXPECT_EQ(s.due(), t0 + 250ms);
}

// The sync starts early by what the last one took, so that it ends an interval after the
// oldest write it covers.
TEST(SyncSchedule, TheOldestWriteIsDurableAnIntervalAfterIt) {
    sync_schedule s(interval);
    s.written(t0);
    run_sync(s, t0, 4ms);
    s.written(t0 + 1ms);  // arrived during the sync: waits for the next one
    s.written(t0 + 50ms);
    const auto due = s.due();
    ASSERT_TRUE(due);
    EXPECT_EQ(*due, t0 + 1ms + interval - 4ms);
    EXPECT_EQ(*due + 4ms, t0 + 1ms + interval);
}

// A write in the middle of a quiet interval is synced once the last sync started an interval
// ago: earlier than its own deadline, and no more often than once per interval.
TEST(SyncSchedule, AWriteMidIntervalIsSyncedAnIntervalAfterTheLastSync) {
    sync_schedule s(interval);
    s.written(t0);
    run_sync(s, t0, 4ms);
    s.written(t0 + 40ms);
    EXPECT_EQ(s.due(), t0 + interval);
}

TEST(SyncSchedule, TheEstimateRisesAtOnceAndFallsAnEighthAtATime) {
    sync_schedule s(interval);
    EXPECT_EQ(s.estimate(), 0ms);
    run_sync(s, t0, 8ms);
    EXPECT_EQ(s.estimate(), 8ms);
    run_sync(s, t0 + 100ms, 0ms);
    EXPECT_EQ(s.estimate(), 7ms);
    run_sync(s, t0 + 200ms, 15ms);
    EXPECT_EQ(s.estimate(), 15ms);
}

// A sync thread that wakes late delays the acknowledgements as a slow sync does: the next
// sync starts earlier by both. A sync started before it was due (enough bytes waiting, a
// request) counts from its start.
TEST(SyncSchedule, ASyncThatStartsLateCountsFromWhenItWasDue) {
    sync_schedule s(interval);
    s.written(t0);
    run_sync(s, t0, 2ms);
    s.written(t0 + 10ms);
    ASSERT_EQ(s.due(), t0 + interval);
    run_sync(s, t0 + interval + 3ms, 2ms);  // woke 3 ms late
    EXPECT_EQ(s.estimate(), 5ms);
    s.written(t0 + 150ms);
    run_sync(s, t0 + 160ms, 12ms);  // long before it was due
    EXPECT_EQ(s.estimate(), 12ms);
}

// However long syncs take, they start at least three quarters of an interval apart.
TEST(SyncSchedule, TheEstimateIsCappedAtAQuarterOfTheInterval) {
    sync_schedule s(interval);
    EXPECT_EQ(s.cap(), 25ms);
    s.written(t0);
    run_sync(s, t0, 60ms);
    EXPECT_EQ(s.estimate(), 25ms);
    s.written(t0 + 1ms);
    EXPECT_EQ(s.due(), t0 + 1ms + 75ms);
}

// A write every millisecond for ten seconds, each sync taking 3 ms: every write is durable
// within the interval of its arrival, and the syncs come about once per interval.
TEST(SyncSchedule, ASteadyStreamIsDurableWithinTheIntervalAndSyncsAboutOncePerInterval) {
    sync_schedule s(interval);
    constexpr auto took = 3ms;
    std::vector<time_point> pending;  // written, not yet covered by a sync that started
    std::vector<time_point> covered;  // covered by the sync running now
    bool running = false;
    time_point running_until;
    int syncs = 0;
    auto longest_wait = sync_schedule::clock::duration::zero();
    for (auto now = t0; now < t0 + 10s; now += 1ms) {
        if (running && now >= running_until) {
            s.sync_finished(running_until);
            for (const auto w : covered)
                longest_wait = std::max(longest_wait, running_until - w);
            covered.clear();
            running = false;
        }
        s.written(now);
        pending.push_back(now);
        if (const auto due = s.due(); !running && due && *due <= now) {
            s.sync_started(now);
            ++syncs;
            covered = std::move(pending);
            pending.clear();
            running = true;
            running_until = now + took;
        }
    }
    EXPECT_LE(longest_wait, interval);
    EXPECT_GE(longest_wait, interval - 2ms);  // not synced more often than needed
    EXPECT_LE(syncs, 10 * 1000 / 97 + 1);     // one per interval less the sync's own time
    EXPECT_GE(syncs, 10 * 1000 / 100);
}

}  // namespace
}  // namespace objwire::test
