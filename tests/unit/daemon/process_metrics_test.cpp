// The process_* figures: /proc/self/statm read into bytes, and this process's own figures.
#include "daemon/telemetry/process_metrics.hpp"

#include <gtest/gtest.h>

#include <objwire/version.hpp>
#include "daemon/telemetry/metric_writer.hpp"
#include "proto/control.hpp"

namespace objwire::daemon {
namespace {

TEST(ProcessMetrics, StatmPagesBecomeBytes) {
    const auto p = parse_statm("2000 300 100 50 0 400 0\n", 4096);
    ASSERT_TRUE(p);
    EXPECT_EQ(p->virtual_bytes, 2000u * 4096);
    EXPECT_EQ(p->resident_bytes, 300u * 4096);
    EXPECT_FALSE(parse_statm("", 4096));
    EXPECT_FALSE(parse_statm("2000", 4096));
    EXPECT_FALSE(parse_statm("x y", 4096));
}

TEST(ProcessMetrics, ThisProcessHasMemoryAndOpenFiles) {
    const auto p = read_process_figures();
    EXPECT_GT(p.resident_bytes, 0u);
    EXPECT_GE(p.virtual_bytes, p.resident_bytes);
    EXPECT_GE(p.open_fds, 3u);  // stdin, stdout, stderr at least
}

TEST(ProcessMetrics, FamiliesAndBuildInfoAreWritten) {
    metric_writer x;
    process_figures p;
    p.resident_bytes = 4096;
    p.max_fds = 1024;
    write_process_metrics(x, p, 1.5);
    const auto f = x.take();
    ASSERT_FALSE(f.empty());
    EXPECT_EQ(f[0].name, "process_cpu_seconds_total");
    EXPECT_EQ(f[0].type, metric_type::counter);
    const auto value = [&](const char* name, const std::vector<metric_label>& labels = {}) {
        const auto* s = find_metric_sample(f, name, labels);
        EXPECT_NE(s, nullptr) << name;
        return s ? s->value : metric_value(-1.0);
    };
    EXPECT_EQ(value("process_resident_memory_bytes"), metric_value(std::uint64_t{4096}));
    EXPECT_EQ(value("process_max_fds"), metric_value(std::uint64_t{1024}));
    EXPECT_EQ(value("process_start_time_seconds"), metric_value(1.5));
    EXPECT_EQ(value("objwire_build_info", {{"version", std::string(objwire::version)},
                                           {"protocol", std::to_string(protocol_version)}}),
              metric_value(std::uint64_t{1}));
}

}  // namespace
}  // namespace objwire::daemon
