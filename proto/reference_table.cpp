#include "proto/reference_table.hpp"

#include <algorithm>

namespace objwire {

namespace {

// A heap block holding n bytes: glibc's 8-byte header and 16-byte rounding, kept simple.
constexpr std::uint64_t block(std::uint64_t n) {
    return n + 16;
}
// A value node (sizeof(value)) or a std::string object, where they are embedded.
constexpr std::uint64_t value_node = 48;
constexpr std::uint64_t string_object = 32;

// A record type descriptor as held on its own: the shared block (count, name, field vector),
// the name, and each field name.
std::uint64_t descriptor_cost(const record_type& t) {
    std::uint64_t cost = 96 + block(t.name.size());
    for (const auto& f : t.fields)
        cost += string_object + block(f.size());
    return cost;
}

}  // namespace

std::uint64_t string_entry_cost(std::string_view s) {
    return table_entry_overhead + block(s.size());
}
static_assert(min_entry_cost == table_entry_overhead + block(1));

std::uint64_t type_entry_cost(const record_type& t) {
    // The held part, the descriptor and the field history (an int64 per field).
    return table_entry_overhead + table_held_overhead + descriptor_cost(t) +
           block(8 * t.fields.size());
}

std::uint64_t object_entry_cost(const value& v) {
    // The root node lives in the held part.
    return table_entry_overhead + table_held_overhead - value_node + held_value_cost(v);
}

std::uint64_t held_value_cost(const value& v) {
    std::uint64_t cost = value_node;
    switch (v.type()) {
        case value::kind::string:
            return cost + block(v.get<std::string>().size());
        case value::kind::bytes:
            return cost + block(v.get<bytes>().data.size());
        case value::kind::list:
            cost += block(0);
            for (const auto& item : v.get<list>())
                cost += held_value_cost(item);
            return cost;
        case value::kind::map:
            cost += block(0);
            for (const auto& [key, item] : v.get<map>())
                cost += string_object + block(key.size()) + held_value_cost(item);
            return cost;
        case value::kind::record: {
            // The descriptor too: once its table entry is evicted this value alone holds it.
            const auto& r = v.get<record>();
            cost += block(0) + (r.type ? descriptor_cost(*r.type) : 0);
            for (const auto& field : r.fields)
                cost += held_value_cost(field);
            return cost;
        }
        case value::kind::lazy:
            return cost + 64 + block(v.get<lazy_value>().stored().size());
        default:
            return cost;
    }
}

// ---- table_slots ------------------------------------------------------------------------

void table_slots::evict_one(const std::function<void(std::uint32_t)>& on_evict) {
    // Terminates: can_insert() guarantees unpinned bytes exist, and a second pass finds every
    // referenced bit cleared.
    for (;;) {
        if (hand_ >= slots_.size()) hand_ = 0;
        slot& s = slots_[hand_];
        const std::uint32_t id = hand_++;
        if (s.cost == 0 || s.pins > 0) continue;
        if (s.referenced) {
            s.referenced = false;
            continue;
        }
        on_evict(id);
        stats_.bytes -= s.cost;
        --stats_.entries;
        ++stats_.evictions;
        s.cost = 0;
        free_.push(id);
        return;
    }
}

std::uint32_t table_slots::take(std::uint64_t cost) {
    std::uint32_t id;
    if (!free_.empty()) {
        id = free_.top();
        free_.pop();
    } else {
        id = static_cast<std::uint32_t>(slots_.size());
        reserve_for_budget(slots_, budget_);
        slots_.emplace_back();
    }
    slots_[id] = slot{cost, 0, false};
    stats_.bytes += cost;
    if (stats_.bytes > stats_.peak_bytes) stats_.peak_bytes = stats_.bytes;
    ++stats_.entries;
    ++stats_.inserts;
    return id;
}

void table_slots::clear() {
    slots_.clear();
    free_ = {};
    hand_ = 0;
    pinned_bytes_ = 0;
    stats_.bytes = 0;
    stats_.entries = 0;
    ++stats_.resets;
}

// ---- decode_table -----------------------------------------------------------------------

// A reset keeps the entries' storage for the inserts that follow (a fresh frame defines its
// strings again, each of them once per frame): their own strings are reused in place instead
// of built, moved in and destroyed per insert. Evicted and reset entries are emptied, so what
// an entry holds is always accounted for; only a short string's inline buffer stays.
decode_table::decode_table(std::uint64_t budget) : slots_(budget) {}

decode_table::entry* decode_table::claim(std::uint64_t cost, std::uint32_t& id) {
    if (!slots_.can_insert(cost)) return nullptr;
    ++slots_.stats().misses;  // the value came in full, and is kept for later references
    id = slots_.insert(cost, [this](std::uint32_t victim) { entries_[victim] = entry{}; });
    if (id >= entries_.size()) {
        reserve_for_budget(entries_, slots_.budget());
        entries_.resize(id + 1);
    }
    return &entries_[id];
}

proto_errc decode_table::insert_string(std::string_view s) {
    std::uint32_t id;
    entry* e = claim(string_entry_cost(s), id);
    if (!e) return proto_errc::table_budget_exceeded;
    e->what = entry::kind::string;
    e->str.assign(s);
    return proto_errc::ok;
}

proto_errc decode_table::insert_type(record_type_ptr t, std::uint32_t& id) {
    entry* e = claim(type_entry_cost(*t), id);
    if (!e) return proto_errc::table_budget_exceeded;
    e->what = entry::kind::type;
    e->more = std::make_unique<held>();
    e->more->history.assign(t->fields.size(), 0);
    e->more->type = std::move(t);
    return proto_errc::ok;
}

proto_errc decode_table::insert_object(value v, std::uint64_t expanded_bytes) {
    std::uint32_t id;
    entry* e = claim(object_entry_cost(v), id);
    if (!e) return proto_errc::table_budget_exceeded;
    e->what = entry::kind::object;
    e->more = std::make_unique<held>();
    e->more->object = std::move(v);
    e->more->expanded = expanded_bytes;
    return proto_errc::ok;
}

const std::string* decode_table::use_string(std::uint64_t id) {
    if (!slots_.live(id) || entries_[id].what != entry::kind::string) return nullptr;
    slots_.touch(static_cast<std::uint32_t>(id));
    ++slots_.stats().hits;  // a value that came as a back-reference
    return &entries_[id].str;
}

const record_type_ptr* decode_table::use_type(std::uint64_t id) {
    if (!slots_.live(id) || entries_[id].what != entry::kind::type) return nullptr;
    slots_.touch(static_cast<std::uint32_t>(id));
    ++slots_.stats().hits;  // a value that came as a back-reference
    return &entries_[id].more->type;
}

const value* decode_table::use_object(std::uint64_t id) {
    if (!slots_.live(id) || entries_[id].what != entry::kind::object) return nullptr;
    slots_.touch(static_cast<std::uint32_t>(id));
    ++slots_.stats().hits;  // a value that came as a back-reference
    return &entries_[id].more->object;
}

void decode_table::reset() {
    // Only short strings keep their (inline) storage: anything that owns memory is freed.
    const std::size_t used = std::min(slots_.slot_count(), entries_.size());
    for (std::size_t i = 0; i < used; ++i) {
        entry& e = entries_[i];
        if (e.more || e.str.capacity() > short_string_capacity) e = entry{};
    }
    slots_.clear();
}

// ---- encode_table -----------------------------------------------------------------------

std::string encode_table::type_key(const record_type& t) {
    std::string key = t.name;
    for (const auto& f : t.fields) {
        key.push_back('\0');
        key += f;
    }
    return key;
}

std::optional<std::uint32_t> encode_table::use_string(std::string_view s) {
    const auto id = find_string(s);
    if (!id) {
        ++slots_.stats().misses;
        return std::nullopt;
    }
    ++slots_.stats().hits;
    slots_.touch(*id);
    return id;
}

std::optional<std::uint32_t> encode_table::use_type(const record_type_ptr& t) {
    std::uint32_t id;
    if (t.get() == last_type_) {
        id = last_type_id_;
    } else if (auto it = types_by_ptr_.find(t.get()); it != types_by_ptr_.end()) {
        id = it->second;
    } else {
        auto by_key = types_by_key_.find(type_key(*t));
        if (by_key == types_by_key_.end()) return std::nullopt;
        id = by_key->second;
        types_by_ptr_.emplace(t.get(), id);
        entries_[id].more->aliases.push_back(t);
    }
    last_type_ = t.get();
    last_type_id_ = id;
    slots_.touch(id);
    return id;
}

void encode_table::evict(std::uint32_t id) {
    entry& e = entries_[id];
    if (e.object_key != 0) {
        if (auto it = objects_.find(e.object_key); it != objects_.end() && it->second == id)
            objects_.erase(it);
    } else if (const record_type* type = e.type()) {
        types_by_key_.erase(e.key);
        types_by_ptr_.erase(type);
        for (const auto& a : e.more->aliases)
            types_by_ptr_.erase(a.get());
        if (last_type_ == type || last_type_id_ == id) last_type_ = nullptr;
    } else {
        strings_.erase(e.key, id);
        ++string_epoch_;
    }
    e = entry{};
}

encode_table::entry& encode_table::claim(std::uint64_t cost, std::uint32_t& id) {
    id = slots_.insert(cost, [this](std::uint32_t victim) { evict(victim); });
    if (id >= entries_.size()) entries_.resize(id + 1);
    return entries_[id];
}

std::optional<std::uint32_t> encode_table::use_object(std::uint64_t key, const value& v) {
    auto id = find_object(key, v);
    if (id) slots_.touch(*id);
    return id;
}

std::optional<std::uint32_t> encode_table::find_object(std::uint64_t key, const value& v) const {
    auto it = objects_.find(key);
    if (it == objects_.end() || !(entries_[it->second].more->object == v)) return std::nullopt;
    return it->second;
}

void encode_table::insert_object(std::uint64_t key, const value& v, std::uint64_t cost,
                                 std::uint64_t expanded_bytes) {
    std::uint32_t id;
    entry& e = claim(cost, id);
    e.object_key = key;
    e.more = std::make_unique<held>();
    e.more->object = v;
    e.more->expanded = expanded_bytes;
    objects_[key] = id;
}

std::uint32_t encode_table::insert_string(std::string_view s) {
    std::uint32_t id;
    entry& e = claim(string_entry_cost(s), id);
    e.key.assign(s);
    strings_.insert(e.key, id);
    return id;
}

std::uint32_t encode_table::insert_type(const record_type_ptr& t) {
    std::uint32_t id;
    entry& e = claim(type_entry_cost(*t), id);
    e.key = type_key(*t);
    e.more = std::make_unique<held>();
    e.more->type = t;
    e.more->history.assign(t->fields.size(), 0);
    types_by_key_.emplace(e.key, id);
    types_by_ptr_.emplace(t.get(), id);
    return id;
}

void encode_table::reset() {
    // As decode_table::reset(): entries that own memory are emptied, short strings stay.
    const std::size_t used = std::min(slots_.slot_count(), entries_.size());
    for (std::size_t i = 0; i < used; ++i) {
        entry& e = entries_[i];
        if (e.more || e.key.capacity() > short_string_capacity) e = entry{};
    }
    strings_.clear();
    types_by_key_.clear();
    types_by_ptr_.clear();
    objects_.clear();
    last_type_ = nullptr;
    ++string_epoch_;
    slots_.clear();
}

}  // namespace objwire
