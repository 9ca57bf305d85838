#include "daemon/sinks/journal_sink.hpp"

#include <spdlog/spdlog.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <chrono>

#include "daemon/store/cursor_store.hpp"
#include "daemon/store/journal_index.hpp"
#include "daemon/store/sender_registry.hpp"
#include "daemon/telemetry/metric_writer.hpp"
#include "daemon/telemetry/metrics.hpp"

#include "proto/journal_block.hpp"

namespace objwire::daemon {
namespace {

class journal_stream final : public sink_stream {
  public:
    // What a session adds was accepted by its decoder: its strings are valid UTF-8.
    journal_stream(journal& j, std::string sender_id, journal_block_pools& blocks)
        : journal_(j), block_(sender_id, true, !sender_id.empty(), &blocks) {}

    std::error_code add(const message& m) override { return block_.add(m); }
    std::error_code add_payload(std::span<const std::uint8_t> payload,
                                std::uint32_t messages) override {
        return block_.add_payload(payload, messages);
    }
    bool empty() const override { return block_.empty(); }
    std::size_t bytes() const override { return block_.bytes(); }
    void mark() override { block_.mark(); }
    void rollback() override { block_.rollback(); }
    void expedite() override { journal_.request_sync(); }
    void set_record(const journal_stream_record& r) override { block_.set_record(r); }
    std::error_code commit(std::uint64_t first_sequence, std::uint64_t last_sequence,
                           durable_handler on_durable) override {
        const auto now = journal_.options().clock().time_since_epoch();
        const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now).count();
        auto bytes = block_.finish(first_sequence, last_sequence, static_cast<std::uint64_t>(ms));
        std::error_code ec;
        journal_.append(bytes, std::move(on_durable), ec);
        // A failed append stored nothing: the batch stays, so the session can try it again
        // once the disk has room (it retries while the batch is not empty).
        if (!ec) block_.clear();
        return ec;
    }

  private:
    journal& journal_;
    journal_block_writer block_;
};

}  // namespace

std::unique_ptr<journal_sink> journal_sink::open(const config::daemon_settings& settings,
                                                 std::error_code& ec) {
    auto fsyncs = std::make_shared<fsync_histogram>(fsync_duration_bounds_ns);
    auto options = journal_options_from(settings);
    options.sync = [fsyncs](int fd) {
        const auto start = std::chrono::steady_clock::now();
        const int r = ::fdatasync(fd);
        const auto took = std::chrono::steady_clock::now() - start;
        fsyncs->observe(static_cast<std::uint64_t>(
            std::chrono::duration_cast<std::chrono::nanoseconds>(took).count()));
        return r;
    };
    auto j = journal::open(std::move(options), ec);
    if (!j) {
        spdlog::error("cannot open the journal in '{}': {}", settings.data_dir, ec.message());
        return nullptr;
    }
    // Readers' acks ride on the journal's syncs (daemon/store/cursor_store.hpp).
    j->set_sync_rider(
        [&cursors = cursor_store::for_data_dir(j->options().dir)] { cursors.flush(); });
    return std::make_unique<journal_sink>(std::move(j), std::move(fsyncs));
}

std::unique_ptr<sink_stream> journal_sink::open_stream(const std::string& sender_id) {
    return std::make_unique<journal_stream>(*journal_, sender_id, blocks_);
}

// Headers only (daemon/store/journal_index.hpp): start-up reads a few bytes per block.
std::error_code journal_sink::recall_senders(sender_registry& senders) {
    const auto start = std::chrono::steady_clock::now();
    journal_index_scan stats;
    auto ec = scan_sender_index(
        journal_->segments(),
        [&](const sender_index_entry& e) {
            if (!e.sender_id.empty())
                senders.remember(std::string(e.sender_id), e.last_sequence, e.record);
        },
        stats);
    if (ec) return ec;
    const std::chrono::duration<double, std::milli> took = std::chrono::steady_clock::now() - start;
    spdlog::info(
        "journal: sender index: {} sender ids from {} blocks in {} segments ({} KiB read, "
        "{:.1f} ms)",
        senders.size(), stats.blocks, stats.segments, stats.bytes_read / 1024, took.count());
    return {};
}

journal_options journal_options_from(const config::daemon_settings& s) {
    journal_options o;
    o.dir = s.data_dir;
    o.fsync = parse_fsync_policy(s.journal_fsync).value_or(fsync_policy::interval);
    o.fsync_interval = s.journal_fsync_interval;
    o.fsync_bytes = s.journal_fsync_bytes;
    o.segment_bytes = s.journal_segment_bytes;
    o.retention_bytes = s.journal_retention_bytes;
    o.retention_age = s.journal_retention_age;
    return o;
}

namespace {

void disk(metric_writer& x, const journal_disk_stats& d) {
    x.one("objwire_journal_bytes", metric_type::gauge,
          "Bytes of the journal's segment files on disk.", d.bytes);
    x.one("objwire_journal_segments", metric_type::gauge,
          "Segment files of the journal, the open one too.", d.segments);
    x.one("objwire_journal_first_offset", metric_type::gauge,
          "The first offset the journal holds (its oldest segment's).", d.first_offset);
    x.one("objwire_journal_next_offset", metric_type::gauge,
          "The offset the next stored object gets.", d.next_offset);
    x.one("objwire_journal_durable_offset", metric_type::gauge,
          "Offsets below this one are durable.", d.durable_offset);
    x.one("objwire_journal_retention_deleted_segments_total", metric_type::counter,
          "Segments retention deleted (journal.retention_bytes, journal.retention_age).",
          d.retention_segments);
    x.one("objwire_journal_retention_deleted_bytes_total", metric_type::counter,
          "Bytes of the segments retention deleted.", d.retention_bytes);
}

// One statvfs a scrape: what is left where the journal grows.
void filesystem(metric_writer& x, const std::filesystem::path& dir) {
    struct statvfs fs {};
    if (::statvfs(dir.c_str(), &fs) != 0) return;
    x.one("objwire_journal_filesystem_avail_bytes", metric_type::gauge,
          "Bytes the daemon's user may still write on the journal's file system.",
          static_cast<std::uint64_t>(fs.f_bavail) * fs.f_frsize);
    x.one("objwire_journal_filesystem_size_bytes", metric_type::gauge,
          "Size of the journal's file system in bytes.",
          static_cast<std::uint64_t>(fs.f_blocks) * fs.f_frsize);
}

void lag(metric_writer& x, const std::vector<cursor_position>& cursors,
         const reader_positions& readers, std::uint64_t next_offset) {
    x.one("objwire_cursors", metric_type::gauge, "Named cursors stored.", cursors.size());
    x.family("objwire_cursor_lag_objects", metric_type::gauge,
             "Objects a named cursor is behind the journal's next offset (the 32 most recently "
             "moved by name; cursor=\"\": the worst of the others).");
    for (const auto& c : cursor_lags(cursors, next_offset))
        x.sample("objwire_cursor_lag_objects", c.lag, {{"cursor", c.name}});
    const auto slowest_reader = readers.slowest();
    x.one("objwire_reader_lag_max_objects", metric_type::gauge,
          "Objects the live reader furthest behind is behind the journal's next offset (0: no "
          "reader).",
          slowest_reader ? lag_behind(next_offset, *slowest_reader) : 0);
    x.family("objwire_reader_lag_objects", metric_type::gauge,
             "Objects each live reader is behind the journal's next offset, by its peer address "
             "(the 32 most recently opened; reader=\"\": the worst of the others).");
    for (const auto& r : cursor_lags(readers.positions(), next_offset, max_labelled_readers))
        x.sample("objwire_reader_lag_objects", r.lag, {{"reader", r.name}});
}

}  // namespace

void journal_sink::write_metrics(metric_writer& x, const metrics& m) const {
    const auto d = journal_->disk_stats();
    disk(x, d);
    filesystem(x, journal_->options().dir);
    const auto f = fsyncs_->read();
    x.histogram("objwire_journal_fsync_duration_seconds",
                "How long each sync of a journal segment file (fdatasync) took.",
                fsync_duration_bounds_ns, f.cumulative, f.count, f.sum_ns);
    const auto& cursors = cursor_store::for_data_dir(journal_->options().dir);
    lag(x, cursors.positions(), m.readers_at, d.next_offset);
    const auto g = journal_->gap_stats();
    x.one("objwire_journal_gaps", metric_type::gauge,
          "Ranges of journal offsets lost to damage or to a repair (the gap log).", g.gaps);
    x.one("objwire_journal_lost_objects", metric_type::gauge, "Journal offsets in those ranges.",
          g.lost_offsets);
    x.one("objwire_journal_repairs_total", metric_type::counter,
          "Recoveries at this start that accepted lost synced data (--repair-journal).", g.repairs);
    x.one("objwire_journal_gaps_served_total", metric_type::counter,
          "Gaps reported to readers (each reader that read past a lost range).",
          m.journal_gaps_served.load());
    x.one("objwire_journal_retention_unread_total", metric_type::counter,
          "Offsets retention deleted before a reader reading them had read them (each served to "
          "that reader as a gap).",
          m.retention_offsets_unread.load());
    x.one("objwire_cursor_acks_total", metric_type::counter, "Acks received from cursor readers.",
          m.cursor_acks.load());
    x.one("objwire_cursor_writes_total", metric_type::counter,
          "Cursor positions written: acks coalesce into them, made durable with the journal's "
          "next sync or, at a reader's end, at once.",
          m.cursor_writes.load());
    x.one("objwire_cursor_fsyncs_total", metric_type::counter,
          "fsync calls for cursor files and their directory (one of the directory per journal "
          "sync that stored cursors).",
          cursors.fsyncs());
}

}  // namespace objwire::daemon
