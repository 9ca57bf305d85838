// The back-reference table, in its two mirrored halves. The receiver announces a budget in
// bytes; both peers charge every entry by the same rule and run the same deterministic
// eviction (table_slots), so the sender knows the receiver's table exactly, never makes it
// exceed the budget, and the receiver refuses a stream that would.
//
// Eviction is CLOCK: every use of an entry (a back-reference on the wire) sets its
// `referenced` bit; to make room the hand sweeps the slots, clearing set bits and evicting the
// first entry found clear. Recurring constants (names, type descriptors) are referenced all the
// time and survive; values used once go first. A new entry takes the lowest free id. Entries
// pinned by the record being coded (its type) are never evicted while pinned. Both peers see
// the same inserts, references and pins in the same order, so they evict the same entries.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <queue>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "proto/errors.hpp"
#include "proto/string_index.hpp"
#include "proto/table_stats.hpp"
#include "proto/value.hpp"

namespace objwire {

// The accounting rule (docs/PROTOCOL.md section 5): an entry is charged what the receiver
// spends holding it - its slot (decode_table's entry and table_slots' slot), the decoded values
// and containers it keeps and their heap blocks - so a budget in bytes is memory in bytes
// whatever the peer puts in it. Both peers compute it from the same value, so the sender's
// mirror stays exact. The figures are what libstdc++ and glibc spend on x86-64 (value: 48
// bytes, std::string: 32, a heap block: its size + 8, rounded up to 16), kept a little above.
inline constexpr std::uint64_t table_entry_overhead = 64;
// A kept object's or type's separately allocated part of an entry (decode_table::held).
inline constexpr std::uint64_t table_held_overhead = 128;
// What a std::string holds without a heap block: a reset keeps only such strings' storage.
inline const std::size_t short_string_capacity = std::string().capacity();

std::uint64_t string_entry_cost(std::string_view s);
std::uint64_t type_entry_cost(const record_type& t);
// A kept object's entry: the overheads + held_value_cost(v).
std::uint64_t object_entry_cost(const value& v);
// What holding the decoded value v costs (its node, and all it owns).
std::uint64_t held_value_cost(const value& v);

// The cheapest entry there is (a one-byte string): a table of `budget` bytes has at most
// budget / min_entry_cost + 1 entries.
inline constexpr std::uint64_t min_entry_cost = table_entry_overhead + 17;

// Before a table's vector of slots grows past a small size: reserves what a full table needs at
// once, so it never holds a vector and its doubled copy together (a full 4 MiB table of short
// strings had 2.4 MB of slots freed behind it). Reserved pages cost nothing until used.
template <class Vector>
void reserve_for_budget(Vector& v, std::uint64_t budget) {
    constexpr std::size_t small = 1024;
    constexpr std::uint64_t largest = std::uint64_t{1} << 21;  // past it, doubling as before
    if (v.size() < v.capacity() || v.size() < small) return;
    const std::uint64_t most = std::min(budget / min_entry_cost + 1, largest);
    if (most > v.size()) v.reserve(static_cast<std::size_t>(most));
}

// Ids, costs, CLOCK bits and pins: the part of the table both halves run identically.
class table_slots {
  public:
    explicit table_slots(std::uint64_t budget) : budget_(budget) {}

    std::uint64_t budget() const { return budget_; }
    // Whether an entry of `cost` can be inserted (evicting unpinned entries as needed).
    bool can_insert(std::uint64_t cost) const { return pinned_bytes_ + cost <= budget_; }
    // Evicts until `cost` fits, calling on_evict(id) for each victim, then charges the entry
    // and returns its id. Precondition: can_insert(cost).
    template <class OnEvict>
    std::uint32_t insert(std::uint64_t cost, const OnEvict& on_evict) {
        while (stats_.bytes + cost > budget_)
            evict_one(on_evict);
        return take(cost);
    }
    bool live(std::uint64_t id) const { return id < slots_.size() && slots_[id].cost != 0; }
    void touch(std::uint32_t id) { slots_[id].referenced = true; }
    void pin(std::uint32_t id) {
        if (slots_[id].pins++ == 0) pinned_bytes_ += slots_[id].cost;
    }
    void unpin(std::uint32_t id) {
        if (--slots_[id].pins == 0) pinned_bytes_ -= slots_[id].cost;
    }
    void clear();
    std::size_t slot_count() const { return slots_.size(); }
    table_stats& stats() { return stats_; }
    const table_stats& stats() const { return stats_; }

  private:
    struct slot {
        std::uint64_t cost = 0;  // 0: free
        std::uint32_t pins = 0;
        bool referenced = false;
    };
    void evict_one(const std::function<void(std::uint32_t)>& on_evict);
    // Charges an entry of `cost` that fits and returns its id: the lowest free one.
    std::uint32_t take(std::uint64_t cost);

    std::uint64_t budget_;
    std::uint64_t pinned_bytes_ = 0;
    std::vector<slot> slots_;
    std::priority_queue<std::uint32_t, std::vector<std::uint32_t>, std::greater<>> free_;
    std::uint32_t hand_ = 0;
    table_stats stats_;
};

// Per record type: the last integer each field carried, for delta-coded integers. Lives in
// the type's table entry, so eviction and reset clear it on both sides alike.
using field_history = std::vector<std::int64_t>;

// Receiver half: id -> entry.
class decode_table {
  public:
    explicit decode_table(std::uint64_t budget);

    proto_errc insert_string(std::string_view s);
    // On success `id` is the new entry's id.
    proto_errc insert_type(record_type_ptr t, std::uint32_t& id);
    // A kept object, moved in; its cost is object_entry_cost(v).
    // `expanded_bytes` is what a reference to it decodes to (wire bytes + the reference
    // bytes its value was charged), charged again on every reference.
    proto_errc insert_object(value v, std::uint64_t expanded_bytes);
    const value* use_object(std::uint64_t id);
    // Of a live object entry (after use_object succeeded).
    std::uint64_t object_expanded_bytes(std::uint64_t id) const {
        return entries_[id].more->expanded;
    }
    // Looks an entry up and marks it used; nullptr when the id is unknown or of the other kind.
    const std::string* use_string(std::uint64_t id);
    const record_type_ptr* use_type(std::uint64_t id);
    field_history& history(std::uint32_t type_id) { return entries_[type_id].more->history; }
    void pin(std::uint32_t id) { slots_.pin(id); }
    void unpin(std::uint32_t id) { slots_.unpin(id); }
    void reset();
    // Nothing inserted since the start or the last reset: a decoder in this state decodes
    // what follows exactly as a new one would.
    bool fresh() const { return slots_.slot_count() == 0; }
    const table_stats& stats() const { return slots_.stats(); }
    // A payload decoded a second time into the same end state (decode_checked_again) counts
    // once: its stats are set back to the first pass's.
    void restore_stats(const table_stats& s) { slots_.stats() = s; }

  private:
    // What only types and kept objects hold, apart: a string entry stays 48 bytes.
    struct held {
        record_type_ptr type;
        field_history history;
        value object;
        std::uint64_t expanded = 0;  // kept objects: reference bytes per reference
    };
    struct entry {
        std::string str;
        std::unique_ptr<held> more;
        enum class kind : std::uint8_t { string, type, object } what = kind::string;

        entry() = default;
        entry(entry&&) = default;
        entry& operator=(entry&&) = default;
        // A copied decoder (tests compare two) gets its own held parts.
        entry(const entry& o)
            : str(o.str), more(o.more ? std::make_unique<held>(*o.more) : nullptr), what(o.what) {}
        entry& operator=(const entry& o) { return *this = entry(o); }
    };
    // Both must stay within what the accounting rule charges for them.
    static_assert(sizeof(entry) + 16 <= table_entry_overhead);
    static_assert(sizeof(held) + 16 <= table_held_overhead);
    // The entry for a new id, charged `cost` (evicting as needed), or nullptr when the
    // budget cannot take it. Its storage is an earlier entry's, emptied (see reset()).
    entry* claim(std::uint64_t cost, std::uint32_t& id);

    table_slots slots_;
    std::vector<entry> entries_;
};

// Sender half: value -> id, mirroring the receiver's accounting and eviction.
class encode_table {
  public:
    explicit encode_table(std::uint64_t budget) : slots_(budget) {}

    // Finds an entry and marks it used (as the receiver will when it reads the reference).
    std::optional<std::uint32_t> use_string(std::string_view s);
    std::optional<std::uint32_t> use_type(const record_type_ptr& t);
    // The identity of the live type entry `id` across pointers (its name and field names), or
    // nullptr when id is not a live type.
    const std::string* type_key_of(std::uint32_t id) const {
        return id < entries_.size() && entries_[id].type() && slots_.live(id) ? &entries_[id].key
                                                                              : nullptr;
    }
    // Changes whenever a string entry may have gone (evicted, or the table reset): an id found
    // for a string at one epoch still names a live entry holding that string while the epoch
    // is the same, so the encoder's shortcuts to it (proto/string_lookup.hpp) need no look at
    // the entry.
    std::uint64_t string_epoch() const { return string_epoch_; }
    // The string of a live string entry.
    std::string_view string_key(std::uint32_t id) const { return entries_[id].key; }
    // Counts a use of the string entry `id` (found by find_string or a memo of it).
    std::uint32_t use_string_id(std::uint32_t id) {
        ++slots_.stats().hits;
        slots_.touch(id);
        return id;
    }
    // Looks without marking the entry used: a reference the frame cannot afford is sent as a
    // literal instead, and the receiver must not see a use that never happened.
    std::optional<std::uint32_t> find_string(std::string_view s) const {
        return strings_.find(
            s, [this](std::uint32_t id) -> std::string_view { return entries_[id].key; });
    }
    // String entries in the table.
    std::size_t string_count() const { return strings_.size(); }
    void count_miss() { ++slots_.stats().misses; }
    bool can_insert_string(std::string_view s) const {
        return slots_.can_insert(string_entry_cost(s));
    }
    bool can_insert_type(const record_type& t) const {
        return slots_.can_insert(type_entry_cost(t));
    }
    // Inserts; the caller checked can_insert_*.
    std::uint32_t insert_string(std::string_view s);
    std::uint32_t insert_type(const record_type_ptr& t);
    // Kept objects, by the sender's key: the id of an entry holding exactly `v`, if any.
    std::optional<std::uint32_t> use_object(std::uint64_t key, const value& v);
    // The same without marking it used; use_object_id() then marks it.
    std::optional<std::uint32_t> find_object(std::uint64_t key, const value& v) const;
    void use_object_id(std::uint32_t id) { slots_.touch(id); }
    std::uint64_t object_expanded_bytes(std::uint32_t id) const {
        return entries_[id].more->expanded;
    }
    // `cost` is object_entry_cost(v).
    bool can_insert_object(std::uint64_t cost) const { return slots_.can_insert(cost); }
    // Keeps `v` under `key`, replacing what the key named before (the old entry ages out).
    void insert_object(std::uint64_t key, const value& v, std::uint64_t cost,
                       std::uint64_t expanded_bytes);
    void forget_object(std::uint64_t key) { objects_.erase(key); }
    field_history& history(std::uint32_t type_id) { return entries_[type_id].more->history; }
    void pin(std::uint32_t id) { slots_.pin(id); }
    void unpin(std::uint32_t id) { slots_.unpin(id); }
    void reset();
    const table_stats& stats() const { return slots_.stats(); }
    // A message encoded, then dropped and encoded again after a reset, never reached the
    // receiver: the uses, inserts and evictions it counted between `before` and `after` go.
    void forget_counts(const table_stats& before, const table_stats& after) {
        auto& s = slots_.stats();
        s.hits -= after.hits - before.hits;
        s.misses -= after.misses - before.misses;
        s.inserts -= after.inserts - before.inserts;
        s.evictions -= after.evictions - before.evictions;
    }
    std::uint64_t budget() const { return slots_.budget(); }

  private:
    struct string_hash {
        using is_transparent = void;
        std::size_t operator()(std::string_view s) const noexcept { return hash_string(s); }
    };
    // What only types and kept objects hold, apart (as decode_table's): a string entry stays
    // 48 bytes, so a table of strings is a third of the memory to fill and to walk.
    struct held {
        record_type_ptr type;
        std::vector<record_type_ptr> aliases;  // other pointers naming this type, kept alive
        field_history history;
        value object;
        std::uint64_t expanded = 0;  // kept objects: reference bytes per reference
    };
    struct entry {
        std::string key;               // the string, or the type's key
        std::uint64_t object_key = 0;  // non-zero: a kept object
        std::unique_ptr<held> more;    // a type's or a kept object's parts
        const record_type* type() const { return more ? more->type.get() : nullptr; }
    };
    static_assert(sizeof(entry) <= 48);
    static std::string type_key(const record_type& t);
    void evict(std::uint32_t id);
    // The entry for a new id, charged `cost` (evicting as needed); emptied as claim() above.
    entry& claim(std::uint64_t cost, std::uint32_t& id);

    table_slots slots_;
    std::vector<entry> entries_;
    string_index strings_;  // string entries, by value
    std::unordered_map<std::string, std::uint32_t, string_hash, std::equal_to<>> types_by_key_;
    // Every pointer that names a known type. Its entry keeps the pointee alive, so an address
    // is never reused for another type while it is mapped.
    std::unordered_map<const record_type*, std::uint32_t> types_by_ptr_;
    std::unordered_map<std::uint64_t, std::uint32_t> objects_;  // sender's key -> entry
    const record_type* last_type_ = nullptr;
    std::uint32_t last_type_id_ = 0;
    std::uint64_t string_epoch_ = 1;
};

}  // namespace objwire
