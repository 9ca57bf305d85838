// Each sink's own figures as values (sink::write_metrics): the journal's files, offsets, syncs,
// cursors and gap log from a journal on disk; NATS publishing from its stats. Sinks without
// figures of their own (jsonl, forward) add none.
#include <gtest/gtest.h>

#include <stdlib.h>

#include <filesystem>

#include "daemon/sinks/journal_sink.hpp"
#include "daemon/sinks/nats_sink.hpp"
#include "daemon/telemetry/metric_writer.hpp"

namespace objwire::daemon {
namespace {

metric_value value_of(const std::vector<metric_family>& f, const char* name,
                      const std::vector<metric_label>& labels = {}) {
    const auto* s = find_metric_sample(f, name, labels);
    EXPECT_NE(s, nullptr) << name;
    return s ? s->value : metric_value(-1.0);
}

TEST(SinkMetrics, AFreshJournalsFiguresAreCounts) {
    std::string tmpl = (std::filesystem::temp_directory_path() / "sink-metrics-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    config::daemon_settings settings;
    settings.data_dir = tmpl;
    std::error_code ec;
    auto sink = journal_sink::open(settings, ec);
    ASSERT_FALSE(ec) << ec.message();
    ASSERT_TRUE(sink);
    metrics m;
    m.journal_gaps_served += 2;
    metric_writer x;
    sink->write_metrics(x, m);
    const auto f = x.take();
    const auto u = [](std::uint64_t v) { return metric_value(v); };
    EXPECT_EQ(value_of(f, "objwire_journal_segments"), u(1));
    EXPECT_EQ(value_of(f, "objwire_journal_first_offset"), u(0));
    EXPECT_EQ(value_of(f, "objwire_journal_next_offset"), u(0));
    EXPECT_EQ(value_of(f, "objwire_cursors"), u(0));
    EXPECT_EQ(value_of(f, "objwire_reader_lag_max_objects"), u(0));
    EXPECT_EQ(value_of(f, "objwire_journal_gaps"), u(0));
    EXPECT_EQ(value_of(f, "objwire_journal_gaps_served_total"), u(2));
    EXPECT_EQ(value_of(f, "objwire_journal_fsync_duration_seconds_bucket", {{"le", "+Inf"}}),
              value_of(f, "objwire_journal_fsync_duration_seconds_count"));
    EXPECT_GT(as_double(value_of(f, "objwire_journal_filesystem_size_bytes")), 0);
    for (const auto& family : f)
        EXPECT_EQ(family.name.rfind("objwire_", 0), 0u) << family.name;
    sink.reset();
    std::filesystem::remove_all(tmpl);
}

TEST(SinkMetrics, NatsFiguresAreItsStatsExactly) {
    nats_sink_stats s;
    s.connected = true;
    s.blocks_acked = (std::uint64_t{1} << 60) + 1;  // past a double's 53 bits
    s.window_limit = 256;
    s.latency_sum_ns = 1'500'000'000;
    s.link_mbit = 94.5;
    const auto f = nats_metric_families(s);
    EXPECT_EQ(value_of(f, "objwire_nats_connected"), metric_value(std::uint64_t{1}));
    EXPECT_EQ(value_of(f, "objwire_nats_blocks_acked_total"),
              metric_value((std::uint64_t{1} << 60) + 1));
    EXPECT_EQ(value_of(f, "objwire_nats_window_limit"), metric_value(std::uint64_t{256}));
    EXPECT_EQ(value_of(f, "objwire_nats_publish_latency_seconds_sum"), metric_value(1.5));
    EXPECT_EQ(value_of(f, "objwire_nats_link_mbit"), metric_value(94.5));
    EXPECT_EQ(value_of(f, "objwire_nats_compressing"), metric_value(std::uint64_t{0}));
}

}  // namespace
}  // namespace objwire::daemon
