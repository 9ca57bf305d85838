// The daemon's metrics beyond server_counters: what sessions report as they go (frames,
// compression, back-reference tables, acknowledgement latency, sink bytes, errors by kind).
// Every field is an atomic or behind a mutex, so any session's strand may update it while
// the stats answer or the HTTP endpoint renders it (daemon/serve/metrics_text.hpp).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <system_error>

#include "daemon/telemetry/named_metrics.hpp"
#include "proto/reference_table.hpp"

namespace objwire {
class receiver;
}

namespace objwire::daemon {

// Upper bounds of the acknowledgement latency buckets, in nanoseconds: 100 us to 10 s covers
// fsync = never (tens of microseconds) through fsync = interval (up to 100 ms) to a stalled
// disk.
inline constexpr std::array<std::uint64_t, 14> ack_latency_bounds_ns{
    100'000,       500'000,       1'000'000,     5'000'000,     10'000'000,
    25'000'000,    50'000'000,    100'000'000,   250'000'000,   500'000'000,
    1'000'000'000, 2'500'000'000, 5'000'000'000, 10'000'000'000};

// Upper bounds of the journal's fsync duration buckets, in nanoseconds: from a page-cache or
// tmpfs sync (tens of microseconds) through an SSD (about a millisecond) and a loaded disk (tens
// of milliseconds) to a stalled one.
inline constexpr std::array<std::uint64_t, 17> fsync_duration_bounds_ns{
    50'000,      100'000,       250'000,       500'000,       1'000'000,     2'500'000,
    5'000'000,   10'000'000,    25'000'000,    50'000'000,    100'000'000,   250'000'000,
    500'000'000, 1'000'000'000, 2'500'000'000, 5'000'000'000, 10'000'000'000};

// A Prometheus histogram of durations over fixed bucket bounds (nanoseconds, ascending).
template <std::size_t Bounds>
class bucket_histogram {
  public:
    static constexpr std::size_t buckets = Bounds + 1;  // the last: +Inf
    struct snapshot {
        std::array<std::uint64_t, buckets> cumulative{};  // observations <= each bound
        std::uint64_t count = 0;
        std::uint64_t sum_ns = 0;
    };

    explicit bucket_histogram(const std::array<std::uint64_t, Bounds>& bounds_ns)
        : bounds_(bounds_ns) {}

    void observe(std::uint64_t ns) {
        std::size_t i = 0;
        while (i < Bounds && ns > bounds_[i])
            ++i;
        counts_[i].fetch_add(1, std::memory_order_relaxed);
        sum_ns_.fetch_add(ns, std::memory_order_relaxed);
    }
    snapshot read() const {
        snapshot s;
        std::uint64_t running = 0;
        for (std::size_t i = 0; i < buckets; ++i) {
            running += counts_[i].load(std::memory_order_relaxed);
            s.cumulative[i] = running;
        }
        // Prometheus requires +Inf == count: the count is the buckets' total, so an
        // observation in flight cannot make them disagree.
        s.count = running;
        s.sum_ns = sum_ns_.load(std::memory_order_relaxed);
        return s;
    }
    const std::array<std::uint64_t, Bounds>& bounds_ns() const { return bounds_; }

  private:
    const std::array<std::uint64_t, Bounds>& bounds_;
    std::array<std::atomic<std::uint64_t>, buckets> counts_{};
    std::atomic<std::uint64_t> sum_ns_{0};
};

using latency_histogram = bucket_histogram<ack_latency_bounds_ns.size()>;
using fsync_histogram = bucket_histogram<fsync_duration_bounds_ns.size()>;

// What an open connection is doing, for objwire_connections_by_role: before its hello (or in
// its TLS handshake), then by the hello's role - a reader's requests (cursor commands, the
// sender list) apart from readers that read.
enum class connection_role : std::uint8_t { handshake, sender, reader, cursor, sender_list, stats };
inline constexpr std::array<const char*, 6> connection_role_names{
    "handshake", "sender", "reader", "cursor", "sender_list", "stats"};

struct metrics {
    std::atomic<std::uint64_t> frames_in{0};
    std::atomic<std::uint64_t> frames_compressed{0};
    std::atomic<std::uint64_t> compressed_bytes{0};    // payload bytes of compressed frames
    std::atomic<std::uint64_t> decompressed_bytes{0};  // the same frames decompressed
    std::atomic<std::uint64_t> objects_out{0};         // objects sent to readers
    std::atomic<std::uint64_t> bytes_out{0};           // every byte written to a connection
    std::atomic<std::int64_t> table_bytes{0};          // receivers' tables now, all connections
    std::atomic<std::uint64_t> table_hits{0};
    std::atomic<std::uint64_t> table_misses{0};
    std::atomic<std::uint64_t> table_evictions{0};
    std::atomic<std::uint64_t> table_resets{0};
    std::atomic<std::uint64_t> sink_bytes{0};  // bytes of the batches committed to the sink
    // Bytes read from connections whose objects are not yet durable (limits.max_buffered_bytes
    // caps each connection's share): now, and the most one connection ever held.
    std::atomic<std::int64_t> held_bytes{0};
    std::atomic<std::uint64_t> held_bytes_peak{0};
    std::atomic<std::uint64_t> reloads{0};
    std::atomic<std::uint64_t> reload_failures{0};      // SIGHUPs whose settings were refused
    std::atomic<std::uint64_t> journal_gaps_served{0};  // gap frames sent to readers
    // Offsets retention deleted before a reader read them (served to it as gaps).
    std::atomic<std::uint64_t> retention_offsets_unread{0};
    // Cursor readers' acks taken, and the cursor writes (file, fsync, rename) they cost: acks
    // coalesce, so writes stay a few per second per cursor (daemon/store/cursor_acks.hpp).
    std::atomic<std::uint64_t> cursor_acks{0};
    std::atomic<std::uint64_t> cursor_writes{0};
    latency_histogram ack_latency{ack_latency_bounds_ns};  // a read's last frame -> its ack
    // Readers (journal or stream) serving now, those of them whose batch has waited for the
    // peer longer than reader_support::peer_behind_after, and those closed by the
    // slow-consumer rule (daemon/roles/slow_consumer.hpp).
    std::atomic<std::int64_t> readers_open{0};
    std::atomic<std::int64_t> readers_stalled{0};
    std::atomic<std::uint64_t> readers_slow_closed{0};
    // Readers' starts searching the journal now (by time, by a sender's last N), and those
    // refused at limits.max_reader_starts(_per_address).
    std::atomic<std::int64_t> reader_starts_running{0};
    std::atomic<std::uint64_t> reader_starts_refused{0};
    // Bytes readers' batches and read-aheads hold now (reader_support::reader_base).
    std::atomic<std::int64_t> readers_held_bytes{0};
    // Bytes of the blocks followers share at the live end (daemon/roles/live_feed.hpp): held
    // once however many followers write them.
    std::atomic<std::int64_t> readers_shared_bytes{0};
    // Block frames followers were sent from those shared bytes, and followers that fell
    // further behind than the shared blocks reach and read on their own again.
    std::atomic<std::uint64_t> readers_shared_blocks{0};
    std::atomic<std::uint64_t> readers_shared_behind{0};
    // Open connections by role (connection_role), each counted in exactly one.
    std::array<std::atomic<std::int64_t>, connection_role_names.size()> connections_by_role{};
    // Per sender id, capped (daemon/telemetry/named_metrics.hpp).
    sender_meter senders;
    // Per user of [auth] (docs/SECURITY.md): objects and bytes stored from its streams, and
    // served to its readers; capped like the sender ids.
    sender_meter users_in;
    sender_meter users_out;
    // Where each live journal reader stands: the worst reader lag.
    reader_positions readers_at;

    // Counts a failure by kind: a proto_errc by its name ("bad_checksum"), anything else as
    // `other_kind` ("store_failed", "write_failed").
    void count_error(std::error_code ec, const char* other_kind = "io");
    std::map<std::string, std::uint64_t> errors() const;
    // Hellos refused by [auth]: by user ("" for a credential that named none) and reason (the
    // permission lacked, or "credential"). At most max_refusal_series pairs are kept apart;
    // the rest count under user "".
    static constexpr std::size_t max_refusal_series = 64;
    void count_refusal(const std::string& user, const std::string& reason);
    std::map<std::pair<std::string, std::string>, std::uint64_t> refusals() const;

    // Estimated receive link bandwidth of each open sender connection
    // (daemon/serve/link_estimator.hpp), under a key of the session's own. A connection reports a
    // new estimate at most once per sample (tens of milliseconds), so a map under a lock is enough.
    void set_link_estimate(std::uint64_t connection, double bits_per_second);
    void drop_link_estimate(std::uint64_t connection);
    struct link_summary {
        double max_bps = 0;           // the fastest open connection's estimate
        double last_bps = 0;          // the latest estimate of any connection, open or closed
        std::size_t connections = 0;  // open connections with an estimate
    };
    link_summary link_estimates() const;

  private:
    mutable std::mutex errors_mutex_;  // errors are rare: a map under a lock is enough
    std::map<std::string, std::uint64_t> errors_;
    std::map<std::pair<std::string, std::string>, std::uint64_t> refusals_;  // errors_mutex_
    mutable std::mutex links_mutex_;
    std::map<std::uint64_t, double> links_;
    double last_link_bps_ = 0;
};

// What one connection's receiver has already added to the metrics, so each report() adds
// only what is new since the last one. close() takes its table back out of the gauge.
class receiver_meter {
  public:
    void report(const receiver& r, metrics& m);
    // After a resumed stream's welcome: its frame count starts at the resume point.
    void resume_at(const receiver& r);
    void close(metrics& m);

  private:
    table_stats table_;
    std::uint64_t frames_ = 0;
    std::uint64_t frames_compressed_ = 0;
    std::uint64_t compressed_bytes_ = 0;
    std::uint64_t decompressed_bytes_ = 0;
};

}  // namespace objwire::daemon
