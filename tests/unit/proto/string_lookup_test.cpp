// string_lookup: a field's memo and the short-string cache answer exactly what the table's
// index answers, however the table's entries come and go (the string epoch invariant).
#include "proto/string_lookup.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace objwire {
namespace {

std::uint32_t insert(encode_table& table, std::string_view s) {
    EXPECT_TRUE(table.can_insert_string(s));
    return table.insert_string(s);
}

TEST(string_lookup, a_memo_answers_the_string_it_remembers) {
    encode_table table(1 << 20);
    string_lookup lookup;
    string_memo memo;
    const std::string s = "a-rather-long-host-name";
    const std::uint32_t id = insert(table, s);
    EXPECT_EQ(lookup.find(table, s, string_print(s), memo), id);
    string_lookup::remember(memo, table, id, s, string_print(s));
    EXPECT_EQ(lookup.find(table, s, string_print(s), memo), id);
}

// After a reset the memo's id names another string of the same length and print: the epoch,
// not the id, says it is stale.
TEST(string_lookup, a_memo_taken_before_a_reset_is_not_trusted_after_it) {
    encode_table table(1 << 20);
    string_lookup lookup;
    string_memo memo;
    const std::uint32_t id = insert(table, "abc");
    string_lookup::remember(memo, table, id, "abc", string_print("abc"));
    table.reset();
    EXPECT_EQ(lookup.find(table, "abc", string_print("abc"), memo), std::nullopt);
    EXPECT_EQ(insert(table, "xyz"), id);
    EXPECT_EQ(lookup.find(table, "abc", string_print("abc"), memo), std::nullopt);
}

TEST(string_lookup, a_memo_whose_entry_was_evicted_is_not_trusted) {
    encode_table table(300);  // a few entries
    string_lookup lookup;
    string_memo memo;
    const std::uint32_t id = insert(table, "first");
    string_lookup::remember(memo, table, id, "first", string_print("first"));
    for (int i = 0; table.find_string("first"); ++i)
        insert(table, "other" + std::to_string(i));
    EXPECT_EQ(lookup.find(table, "first", string_print("first"), memo), std::nullopt);
}

// Over whole_print_max bytes the print is the last 8 bytes only: the entry decides.
TEST(string_lookup, a_memo_tells_apart_long_strings_that_share_length_and_last_word) {
    encode_table table(1 << 20);
    string_lookup lookup;
    string_memo memo;
    const std::string a = "aaaa-12345678";
    const std::string b = "bbbb-12345678";
    ASSERT_EQ(string_print(a), string_print(b));
    const std::uint32_t id_a = insert(table, a);
    string_lookup::remember(memo, table, id_a, a, string_print(a));
    EXPECT_EQ(lookup.find(table, b, string_print(b), memo), std::nullopt);
    const std::uint32_t id_b = insert(table, b);
    EXPECT_EQ(lookup.find(table, b, string_print(b), memo), id_b);
}

// Memos of a few fields, kept as the encoder keeps them (remembered on a hit, forgotten on a
// miss), under constant eviction and occasional resets, against the index alone.
TEST(string_lookup, memos_and_cache_agree_with_the_index_under_eviction_and_reset) {
    encode_table table(8000);  // about 200 entries: over short_strings_from, and evicting
    string_lookup lookup;
    std::vector<string_memo> memos(4);
    std::mt19937 rng(5);
    for (int step = 0; step < 200000; ++step) {
        string_memo& memo = memos[rng() % memos.size()];
        // Fields repeat their value often, so the memo is what answers most lookups.
        const unsigned k = rng() % 3 == 0 ? rng() % 3000 : rng() % 8;
        std::string s = std::to_string(k);
        if (k % 3 == 0) s += "-long-enough";  // over whole_print_max
        const std::uint64_t print = string_print(s);
        const auto plain = table.find_string(s);
        const auto found = lookup.find(table, s, print, memo);
        ASSERT_EQ(found, plain) << step << " " << s;
        if (found) {
            table.use_string_id(*found);
            string_lookup::remember(memo, table, *found, s, print);
        } else {
            memo.forget();
            if (table.can_insert_string(s)) table.insert_string(s);
        }
        if (step % 50000 == 49999) table.reset();
    }
}

}  // namespace
}  // namespace objwire
