// The latency histogram against sorted samples (each percentile within its stated precision),
// and the open-loop schedule of `objwire bench --rate` driven by a fake clock: due times that
// do not depend on when objects were sent, and stalls counted against every object they
// delayed. No sockets, no real time.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "client/cli/open_loop.hpp"
#include "client/lib/latency_histogram.hpp"

namespace objwire::client {
namespace {

std::uint64_t sorted_rank(const std::vector<std::uint64_t>& sorted, double q) {
    const auto rank = std::max<std::uint64_t>(
        1, static_cast<std::uint64_t>(std::ceil(q * static_cast<double>(sorted.size()))));
    return sorted[rank - 1];
}

void expect_percentiles_match(std::vector<std::uint64_t> samples) {
    latency_histogram h;
    for (auto v : samples)
        h.record(v);
    std::sort(samples.begin(), samples.end());
    ASSERT_EQ(h.count(), samples.size());
    EXPECT_EQ(h.min(), samples.front());
    EXPECT_EQ(h.max(), samples.back());
    for (double q : {0.001, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999, 0.9999, 1.0}) {
        const auto want = static_cast<double>(sorted_rank(samples, q));
        const auto got = static_cast<double>(h.percentile(q));
        EXPECT_LE(std::abs(got - want), want * latency_histogram::precision)
            << "q " << q << ": histogram " << got << ", sorted " << want;
    }
}

TEST(LatencyHistogram, PercentilesOfALogNormalSampleAreWithinThePrecision) {
    std::mt19937_64 rng(42);
    std::lognormal_distribution<double> d(13.0, 1.5);  // median ~0.44 ms, a long tail
    std::vector<std::uint64_t> s(200'000);
    for (auto& v : s)
        v = static_cast<std::uint64_t>(d(rng));
    expect_percentiles_match(std::move(s));
}

TEST(LatencyHistogram, SmallValuesAreExactAndEveryOctaveBoundaryHolds) {
    std::vector<std::uint64_t> s;
    for (std::uint64_t v = 0; v < 300; ++v)
        s.push_back(v);
    for (int bit = 8; bit < 40; ++bit)
        for (std::uint64_t d : {0, 1, 2}) {
            s.push_back((std::uint64_t{1} << bit) - d);
            s.push_back((std::uint64_t{1} << bit) + d);
        }
    expect_percentiles_match(s);
    latency_histogram h;
    for (std::uint64_t v = 0; v < 256; ++v)
        h.record(v);
    for (std::uint64_t v = 1; v <= 256; ++v)
        EXPECT_EQ(h.percentile(static_cast<double>(v) / 256.0), v - 1) << "exact below 256";
}

TEST(LatencyHistogram, MergeEqualsRecordingEverythingInOne) {
    std::mt19937_64 rng(7);
    std::uniform_int_distribution<std::uint64_t> d(0, 50'000'000);
    latency_histogram all, a, b;
    for (int i = 0; i < 10'000; ++i) {
        const auto v = d(rng);
        all.record(v);
        (i % 3 ? a : b).record(v);
    }
    a.merge(b);
    EXPECT_EQ(a.count(), all.count());
    EXPECT_EQ(a.max(), all.max());
    EXPECT_EQ(a.min(), all.min());
    for (double q : {0.5, 0.9, 0.99, 0.999})
        EXPECT_EQ(a.percentile(q), all.percentile(q));
}

TEST(LatencyHistogram, HugeValuesLandInTheTopBucketAndEmptyReadsZero) {
    latency_histogram h;
    EXPECT_EQ(h.percentile(0.99), 0u);
    EXPECT_EQ(h.max(), 0u);
    h.record(UINT64_MAX / 2);
    EXPECT_EQ(h.count(), 1u);
    EXPECT_EQ(h.max(), UINT64_MAX / 2) << "the exact max is kept";
    EXPECT_EQ(h.percentile(1.0), UINT64_MAX / 2);
}

struct fake_clock {
    std::int64_t ns = 1'000'000'000;
    open_loop::clock_fn fn() {
        return [this] { return ns; };
    }
};

constexpr std::int64_t ms_in_ns = 1'000'000;

TEST(OpenLoop, ObjectsAreDueAtFixedTimesWhateverTheSender) {
    fake_clock clock;
    open_loop s(1000, 5, clock.fn());  // one object a millisecond
    EXPECT_EQ(s.wait_ns(), 0) << "the first object is due at once";
    EXPECT_EQ(s.take(), 0u);
    EXPECT_EQ(s.wait_ns(), 1 * ms_in_ns);
    clock.ns += ms_in_ns / 4;
    EXPECT_EQ(s.wait_ns(), 3 * ms_in_ns / 4);
    clock.ns += 3 * ms_in_ns / 4;
    EXPECT_EQ(s.wait_ns(), 0);
    EXPECT_EQ(s.take(), 1u);
    // The sender stalls for 10 ms: objects 2, 3 and 4 are all overdue, none is rescheduled.
    clock.ns += 10 * ms_in_ns;
    for (std::uint64_t i = 2; i < 5; ++i) {
        EXPECT_EQ(s.wait_ns(), 0);
        EXPECT_EQ(s.due_ns(i), s.start_ns() + static_cast<std::int64_t>(i) * ms_in_ns);
        EXPECT_EQ(s.take(), i);
    }
    EXPECT_TRUE(s.all_sent());
    EXPECT_FALSE(s.all_acked());
}

TEST(OpenLoop, AStallCountsAgainstEveryObjectItDelayed) {
    fake_clock clock;
    open_loop s(1000, 10, clock.fn());
    s.keep_ack_times();
    // Sent on time, acknowledged 0.5 ms later each.
    for (int i = 0; i < 2; ++i) {
        s.take();
        clock.ns += ms_in_ns / 2;
        s.on_acked(s.sent());
        clock.ns += ms_in_ns / 2;
    }
    // Then the sender is blocked 20 ms (a full window): objects 2..9 go out late, together,
    // and one acknowledgement covers them all.
    clock.ns += 20 * ms_in_ns;
    while (!s.all_sent())
        s.take();
    clock.ns += ms_in_ns;
    s.on_acked(10);
    ASSERT_TRUE(s.all_acked());
    const auto& h = s.latencies();
    EXPECT_EQ(h.count(), 10u);
    EXPECT_EQ(h.min(), static_cast<std::uint64_t>(ms_in_ns / 2));
    // Object 2 was due at 2 ms and acknowledged at 23 ms; object 9 was due at 9 ms.
    EXPECT_EQ(h.max(), static_cast<std::uint64_t>(21 * ms_in_ns));
    EXPECT_NEAR(static_cast<double>(h.percentile(0.5)), 16.0 * ms_in_ns, 16.0 * ms_in_ns / 256);
    EXPECT_EQ(s.ack_ns(9), clock.ns);
    EXPECT_EQ(s.ack_ns(0), s.start_ns() + ms_in_ns / 2);
}

TEST(OpenLoop, AcknowledgementsAreCountedOnceAndNeverBeyondWhatWasSent) {
    fake_clock clock;
    open_loop s(100, 4, clock.fn());
    s.take();
    s.take();
    clock.ns += 3 * ms_in_ns;
    EXPECT_EQ(s.on_acked(5), clock.ns) << "at most the objects sent";
    EXPECT_EQ(s.acked(), 2u);
    EXPECT_EQ(s.on_acked(2), 0) << "nothing new";
    EXPECT_EQ(s.on_acked(1), 0) << "a lower count is old news";
    EXPECT_EQ(s.latencies().count(), 2u);
}

}  // namespace
}  // namespace objwire::client
