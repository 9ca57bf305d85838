// "Did you mean" (config/suggest.hpp).
#include "config/suggest.hpp"

#include <algorithm>
#include <cctype>
#include <string_view>
#include <vector>

namespace objwire::config {

std::string_view section_of(std::string_view name) {
    const auto dot = name.find('.');
    return dot == std::string_view::npos ? std::string_view{} : name.substr(0, dot);
}

std::string_view leaf_of(std::string_view name) {
    const auto dot = name.rfind('.');
    return dot == std::string_view::npos ? name : name.substr(dot + 1);
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
    for (std::size_t i = 0; i <= a.size(); ++i)
        d[i][0] = i;
    for (std::size_t j = 0; j <= b.size(); ++j)
        d[0][j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
                d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
            }
        }
    }
    return d[a.size()][b.size()];
}

std::optional<std::string_view> suggest(std::string_view wrong,
                                        const std::vector<std::string_view>& candidates) {
    // "INFO" is "info" to a reader, though four edits away.
    for (const auto c : candidates) {
        if (c.size() == wrong.size() && c != wrong &&
            std::equal(c.begin(), c.end(), wrong.begin(), [](char a, char b) {
                return std::tolower(static_cast<unsigned char>(a)) ==
                       std::tolower(static_cast<unsigned char>(b));
            }))
            return c;
    }
    const auto wrong_leaf = leaf_of(wrong);
    if (wrong_leaf != wrong) {
        for (const auto c : candidates) {
            if (leaf_of(c) == wrong_leaf && c != wrong) return c;
        }
    } else {
        for (const auto c : candidates) {
            if (leaf_of(c) == wrong) return c;
        }
    }
    const std::size_t limit = std::max<std::size_t>(1, wrong.size() / 3);
    std::optional<std::string_view> best;
    std::size_t best_distance = limit + 1;
    for (const auto c : candidates) {
        const auto distance = edit_distance(wrong, c);
        if (distance < best_distance) {
            best = c;
            best_distance = distance;
        }
    }
    if (best) return best;
    for (const auto c : candidates) {
        if (section_of(c) != section_of(wrong)) continue;
        const auto a = leaf_of(c);
        const auto b = wrong_leaf;
        const auto shorter = std::min(a.size(), b.size());
        if (shorter >= 3 && (a.starts_with(b) || b.starts_with(a))) return c;
    }
    return std::nullopt;
}

}  // namespace objwire::config
