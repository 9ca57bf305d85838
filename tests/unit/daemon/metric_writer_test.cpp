// The metric families the daemon collects, and their Prometheus text: the one place the
// exposition format is written (daemon/telemetry/prometheus_text.hpp).
#include <gtest/gtest.h>

#include <limits>

#include "daemon/telemetry/metric_writer.hpp"
#include "daemon/telemetry/prometheus_text.hpp"

namespace objwire::daemon {
namespace {

TEST(MetricWriter, SamplesKeepTheirTypeAndLabels) {
    metric_writer x;
    x.one("a_total", metric_type::counter, "A.", std::numeric_limits<std::uint64_t>::max());
    x.family("b", metric_type::gauge, "B.");
    x.sample("b", 3, {{"role", "sender"}, {"kind", "x"}});
    x.sample("b", 0.5, {{"role", "reader"}, {"kind", "y"}});
    x.sample("b", -2);  // a negative integer cannot be an unsigned count
    const auto f = x.take();
    ASSERT_EQ(f.size(), 2u);
    EXPECT_EQ(f[0].type, metric_type::counter);
    EXPECT_EQ(f[0].samples[0].value, metric_value(std::numeric_limits<std::uint64_t>::max()));
    ASSERT_EQ(f[1].samples.size(), 3u);
    EXPECT_EQ(f[1].samples[0].labels,
              (std::vector<metric_label>{{"role", "sender"}, {"kind", "x"}}));
    EXPECT_EQ(f[1].samples[0].value, metric_value(std::uint64_t{3}));
    EXPECT_EQ(f[1].samples[1].value, metric_value(0.5));
    EXPECT_EQ(f[1].samples[2].value, metric_value(-2.0));
}

TEST(MetricWriter, HistogramsAreBucketsInSecondsSumAndCount) {
    metric_writer x;
    const std::array<std::uint64_t, 2> bounds{500'000, 2'000'000'000};
    const std::array<std::uint64_t, 3> cumulative{1, 4, 5};
    x.histogram("h_seconds", "H.", bounds, cumulative, 5, 3'000'000'000);
    const auto f = x.take();
    ASSERT_EQ(f.size(), 1u);
    EXPECT_EQ(f[0].type, metric_type::histogram);
    const auto* inf = find_metric_sample(f, "h_seconds_bucket", {{"le", "+Inf"}});
    ASSERT_NE(inf, nullptr);
    EXPECT_EQ(inf->value, metric_value(std::uint64_t{5}));
    ASSERT_NE(find_metric_sample(f, "h_seconds_bucket", {{"le", "0.0005"}}), nullptr);
    EXPECT_EQ(find_metric_sample(f, "h_seconds_sum")->value, metric_value(3.0));
    EXPECT_EQ(find_metric_sample(f, "h_seconds_count")->value, metric_value(std::uint64_t{5}));
}

TEST(PrometheusText, FamiliesAreRenderedAsExpositionFormat) {
    metric_writer x;
    x.one("a_total", metric_type::counter, "A \\ b\nc.", std::numeric_limits<std::uint64_t>::max());
    x.family("b", metric_type::gauge, "B.");
    x.sample("b", 1, {{"version", "0.1.0"}, {"protocol", "1"}});
    x.sample("b", 0.25, {{"id", "q\"\\\n"}});
    const std::array<std::uint64_t, 1> bounds{50'000};
    const std::array<std::uint64_t, 2> cumulative{0, 2};
    x.histogram("h_seconds", "H.", bounds, cumulative, 2, 1'500'000'000);
    EXPECT_EQ(prometheus_text(x.take()),
              "# HELP a_total A \\\\ b\\nc.\n"
              "# TYPE a_total counter\n"
              "a_total 18446744073709551615\n"
              "# HELP b B.\n"
              "# TYPE b gauge\n"
              "b{version=\"0.1.0\",protocol=\"1\"} 1\n"
              "b{id=\"q\\\"\\\\\\n\"} 0.25\n"
              "# HELP h_seconds H.\n"
              "# TYPE h_seconds histogram\n"
              "h_seconds_bucket{le=\"5e-05\"} 0\n"
              "h_seconds_bucket{le=\"+Inf\"} 2\n"
              "h_seconds_sum 1.5\n"
              "h_seconds_count 2\n");
}

}  // namespace
}  // namespace objwire::daemon
