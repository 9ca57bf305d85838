// The sender's string -> table id lookup with its two shortcuts in front of the table's index:
// a record field's memo of the string it carried last, and a small cache of short strings.
// Both rest on one invariant, kept here: an id found for a string while the table's string
// epoch (encode_table::string_epoch) is E still names a live entry holding that string while
// the epoch is E. The epoch only grows, so an answer taken before an eviction or a reset is
// never trusted after it, and neither shortcut needs a look at the entry to be sure.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "proto/reference_table.hpp"
#include "proto/string_hash.hpp"

namespace objwire {

// A record field's last string found in the table: a field that repeats its value is
// answered by a comparison of its length and print (string_print, every byte of a string up
// to whole_print_max bytes) instead of a hash lookup.
struct string_memo {
    std::int64_t id = -1;  // -1: none
    std::uint64_t print = 0;
    std::uint64_t epoch = 0;
    std::uint32_t size = 0;

    void forget() { id = -1; }
};

class string_lookup {
  public:
    // The id of `s` (whose print the caller has) in `table`, if it is there; the memo, when
    // given, answers first. Like encode_table::find_string, it does not mark the entry used.
    std::optional<std::uint32_t> find(const encode_table& table, std::string_view s,
                                      std::uint64_t print, const string_memo& memo) {
        // A longer string that matches the memo's length and last word is compared whole.
        if (memo.id >= 0 && memo.print == print && memo.size == s.size() &&
            memo.epoch == table.string_epoch() &&
            (s.size() <= whole_print_max ||
             same_string(table.string_key(static_cast<std::uint32_t>(memo.id)), s)))
            return static_cast<std::uint32_t>(memo.id);
        return find(table, s, print);
    }

    // Without a memo: a string of up to whole_print_max bytes is answered from the cache when
    // it was found before, with no hash, probe or comparison of the entry (the print and
    // length are the whole string).
    std::optional<std::uint32_t> find(const encode_table& table, std::string_view s,
                                      std::uint64_t print) {
        // A small table (a fresh encoder's, one per lazy value) does without: the cache's
        // memory would cost more than it saves.
        if (s.size() > whole_print_max || table.string_count() < short_strings_from)
            return table.find_string(s);
        if (short_strings_.empty()) short_strings_.resize(std::size_t{1} << short_strings_bits);
        short_string& c = short_strings_[short_slot(print, s.size())];
        if (c.print == print && c.size == s.size() && c.epoch == table.string_epoch()) return c.id;
        const std::optional<std::uint32_t> id = table.find_string(s);
        if (id)
            c = short_string{print, table.string_epoch(), *id,
                             static_cast<std::uint32_t>(s.size())};
        return id;
    }

    // Makes `memo` answer `s` with `id`, the table's entry for it now.
    static void remember(string_memo& memo, const encode_table& table, std::uint32_t id,
                         std::string_view s, std::uint64_t print) {
        memo = string_memo{id, print, table.string_epoch(), static_cast<std::uint32_t>(s.size())};
    }

  private:
    // A find() answer, valid while the string epoch is the one it was found at.
    struct short_string {
        std::uint64_t print = 0;
        std::uint64_t epoch = 0;  // 0: empty (the epoch starts at 1)
        std::uint32_t id = 0;
        std::uint32_t size = 0;
    };
    static constexpr unsigned short_strings_bits = 10;
    static constexpr std::size_t short_strings_from = 64;  // string entries
    static std::size_t short_slot(std::uint64_t print, std::size_t size) {
        return static_cast<std::size_t>(((print + size) * 0x9E3779B97F4A7C15ull) >>
                                        (64 - short_strings_bits));
    }

    std::vector<short_string> short_strings_;  // 24 KiB once a short string is looked up
};

}  // namespace objwire
