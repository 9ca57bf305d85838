// The back-reference table, in its two mirrored halves. The receiver announces a budget in
// bytes; both peers charge every entry by the same rule (table_ledger), so the sender knows
// the receiver's table size exactly and never makes it exceed the budget, and the receiver
// refuses a stream that would. Ids are handed out in insertion order on both sides.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "proto/errors.hpp"
#include "proto/value.hpp"

namespace objwire {

// Fixed per-entry overhead in the accounting rule (docs/PROTOCOL.md, "Table accounting").
inline constexpr std::uint64_t table_entry_overhead = 32;

std::uint64_t string_entry_cost(std::string_view s);
std::uint64_t type_entry_cost(const record_type& t);

struct table_stats {
    std::uint64_t bytes = 0;  // current accounted size
    std::uint64_t peak_bytes = 0;
    std::uint64_t entries = 0;
    std::uint64_t hits = 0;
    std::uint64_t misses = 0;
    std::uint64_t inserts = 0;
    std::uint64_t evictions = 0;
    std::uint64_t resets = 0;
};

// The accounting both halves share: budget, size, ids, counters.
class table_ledger {
public:
    explicit table_ledger(std::uint64_t budget) : budget_(budget) {}

    std::uint64_t budget() const { return budget_; }
    bool fits(std::uint64_t cost) const { return stats_.bytes + cost <= budget_; }
    // Charges an entry and returns its id; the caller has checked fits().
    std::uint32_t charge(std::uint64_t cost);
    void clear();
    table_stats& stats() { return stats_; }
    const table_stats& stats() const { return stats_; }

private:
    std::uint64_t budget_;
    table_stats stats_;
};

// Receiver half: id -> entry.
class decode_table {
public:
    explicit decode_table(std::uint64_t budget) : ledger_(budget) {}

    proto_errc insert_string(std::string_view s);
    proto_errc insert_type(record_type_ptr t);
    // nullptr when the id is unknown or names the other kind of entry.
    const std::string* string_at(std::uint64_t id) const;
    const record_type_ptr* type_at(std::uint64_t id) const;
    void reset();
    const table_stats& stats() const { return ledger_.stats(); }

private:
    struct entry {
        std::string str;
        record_type_ptr type;  // null for string entries
    };
    table_ledger ledger_;
    std::vector<entry> entries_;
};

// Sender half: value -> id, mirroring the receiver's accounting.
class encode_table {
public:
    explicit encode_table(std::uint64_t budget) : ledger_(budget) {}

    std::optional<std::uint32_t> find_string(std::string_view s);
    std::optional<std::uint32_t> find_type(const record_type_ptr& t);
    // Insert if the receiver's budget allows; nullopt when it does not.
    std::optional<std::uint32_t> try_insert_string(std::string_view s);
    std::optional<std::uint32_t> try_insert_type(const record_type_ptr& t);
    void reset();
    const table_stats& stats() const { return ledger_.stats(); }

private:
    struct string_hash {
        using is_transparent = void;
        std::size_t operator()(std::string_view s) const noexcept {
            return std::hash<std::string_view>{}(s);
        }
    };
    static std::string type_key(const record_type& t);

    table_ledger ledger_;
    std::unordered_map<std::string, std::uint32_t, string_hash, std::equal_to<>> strings_;
    std::unordered_map<std::string, std::uint32_t, string_hash, std::equal_to<>> types_by_key_;
    // Pointer aliases of known types; the pointers are kept alive in type_owners_ so an
    // address is never reused for a different type while the alias exists.
    std::unordered_map<const record_type*, std::uint32_t> types_by_ptr_;
    std::vector<record_type_ptr> type_owners_;
    const record_type* last_type_ = nullptr;
    std::uint32_t last_type_id_ = 0;
};

}  // namespace objwire
