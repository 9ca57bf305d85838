// The JSON-lines reader's objects (client/jsonl/jsonl_reader_impl.hpp): records, maps, shared
// objects ("$id", "$ref") and the other markers ("$bytes", "$float", "$value"), and the
// interning of record types.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <deque>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "client/jsonl/jsonl_diagnostics.hpp"
#include "client/jsonl/jsonl_reader_impl.hpp"

namespace objwire {
namespace {

marker marker_of(std::string_view key) {
    if (key.empty() || key[0] != '$') return marker::none;
    if (key.size() >= 2 && key[1] == '$') return marker::none;
    if (key == "$id") return marker::id;
    if (key == "$ref") return marker::ref;
    if (key == "$type") return marker::type;
    if (key == "$bytes") return marker::bytes;
    if (key == "$float") return marker::float_;
    if (key == "$value") return marker::value;
    return marker::unknown;
}

// The frequent markers ($id, $ref, $type) recognised from the raw key, without unescaping
// it; marker::unknown means "not recognised this way": the caller unescapes the key (which
// also finds a marker written with escapes, like "\u0024ref").
marker quick_marker(od::raw_json_string key) {
    const char* k = key.raw();  // the padding makes reading past a short key safe
    if (k[0] != '$') return marker::unknown;
    switch (k[1]) {
        case 'i':
            return std::memcmp(k, "$id\"", 4) == 0 ? marker::id : marker::unknown;
        case 'r':
            return std::memcmp(k, "$ref\"", 5) == 0 ? marker::ref : marker::unknown;
        case 't':
            return std::memcmp(k, "$type\"", 6) == 0 ? marker::type : marker::unknown;
        default:
            return marker::unknown;
    }
}

// The text of a marker (as written without escapes).
std::string_view marker_name(marker m) {
    switch (m) {
        case marker::id:
            return "$id";
        case marker::ref:
            return "$ref";
        case marker::type:
            return "$type";
        case marker::bytes:
            return "$bytes";
        case marker::float_:
            return "$float";
        case marker::value:
            return "$value";
        default:
            return {};
    }
}

// A marker where its object may not have it.
std::string misplaced_marker_message(marker mk, std::string_view key) {
    std::string name(key.empty() ? marker_name(mk) : key);
    switch (mk) {
        case marker::value:
            return "\"$value\" must be the only key of its object besides \"$id\"";
        case marker::id:
            return "\"$id\" is given twice in one object";
        case marker::ref:
            return "\"" + name + "\" must be the first key of its object";
        case marker::type:
        case marker::bytes:
        case marker::float_:
            return "\"" + name + "\" must be the first key of its object (after \"$id\" if any)";
        default:
            return "unknown marker \"" + name +
                   "\": keys starting with '$' are reserved for $id, $ref, $type, $bytes, $float "
                   "and $value; write a key that starts with '$' with the '$' doubled (\"$" +
                   name + "\")";
    }
}

}  // namespace

// One JSON object being read: what its keys so far make it and where its parts go. The fast
// path - a record's field in the place it had in the last record of its type - stays in
// parse_object(); every other key comes to key(). Each step runs once per object at most
// (inlined into parse_object()), except record_field() and map_entry().
class jsonl_reader::impl::object_read {
  public:
    object_read(impl& r, value& dst) : r_(r), dst_(dst), first_slot_(r.object_count_) {}

    // Whether the raw key is the fast path's next field (plain names only).
    [[gnu::always_inline]] bool fast_key(od::raw_json_string key) const {
        return count < fast_count_ && fast_keys_[count].matches(key, fast_names_[count]);
    }
    value& fast_field() const { return fast_fields_[count]; }

    bool key(od::field& f, od::raw_json_string raw_key, od::value& v);
    bool finish();

    std::size_t count = 0;  // map entries or record fields so far

  private:
    // What the keys read so far make this object.
    enum class kind { empty, after_id, map, record, single };

    bool take_id(od::value& v);
    bool plain_key(std::string_view key, od::value& v);
    bool record_field(std::string_view key, od::value& v);
    bool map_entry(std::string_view key, od::value& v);
    bool take_type(od::value& v, const char* key_at);
    bool take_ref(od::value& v);
    bool take_float(od::value& v);
    bool only_key(marker m, const char* key_at, std::string_view key);
    std::vector<std::string>& field_names();
    void leave_fast_path();
    bool finish_record();
    bool opens() const { return k_ == kind::empty || k_ == kind::after_id; }

    impl& r_;
    value& dst_;
    value* target_ = &dst_;  // becomes body_ after an "$id" that comes first
    value body_;
    kind k_ = kind::empty;
    marker single_ = marker::none;  // the marker that must stand alone
    std::uint32_t slot_ = 0;
    bool has_id_ = false;
    const std::uint32_t first_slot_;  // the slot an "$id" first would take
    const char* value_at_ = nullptr;  // a "$value" key before any "$id"
    record* rec_ = nullptr;
    map* map_ = nullptr;
    std::string_view type_name_;
    const char* type_at_ = nullptr;
    // The type this record matches so far (fast path); once it differs, the field names are
    // collected in names_ instead.
    impl::known_type candidate_;
    std::vector<std::string>* names_ = nullptr;
    std::size_t level_ = 0;  // of this record among the records open in the line
    // The fast path's view of candidate_ (plain names only): its key patterns, names and field
    // count, and where the fields go (rec_->fields, sized for them up front).
    const key_pattern* fast_keys_ = nullptr;
    const std::string* fast_names_ = nullptr;
    std::size_t fast_count_ = 0;
    value* fast_fields_ = nullptr;
};

// Any key but the fast path's: a marker, or a field or entry name.
[[gnu::always_inline]] inline bool jsonl_reader::impl::object_read::key(od::field& f,
                                                                        od::raw_json_string raw_key,
                                                                        od::value& v) {
    const char* key_at = raw_key.raw() - 1;  // the opening quote
    std::string_view key;                    // unescaped, unless quick_marker() knew it
    marker mk = quick_marker(raw_key);
    if (mk == marker::unknown) {
        if (auto e = f.unescaped_key().get(key)) return r_.fail_json(e);
        mk = marker_of(key);
    }
    // "$id" anywhere among the keys (but beside "$ref"): the same object as with it first.
    if (mk == marker::id && !has_id_ && single_ != marker::ref) return take_id(v);
    if (k_ == kind::single) return only_key(single_, key_at, key.empty() ? marker_name(mk) : key);
    if (mk == marker::none) return plain_key(key, v);
    if (mk == marker::type && opens()) return take_type(v, key_at);
    if (mk == marker::ref && k_ == kind::empty) return take_ref(v);
    if (mk == marker::bytes && opens()) {
        if (!r_.parse_bytes(v, *target_)) return false;
        single_ = marker::bytes;
    } else if (mk == marker::float_ && opens()) {
        if (!take_float(v)) return false;
        single_ = marker::float_;
    } else if (mk == marker::value && opens()) {
        if (k_ == kind::empty) value_at_ = key_at;  // an "$id" must follow
        if (!r_.parse_value(v, *target_)) return false;
        single_ = marker::value;
    } else {
        return r_.fail(key_at, misplaced_marker_message(mk, key));
    }
    k_ = kind::single;
    return true;
}

// "$id": the object gets the next slot; first among the keys, its body is built apart (in the
// storage the slot's object of the last line leaves), else moved there by finish().
[[gnu::always_inline]] inline bool jsonl_reader::impl::object_read::take_id(od::value& v) {
    if (!r_.add_object(v, slot_)) return false;
    has_id_ = true;
    if (k_ == kind::empty) {
        body_ = std::move(r_.out_->objects[slot_]);
        target_ = &body_;
        k_ = kind::after_id;
    } else if (slot_ != first_slot_) {
        r_.renumber_ = true;  // objects inside, before the "$id", took lower numbers
    }
    return true;
}

// A key that is not a marker: a record's field (after "$type"), else a map's entry.
[[gnu::always_inline]] inline bool jsonl_reader::impl::object_read::plain_key(std::string_view key,
                                                                              od::value& v) {
    if (!key.empty() && key[0] == '$') key.remove_prefix(1);  // "$$x" is the key "$x"
    if (k_ == kind::record) return record_field(key, v);
    if (k_ != kind::map) {
        map_ = &reuse_as<map>(*target_);
        k_ = kind::map;
    }
    return map_entry(key, v);
}

// A record field off the fast path: its name is collected (the record's type is found or
// made from the names when the object ends).
bool jsonl_reader::impl::object_read::record_field(std::string_view key, od::value& v) {
    if (candidate_) {
        const auto& expected = candidate_.fields();
        if (count >= expected.size() || expected[count] != key) leave_fast_path();
    }
    if (!candidate_) field_names().emplace_back(key);
    if (count == rec_->fields.size()) rec_->fields.emplace_back();
    if (!r_.parse_value(v, rec_->fields[count])) return false;
    ++count;
    return true;
}

bool jsonl_reader::impl::object_read::map_entry(std::string_view key, od::value& v) {
    if (count == map_->size()) map_->emplace_back();
    auto& entry = (*map_)[count];
    entry.first.assign(key);
    if (!r_.parse_value(v, entry.second)) return false;
    ++count;
    return true;
}

// The record no longer follows the last one of its type: the names so far become a list.
void jsonl_reader::impl::object_read::leave_fast_path() {
    const auto& expected = candidate_.fields();
    auto prefix = static_cast<std::ptrdiff_t>(std::min(count, expected.size()));
    field_names().assign(expected.begin(), expected.begin() + prefix);
    candidate_ = {};
    fast_count_ = 0;
}

// The list of field names, taken (and emptied) when the fast path is left: most records never
// need it.
std::vector<std::string>& jsonl_reader::impl::object_read::field_names() {
    if (names_ == nullptr) {
        while (r_.names_.size() <= level_)
            r_.names_.emplace_back();
        names_ = &r_.names_[level_];
        names_->clear();
    }
    return *names_;
}

// "$type": a record, read on the fast path while its fields follow the last record of the
// same name.
[[gnu::always_inline]] inline bool jsonl_reader::impl::object_read::take_type(od::value& v,
                                                                              const char* key_at) {
    od::json_type t;
    if (auto e = v.type().get(t)) return r_.fail_json(e);
    if (t != od::json_type::string) {
        return r_.fail(impl::token_start(v),
                       std::string("\"$type\" must be a string naming the record type, not ") +
                           json_type_name(t));
    }
    if (auto e = v.get_string().get(type_name_)) return r_.fail_json(e);
    type_at_ = key_at;
    rec_ = &reuse_as<record>(*target_);
    candidate_ = r_.find_known_type(type_name_);
    if (candidate_.plain_names) {
        fast_count_ = candidate_.fields().size();
        if (rec_->fields.size() < fast_count_) rec_->fields.resize(fast_count_);
        fast_keys_ = candidate_.entry->keys.data();
        fast_names_ = candidate_.fields().data();
        fast_fields_ = rec_->fields.data();
    }
    level_ = r_.record_depth_++;
    k_ = kind::record;
    return true;
}

// "$ref": a reference to an object defined before, or later in the line (checked when the
// line ends).
[[gnu::always_inline]] inline bool jsonl_reader::impl::object_read::take_ref(od::value& v) {
    std::uint32_t id;
    if (!r_.read_id(v, "$ref", id)) return false;
    if (const std::uint32_t found = r_.find_object(id); found != 0) {
        set(*target_, object_ref{found - 1});
    } else {
        r_.pending_.push_back({id, static_cast<std::size_t>(impl::token_start(v) - r_.base_) + 1});
        set(*target_, object_ref{pending_ref + static_cast<std::uint32_t>(r_.pending_.size() - 1)});
    }
    k_ = kind::single;
    single_ = marker::ref;
    return true;
}

bool jsonl_reader::impl::object_read::take_float(od::value& v) {
    const char* where = impl::token_start(v);
    std::string_view s;
    const bool is_string = !v.get_string().get(s);
    if (is_string && s == "nan") {
        *target_ = std::numeric_limits<double>::quiet_NaN();
    } else if (is_string && s == "inf") {
        *target_ = std::numeric_limits<double>::infinity();
    } else if (is_string && s == "-inf") {
        *target_ = -std::numeric_limits<double>::infinity();
    } else {
        return r_.fail(where,
                       "\"$float\" must be \"nan\", \"inf\" or \"-inf\" (finite numbers are "
                       "plain JSON numbers)");
    }
    return true;
}

// A key after a marker that must stand alone.
bool jsonl_reader::impl::object_read::only_key(marker m, const char* key_at, std::string_view key) {
    return r_.fail(key_at, "\"" + std::string(marker_name(m)) +
                               "\" must be the only key of its object; found \"" +
                               std::string(key) + "\" next to it");
}

// The object's end: an empty map, a map or record of `count` entries, or what a marker made;
// an object with "$id" goes to its slot and its place gets a reference to it.
[[gnu::always_inline]] inline bool jsonl_reader::impl::object_read::finish() {
    switch (k_) {
        case kind::empty:
        case kind::after_id:
            reuse_as<map>(*target_).clear();
            break;
        case kind::map:
            map_->resize(count);
            break;
        case kind::record:
            if (!finish_record()) return false;
            break;
        case kind::single:
            if (value_at_ && !has_id_)
                return r_.fail(value_at_, "\"$value\" is only allowed in an object with \"$id\"");
            break;
    }
    if (has_id_) {
        r_.out_->objects[slot_] = std::move(target_ == &body_ ? body_ : dst_);
        set(dst_, object_ref{slot_});
    }
    return true;
}

// A record's type: the fast path's when every field matched it, else found or made from the
// names.
[[gnu::always_inline]] inline bool jsonl_reader::impl::object_read::finish_record() {
    if (candidate_ && count == candidate_.fields().size()) {
        if (rec_->type != candidate_.type()) rec_->type = candidate_.type();
        if (rec_->fields.size() != count) rec_->fields.resize(count);
    } else {
        if (candidate_) {  // a prefix of the last type of this name
            const auto& expected = candidate_.fields();
            field_names().assign(expected.begin(),
                                 expected.begin() + static_cast<std::ptrdiff_t>(count));
        }
        if (!r_.finish_record(type_name_, field_names(), type_at_, *rec_)) return false;
    }
    --r_.record_depth_;
    return true;
}

bool jsonl_reader::impl::parse_object(od::object& o, value& dst) {
    object_read obj(*this, dst);
    for (auto field_result : o) {
        if (auto e = field_result.error()) return fail_json(e);
        od::field& f = field_result.value_unsafe();
        od::raw_json_string raw_key = f.key();
        od::value& v = f.value();
        if (obj.fast_key(raw_key)) {
            // The common case: same field in the same place as the last record of this type,
            // compared without unescaping the key.
            if (!parse_field(v, obj.fast_field())) return false;
            ++obj.count;
            continue;
        }
        if (!obj.key(f, raw_key, v)) return false;
    }
    return obj.finish();
}

bool jsonl_reader::impl::read_id(od::value& v, const char* what, std::uint32_t& id_out) {
    std::int64_t id = -1;
    if (v.get_int64().get(id) || id < 0 || id >= static_cast<std::int64_t>(pending_ref)) {
        std::string_view raw = v.raw_json_token();  // the value's own text, read or not
        const char* where = raw.data();
        while (!raw.empty() && (raw.back() == ' ' || raw.back() == '\t'))
            raw.remove_suffix(1);
        if (raw.size() > 32) raw = raw.substr(0, 32);
        return fail(where, std::string("\"") + what +
                               "\" must be an integer from 0 to 2147483647 (the object's "
                               "number), not " +
                               std::string(raw));
    }
    id_out = static_cast<std::uint32_t>(id);
    return true;
}

std::uint32_t jsonl_reader::impl::find_object(std::uint32_t id) const {
    if (id < dense_id_limit) return id < dense_ids_.size() ? dense_ids_[id] : 0;
    auto it = sparse_ids_.find(id);
    return it == sparse_ids_.end() ? 0 : it->second;
}

// Reads an "$id" and gives its object the next slot (storage kept from the last line's
// object there, if any).
bool jsonl_reader::impl::add_object(od::value& v, std::uint32_t& slot) {
    std::uint32_t id;
    if (!read_id(v, "$id", id)) return false;
    if (find_object(id) != 0) {
        return fail(token_start(v), "duplicate \"$id\": " + std::to_string(id) +
                                        " (another object in this line already has this "
                                        "number; give each object its own \"$id\")");
    }
    slot = object_count_++;
    if (id < dense_id_limit) {
        if (id >= dense_ids_.size()) dense_ids_.resize(id + 1, 0);
        dense_ids_[id] = slot + 1;
        used_dense_ids_.push_back(id);
    } else {
        sparse_ids_.emplace(id, slot + 1);
    }
    if (slot == out_->objects.size()) out_->objects.emplace_back();
    return true;
}

auto jsonl_reader::impl::find_known_type(std::string_view name) -> known_type {
    if (last_known_ && name == last_known_name_) return *last_known_;
    auto it = known_types_.find(name);
    if (it == known_types_.end()) return {};
    last_known_name_.assign(name);
    last_known_ = &it->second;
    return it->second;
}

// Finds or makes the type of a record with these field names; `type_at` is its "$type" key.
bool jsonl_reader::impl::finish_record(std::string_view name, const std::vector<std::string>& names,
                                       const char* type_at, record& r) {
    r.fields.resize(names.size());
    signature_.assign(name);
    for (const auto& f : names) {
        signature_.push_back('\0');
        signature_.append(f);
    }
    auto it = types_.find(signature_);
    if (it == types_.end()) {
        if (const auto i = first_duplicate_field(names); i != names.size()) {
            // Points at the record's "$type": the field's own position is gone by now.
            return fail(type_at, "record \"" + std::string(name) + "\" has the field \"" +
                                     names[i] + "\" twice; field names must be unique");
        }
        interned_type entry{make_record_type(std::string(name), names), {}};
        entry.keys.reserve(names.size());
        for (const auto& f : names)
            entry.keys.emplace_back(f);
        it = types_.emplace(signature_, std::move(entry)).first;
        if (on_new_type_) on_new_type_(*it->second.type);
    }
    r.type = it->second.type;
    // The next record of this name is compared against this shape first.
    // Raw keys can be compared as they are unless a name needs escaping or '$' doubling.
    known_type k{&it->second, true};
    // One pass over each name (find_first_of with a set costs a memchr per character).
    const auto needs_escaping = [](const std::string& f) {
        return std::any_of(f.begin(), f.end(), [](char c) { return c == '"' || c == '\\'; });
    };
    for (const auto& f : names)
        if ((!f.empty() && f[0] == '$') || needs_escaping(f)) k.plain_names = false;
    auto last = known_types_.find(name);
    if (last == known_types_.end())
        known_types_.emplace(std::string(name), std::move(k));
    else
        last->second = std::move(k);
    return true;
}

bool jsonl_reader::impl::resolve_pending(message& out) {
    for (auto& p : pending_) {
        std::uint32_t found = find_object(p.id);
        if (found == 0) {
            err_column_ = p.column;
            err_message_ = "unknown $ref " + std::to_string(p.id) +
                           " (no object with \"$id\": " + std::to_string(p.id) + " in this line)";
            return false;
        }
        p.id = found - 1;  // now the slot
    }
    fix_pending(out.root);
    for (auto& o : out.objects)
        fix_pending(o);
    // The objects were numbered in "$id" order; a forward "$ref", or an "$id" after objects
    // nested in its own, means canonical order differs.
    out = canonical(out);
    return true;
}

void jsonl_reader::impl::fix_pending(value& v) {
    switch (v.type()) {
        case value::kind::list:
            for (auto& e : v.get<list>())
                fix_pending(e);
            break;
        case value::kind::map:
            for (auto& [k, e] : v.get<map>())
                fix_pending(e);
            break;
        case value::kind::record:
            for (auto& e : v.get<record>().fields)
                fix_pending(e);
            break;
        case value::kind::object_ref: {
            auto& r = v.get<object_ref>();
            if (r.index >= pending_ref) r.index = pending_[r.index - pending_ref].id;
            break;
        }
        default:
            break;
    }
}

}  // namespace objwire
