// string_index: the sender's open-addressing string lookup agrees with std::unordered_map
// under random inserts, erases (backward-shift deletion) and clears, across growth.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "proto/string_index.hpp"

namespace {

TEST(string_index, agrees_with_a_map_under_random_operations) {
    objwire::string_index index;
    std::vector<std::string> keys;  // by id; "" once erased
    std::unordered_map<std::string, std::uint32_t> model;
    std::mt19937 rng(7);
    const auto key_of = [&](std::uint32_t id) -> std::string_view { return keys[id]; };
    // Few distinct strings, so inserts, hits, misses and erases all happen often, and long
    // probe runs form and are shifted back.
    const auto random_string = [&] { return "s" + std::to_string(rng() % 3000); };
    for (int step = 0; step < 200000; ++step) {
        const auto s = random_string();
        const auto found = index.find(s, key_of);
        const auto it = model.find(s);
        ASSERT_EQ(found.has_value(), it != model.end()) << "step " << step << " " << s;
        if (found) {
            ASSERT_EQ(*found, it->second);
        }
        const unsigned action = rng() % 10;
        if (!found && action < 6) {
            const auto id = static_cast<std::uint32_t>(keys.size());
            keys.push_back(s);
            index.insert(s, id);
            model.emplace(s, id);
        } else if (found && action < 4) {
            index.erase(s, *found);
            keys[*found].clear();
            model.erase(s);
        } else if (action == 9 && step % 5000 == 0) {
            index.clear();
            model.clear();
        }
        ASSERT_EQ(index.size(), model.size());
    }
    for (const auto& [s, id] : model)
        EXPECT_EQ(index.find(s, key_of), id);
}

TEST(string_index, erase_of_an_absent_entry_changes_nothing) {
    objwire::string_index index;
    std::vector<std::string> keys{"a", "b"};
    const auto key_of = [&](std::uint32_t id) -> std::string_view { return keys[id]; };
    index.erase("a", 0);
    index.insert("a", 0);
    index.erase("b", 1);
    index.erase("a", 5);
    EXPECT_EQ(index.size(), 1u);
    EXPECT_EQ(index.find("a", key_of), 0u);
    EXPECT_FALSE(index.find("b", key_of));
}

}  // namespace

namespace {

// same_string reads short keys as overlapping words: a difference at any byte of any length
// is seen, and equal strings at different addresses are equal.
TEST(string_index, same_string_sees_every_byte_at_every_length) {
    for (std::size_t n = 0; n <= 40; ++n) {
        const std::string a(n, 'k');
        const std::string b = a;  // its own buffer
        EXPECT_TRUE(objwire::same_string(a, b)) << n;
        for (std::size_t i = 0; i < n; ++i) {
            std::string c = a;
            c[i] = 'x';
            EXPECT_FALSE(objwire::same_string(a, c)) << n << " at " << i;
        }
        EXPECT_FALSE(objwire::same_string(a, a + "k")) << n;
    }
}

}  // namespace
