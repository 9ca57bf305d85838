#include "proto/reference_table.hpp"

namespace objwire {

std::uint64_t string_entry_cost(std::string_view s) { return s.size() + table_entry_overhead; }

std::uint64_t type_entry_cost(const record_type& t) {
    std::uint64_t cost = table_entry_overhead + t.name.size();
    for (const auto& f : t.fields) cost += f.size() + 8;
    return cost;
}

std::uint32_t table_ledger::charge(std::uint64_t cost) {
    stats_.bytes += cost;
    if (stats_.bytes > stats_.peak_bytes) stats_.peak_bytes = stats_.bytes;
    ++stats_.inserts;
    return static_cast<std::uint32_t>(stats_.entries++);
}

void table_ledger::clear() {
    stats_.bytes = 0;
    stats_.entries = 0;
    ++stats_.resets;
}

proto_errc decode_table::insert_string(std::string_view s) {
    std::uint64_t cost = string_entry_cost(s);
    if (!ledger_.fits(cost)) return proto_errc::table_budget_exceeded;
    ledger_.charge(cost);
    entries_.push_back(entry{std::string(s), nullptr});
    return proto_errc::ok;
}

proto_errc decode_table::insert_type(record_type_ptr t) {
    std::uint64_t cost = type_entry_cost(*t);
    if (!ledger_.fits(cost)) return proto_errc::table_budget_exceeded;
    ledger_.charge(cost);
    entries_.push_back(entry{{}, std::move(t)});
    return proto_errc::ok;
}

const std::string* decode_table::string_at(std::uint64_t id) const {
    if (id >= entries_.size() || entries_[id].type) return nullptr;
    return &entries_[id].str;
}

const record_type_ptr* decode_table::type_at(std::uint64_t id) const {
    if (id >= entries_.size() || !entries_[id].type) return nullptr;
    return &entries_[id].type;
}

void decode_table::reset() {
    entries_.clear();
    ledger_.clear();
}

std::string encode_table::type_key(const record_type& t) {
    std::string key = t.name;
    for (const auto& f : t.fields) {
        key.push_back('\0');
        key += f;
    }
    return key;
}

std::optional<std::uint32_t> encode_table::find_string(std::string_view s) {
    auto it = strings_.find(s);
    if (it == strings_.end()) {
        ++ledger_.stats().misses;
        return std::nullopt;
    }
    ++ledger_.stats().hits;
    return it->second;
}

std::optional<std::uint32_t> encode_table::find_type(const record_type_ptr& t) {
    if (t.get() == last_type_) return last_type_id_;
    auto it = types_by_ptr_.find(t.get());
    std::uint32_t id;
    if (it != types_by_ptr_.end()) {
        id = it->second;
    } else {
        auto by_key = types_by_key_.find(type_key(*t));
        if (by_key == types_by_key_.end()) return std::nullopt;
        id = by_key->second;
        types_by_ptr_.emplace(t.get(), id);
        type_owners_.push_back(t);
    }
    last_type_ = t.get();
    last_type_id_ = id;
    return id;
}

std::optional<std::uint32_t> encode_table::try_insert_string(std::string_view s) {
    std::uint64_t cost = string_entry_cost(s);
    if (!ledger_.fits(cost)) return std::nullopt;
    std::uint32_t id = ledger_.charge(cost);
    strings_.emplace(std::string(s), id);
    return id;
}

std::optional<std::uint32_t> encode_table::try_insert_type(const record_type_ptr& t) {
    std::uint64_t cost = type_entry_cost(*t);
    if (!ledger_.fits(cost)) return std::nullopt;
    std::uint32_t id = ledger_.charge(cost);
    types_by_key_.emplace(type_key(*t), id);
    types_by_ptr_.emplace(t.get(), id);
    type_owners_.push_back(t);
    return id;
}

void encode_table::reset() {
    strings_.clear();
    types_by_key_.clear();
    types_by_ptr_.clear();
    type_owners_.clear();
    last_type_ = nullptr;
    ledger_.clear();
}

}  // namespace objwire
