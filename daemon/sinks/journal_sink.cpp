#include "daemon/sinks/journal_sink.hpp"

#include <spdlog/spdlog.h>

#include <chrono>

#include "daemon/ops/metrics.hpp"
#include "daemon/ops/prometheus_text.hpp"
#include "daemon/serve/sender_registry.hpp"
#include "daemon/store/journal_index.hpp"

#include "proto/journal_block.hpp"

namespace objwire::daemon {
namespace {

class journal_stream final : public sink_stream {
  public:
    // What a session adds was accepted by its decoder: its strings are valid UTF-8.
    journal_stream(journal& j, std::string sender_id)
        : journal_(j), block_(sender_id, true, !sender_id.empty()) {}

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

std::unique_ptr<sink_stream> journal_sink::open_stream(const std::string& sender_id) {
    return std::make_unique<journal_stream>(*journal_, sender_id);
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

void journal_sink::write_metrics(prometheus_text& x, const metrics& m) const {
    const auto g = journal_->gap_stats();
    x.one("objwire_journal_gaps", "gauge",
          "Ranges of journal offsets lost to damage or to a repair (the gap log).", g.gaps);
    x.one("objwire_journal_lost_objects", "gauge", "Journal offsets in those ranges.",
          g.lost_offsets);
    x.one("objwire_journal_repairs_total", "counter",
          "Recoveries at this start that accepted lost synced data (--repair-journal).", g.repairs);
    x.one("objwire_journal_gaps_served_total", "counter",
          "Gaps reported to readers (each reader that read past a lost range).",
          m.journal_gaps_served.load());
    x.one("objwire_journal_retention_unread_total", "counter",
          "Offsets retention deleted before a reader reading them had read them (each served to "
          "that reader as a gap).",
          m.retention_offsets_unread.load());
}

}  // namespace objwire::daemon
