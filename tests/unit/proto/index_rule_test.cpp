// The encoder's rule for which strings enter the reference table (proto/index_rule.hpp),
// driven directly: the routes it gives a field's values and what it counts for each.
#include "proto/index_rule.hpp"

#include <gtest/gtest.h>

namespace objwire {
namespace {

constexpr std::uint32_t warmup = index_rule::warmup_inserts;
constexpr std::uint32_t probe = index_rule::probe_every;

// A field past its warm-up whose indexed values never hit: what the adaptive rule declines.
index_counts declined_field(const index_rule& rule) {
    index_counts c;
    for (std::uint32_t i = 0; i < warmup; ++i) {
        EXPECT_EQ(rule.decide(c), string_route::look_up) << i;
        EXPECT_TRUE(rule.on_miss(c, string_route::look_up)) << i;
    }
    EXPECT_EQ(c.inserts, warmup);
    return c;
}

TEST(index_rule, without_the_adaptive_policy_every_string_is_looked_up_and_every_miss_indexed) {
    const index_rule rule(false);
    index_counts c;
    for (int i = 0; i < 10000; ++i) {
        ASSERT_EQ(rule.decide(c), string_route::look_up);
        ASSERT_TRUE(rule.on_miss(c, string_route::look_up));
    }
    rule.on_hit(c, string_route::look_up);
    EXPECT_EQ(c.inserts, 0u);
    EXPECT_EQ(c.hits, 0u);
    EXPECT_EQ(c.declined, 0u);
}

TEST(index_rule, a_field_indexes_its_first_values_before_it_is_judged) {
    const index_rule rule(true);
    index_counts c = declined_field(rule);
    EXPECT_EQ(c.declined, 0u);
    EXPECT_NE(rule.decide(c), string_route::look_up);  // judged now: no hits at all
}

TEST(index_rule, a_declined_field_samples_one_value_in_probe_every_and_counts_each_decline_once) {
    const index_rule rule(true);
    index_counts c = declined_field(rule);
    int samples = 0;
    for (std::uint32_t i = 1; i <= 10 * probe; ++i) {
        const string_route how = rule.decide(c);
        ASSERT_EQ(c.declined, i);
        ASSERT_EQ(how == string_route::sample, i % probe == 0) << i;
        if (how == string_route::sample) {
            ++samples;
            ASSERT_TRUE(rule.on_miss(c, how));  // a sampled miss is indexed
        }
    }
    EXPECT_EQ(samples, 10);
    EXPECT_EQ(c.inserts, warmup + 10);
}

TEST(index_rule, a_field_whose_values_earn_a_quarter_of_a_hit_keeps_being_looked_up) {
    const index_rule rule(true);
    index_counts c;
    for (int i = 0; i < 20000; ++i) {
        ASSERT_EQ(rule.decide(c), string_route::look_up) << i;
        if (i % 4 == 0)
            rule.on_hit(c, string_route::look_up);
        else
            ASSERT_TRUE(rule.on_miss(c, string_route::look_up)) << i;
    }
    EXPECT_EQ(c.declined, 0u);
}

TEST(index_rule, a_declined_field_whose_samples_start_to_hit_is_looked_up_again) {
    const index_rule rule(true);
    index_counts c = declined_field(rule);
    int decides = 0;
    while (rule.decide(c) != string_route::look_up) {
        ASSERT_LT(++decides, 1000000);
        rule.on_hit(c, string_route::sample);  // every sample and looked-up value hits now
    }
    EXPECT_GE(c.hits * 4, c.inserts);
}

TEST(index_rule, counts_are_halved_past_decay_at_so_old_behaviour_fades) {
    const index_rule rule(true);
    index_counts c;
    c.hits = index_rule::decay_at - 1;
    c.inserts = 1;
    rule.on_hit(c, string_route::look_up);
    EXPECT_EQ(c.hits, index_rule::decay_at / 2);
    EXPECT_EQ(c.inserts, 0u);
    c = index_counts{};
    c.hits = index_rule::decay_at;
    rule.on_miss(c, string_route::look_up);
    EXPECT_EQ(c.hits, index_rule::decay_at / 2);
    EXPECT_EQ(c.inserts, 1u);
}

// A string nested in a field (a list's item) is looked up without a decision: its misses are
// sampled by the same count.
TEST(index_rule, a_miss_looked_up_without_a_decision_in_a_declined_field_is_indexed_as_a_sample) {
    const index_rule rule(true);
    index_counts c = declined_field(rule);
    int indexed = 0;
    for (std::uint32_t i = 1; i <= 4 * probe; ++i) {
        if (rule.on_miss(c, string_route::look_up)) ++indexed;
        ASSERT_EQ(c.declined, i);
    }
    EXPECT_EQ(indexed, 4);
    EXPECT_EQ(c.inserts, warmup + 4);
}

TEST(index_rule, type_names_are_always_indexed_and_counted_nowhere) {
    const index_rule rule(true);
    index_counts c = declined_field(rule);
    const index_counts before = c;
    for (int i = 0; i < 1000; ++i) {
        ASSERT_TRUE(rule.on_miss(c, string_route::always));
        rule.on_hit(c, string_route::always);
    }
    EXPECT_EQ(c.inserts, before.inserts);
    EXPECT_EQ(c.hits, before.hits);
    EXPECT_EQ(c.declined, before.declined);
}

}  // namespace
}  // namespace objwire
