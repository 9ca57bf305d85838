// The process_* figures: /proc/self/statm read into bytes, and this process's own figures.
#include "daemon/telemetry/process_metrics.hpp"

#include <gtest/gtest.h>

#include "daemon/telemetry/prometheus_text.hpp"

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
    prometheus_text x;
    process_figures p;
    p.resident_bytes = 4096;
    p.max_fds = 1024;
    write_process_metrics(x, p, 1.5);
    const auto text = x.take();
    EXPECT_NE(text.find("# TYPE process_cpu_seconds_total counter\n"), std::string::npos);
    EXPECT_NE(text.find("\nprocess_resident_memory_bytes 4096\n"), std::string::npos) << text;
    EXPECT_NE(text.find("\nprocess_max_fds 1024\n"), std::string::npos) << text;
    EXPECT_NE(text.find("\nprocess_start_time_seconds 1.5\n"), std::string::npos) << text;
    EXPECT_NE(text.find("\nobjwire_build_info{version=\""), std::string::npos) << text;
}

}  // namespace
}  // namespace objwire::daemon
