#include "proto/encoder.hpp"

#include <bit>
#include <cstring>

#include "proto/columns.hpp"
#include "proto/encoder_literals.hpp"
#include "proto/hex_string.hpp"
#include "proto/utf8.hpp"
#include "proto/wire.hpp"

namespace objwire {
namespace {

void put_id(byte_buffer& out, std::uint32_t id, std::uint8_t short_base, std::uint8_t long_tag) {
    if (id < wire::short_id_limit) {
        out.put_u8(static_cast<std::uint8_t>(short_base + id));
    } else {
        out.put_u8(long_tag);
        out.put_varint(id);
    }
}

std::size_t varint_size(std::uint64_t v) {
    return static_cast<std::size_t>(std::bit_width(v | 1) + 6) / 7;
}

void put_absolute(byte_buffer& out, std::int64_t v) {
    if (v >= wire::short_int_min && v <= wire::short_int_max) {
        out.put_u8(static_cast<std::uint8_t>(wire::short_int + (v - wire::short_int_min)));
    } else {
        out.put_u8(wire::tag_int);
        out.put_varint(zigzag_encode(v));
    }
}

// A record field's integer: as the change from the field's last value when that is shorter
// (a tie goes to the value itself). One room check for the longest form.
[[gnu::always_inline]] inline void put_field_int(byte_buffer& out, std::int64_t v,
                                                 std::int64_t& last) {
    const auto delta =
        static_cast<std::int64_t>(static_cast<std::uint64_t>(v) - static_cast<std::uint64_t>(last));
    last = v;
    std::uint8_t* p = out.prepare(11);
    if (v >= wire::short_int_min && v <= wire::short_int_max) {
        p[0] = static_cast<std::uint8_t>(wire::short_int + (v - wire::short_int_min));
        out.commit(1);
    } else if (delta >= wire::short_delta_min && delta <= wire::short_delta_max) {
        p[0] = static_cast<std::uint8_t>(wire::short_delta + (delta - wire::short_delta_min));
        out.commit(1);
    } else if (const std::uint64_t zd = zigzag_encode(delta), zv = zigzag_encode(v);
               varint_size(zd) >= varint_size(zv)) {
        p[0] = wire::tag_int;
        out.commit(1 + write_varint(p + 1, zv));
    } else {
        p[0] = wire::tag_int_delta;
        out.commit(1 + write_varint(p + 1, zd));
    }
}

// `tag`, the length and the bytes of a string, checked as UTF-8 unless `checked`; nothing is
// written when it is not UTF-8. A short string is copied a word at a time, and only one with a
// non-ASCII byte is checked further.
[[gnu::always_inline]] inline proto_errc put_text(byte_buffer& out, std::uint8_t tag,
                                                  std::string_view s, bool checked) {
    const std::size_t n = s.size();
    if (n > short_literal_max) {
        if (!checked && !is_valid_utf8(s)) return proto_errc::invalid_utf8;
        put_literal(out, tag, s.data(), n);
        return proto_errc::ok;
    }
    static_assert(short_literal_max < 0x80, "the length of a short string is a 1-byte varint");
    std::uint8_t* p = out.prepare(2 + n);
    p[0] = tag;
    p[1] = static_cast<std::uint8_t>(n);
    if (!copy_short_ascii(s, p + 2) && !checked && !is_valid_utf8(s))
        return proto_errc::invalid_utf8;
    out.commit(2 + n);
    return proto_errc::ok;
}

// A string that does not enter the table, packed when it is all lowercase hex digits (then it
// is ASCII: no UTF-8 check needed); invalid_utf8 when it is neither.
proto_errc put_string_literal(byte_buffer& out, std::string_view s, bool checked) {
    if (s.size() >= hex_string_min_digits && s.size() % 2 == 0) {
        const std::size_t packed = s.size() / 2;
        std::uint8_t* p = out.prepare(11 + packed);
        p[0] = wire::tag_hex_string;
        const std::size_t head = 1 + write_varint(p + 1, packed);
        if (pack_hex_words(s, p + head)) {
            out.commit(head + packed);
            return proto_errc::ok;
        }
    }
    return put_text(out, wire::tag_string, s, checked);
}

}  // namespace

stream_encoder::stream_encoder(encoder_options options)
    : options_(std::move(options)),
      table_(options_.peer.table_budget),
      indexing_(options_.reset.indexes_selectively()) {
    if (options_.lazy.active())
        packer_ = std::make_unique<lazy_packer>(options_.lazy, options_.transient);
}

void stream_encoder::reset(byte_buffer& out) {
    out.put_u8(wire::tag_reset);
    start_fresh();
}

void stream_encoder::start_fresh() {
    save_learnt_counts();
    table_.reset();
    field_strings_.clear();
    since_reset_messages_ = 0;
    since_reset_bytes_ = 0;
}

void stream_encoder::begin_message(byte_buffer& out) {
    const auto& p = options_.reset;
    const bool due =
        (p.mode == reset_policy::kind::every_messages && since_reset_messages_ >= p.every) ||
        (p.mode == reset_policy::kind::every_bytes && since_reset_bytes_ >= p.every);
    if (due) reset(out);
}

[[gnu::always_inline]] inline proto_errc stream_encoder::encode_root(const message& m,
                                                                     byte_buffer& out) {
    current_ = &m;
    if (m.objects.empty())
        handles_.clear();
    else
        handles_.assign(m.objects.size(), -1);
    next_handle_ = 0;
    reference_bytes_ = 0;
    // A record at the root, the usual message, skips encode_value's dispatch (not its check).
    const record* r = m.root.get_if<record>();
    const proto_errc ec = r && options_.peer.max_depth >= 1 ? encode_record(*r, out, 1)
                                                            : encode_value(m.root, out, 1, place{});
    current_ = nullptr;
    return ec;
}

inline void stream_encoder::count_message(std::size_t bytes) {
    ++messages_;
    ++since_reset_messages_;
    since_reset_bytes_ += bytes;
}

template <class Root>
std::error_code stream_encoder::encode_message(byte_buffer& out, Root&& root) {
    begin_message(out);
    const std::size_t start = out.size();
    const table_stats before = table_.stats();
    proto_errc ec = root();
    if (ec == proto_errc::ok && options_.reset_rather_than_evict && since_reset_messages_ != 0 &&
        table_.stats().evictions != before.evictions) {
        table_.forget_counts(before, table_.stats());
        out.resize(start);
        reset(out);
        ec = root();
    }
    if (ec != proto_errc::ok) {
        out.resize(start);
        reset(out);  // the table may hold entries the receiver will never see
        return ec;
    }
    count_message(out.size() - start);
    return {};
}

template <class Root>
std::error_code stream_encoder::encode_message(byte_buffer& out, column_sections& sections,
                                               Root&& root) {
    begin_message(out);
    const std::size_t start = out.size();
    const std::size_t sections_before = sections.bytes();
    const auto mark = sections.position();
    columns_ = sections.fields();
    const proto_errc ec = root();
    columns_ = {};
    if (ec != proto_errc::ok) {
        out.resize(start);
        sections.truncate(mark);
        reset(out);  // the table may hold entries the receiver will never see
        return ec;
    }
    count_message(out.size() - start + sections.bytes() - sections_before);
    return {};
}

std::error_code stream_encoder::encode(const message& original, byte_buffer& out) {
    // [lazy]: values to pack are packed first, in a copy (one test per message when off).
    const message& m = packer_ ? packer_->apply(original, options_.peer) : original;
    return encode_message(out, [&] { return encode_root(m, out); });
}

std::error_code stream_encoder::encode(const message& original, byte_buffer& out,
                                       column_sections& sections) {
    const message& m = packer_ ? packer_->apply(original, options_.peer) : original;
    return encode_message(out, sections, [&] { return encode_root(m, out); });
}

// Lazy packing works on values: with it on, a typed message goes as its values.
std::error_code stream_encoder::encode(const typed_source& src, byte_buffer& out) {
    if (packer_) return encode(src.to_message(), out);
    return encode_message(out, [&] { return encode_typed_root(src, out); });
}

std::error_code stream_encoder::encode(const typed_source& src, byte_buffer& out,
                                       column_sections& sections) {
    if (packer_) return encode(src.to_message(), out, sections);
    return encode_message(out, sections, [&] { return encode_typed_root(src, out); });
}

proto_errc stream_encoder::encode_typed_root(const typed_source& src, byte_buffer& out) {
    next_handle_ = 0;
    reference_bytes_ = 0;
    typed_handles_.clear();
    typed_writer w(*this);
    return src.write(w, typed_slot{&out, 1, -1, 0, false});
}

// Mirrors the receiver's account; false: the reference would take this message over the
// receiver's allowance, so the caller sends the value itself.
bool stream_encoder::charge_reference(std::uint64_t bytes) {
    if (bytes > options_.peer.max_reference_bytes - reference_bytes_) return false;
    reference_bytes_ += bytes;
    return true;
}

index_counts& stream_encoder::counts(place at) {
    if (at.type_id < 0) return other_counts_;
    return field_strings_[static_cast<std::size_t>(at.type_id)][at.field].counts;
}

proto_errc stream_encoder::encode_string(std::string_view s, byte_buffer& out, place at) {
    if (at.direct && at.type_id >= 0)
        return encode_field_string(s, out,
                                   field_strings_[static_cast<std::size_t>(at.type_id)][at.field]);
    return encode_other_string(s, out, counts(at), string_route::look_up);
}

// A record field's own string, the commonest string: the field's counts decide whether to
// look it up at all, and its memo answers a field that repeats its value.
proto_errc stream_encoder::encode_field_string(std::string_view s, byte_buffer& out,
                                               field_strings& f) {
    if (s.size() > options_.peer.max_string_bytes) return proto_errc::string_too_long;
    const string_route how = indexing_.decide(f.counts);
    if (how == string_route::literal) {
        // Not looked up: in a field whose values do not recur (ids, free text) a lookup would
        // miss, and each costs a hash and a probe of a table such fields fill with probes.
        f.memo.forget();
        table_.count_miss();
        return put_string_literal(out, s, options_.strings_checked);
    }
    const std::uint64_t print = string_print(s);
    const std::optional<std::uint32_t> id = lookup_.find(table_, s, print, f.memo);
    if (id && charge_reference(s.size())) {
        string_lookup::remember(f.memo, table_, *id, s, print);
        return put_string_ref(*id, out, f.counts, how);
    }
    f.memo.forget();
    // Over the receiver's reference allowance: the copy travels, the entry is not used.
    if (id) return put_string_literal(out, s, options_.strings_checked);
    return encode_string_miss(s, out, f.counts, how);
}

// Any other string: nested in a field or outside any (counted with `counts`), or naming a type
// or its fields (string_route::always).
proto_errc stream_encoder::encode_other_string(std::string_view s, byte_buffer& out,
                                               index_counts& counts, string_route how) {
    if (s.size() > options_.peer.max_string_bytes) return proto_errc::string_too_long;
    const std::optional<std::uint32_t> id = table_.find_string(s);
    if (id && charge_reference(s.size())) return put_string_ref(*id, out, counts, how);
    // Over the receiver's reference allowance: the copy travels, the entry is not used.
    if (id) return put_string_literal(out, s, options_.strings_checked);
    return encode_string_miss(s, out, counts, how);
}

// A reference to the string entry `id`, which the receiver's allowance took.
proto_errc stream_encoder::put_string_ref(std::uint32_t id, byte_buffer& out, index_counts& counts,
                                          string_route how) {
    table_.use_string_id(id);
    indexing_.on_hit(counts, how);
    put_id(out, id, wire::short_string_ref, wire::tag_string_ref);
    return {};
}

// A string not in the table: indexed (sent as a new entry) when the rule says so and it fits,
// a literal otherwise.
proto_errc stream_encoder::encode_string_miss(std::string_view s, byte_buffer& out,
                                              index_counts& counts, string_route how) {
    table_.count_miss();
    if (indexing_.on_miss(counts, how) && !s.empty() && s.size() <= options_.max_indexed_string &&
        table_.can_insert_string(s)) {
        if (const proto_errc ec = put_text(out, wire::tag_string_new, s, options_.strings_checked);
            ec != proto_errc::ok)
            return ec;
        table_.insert_string(s);
        return {};
    }
    return put_string_literal(out, s, options_.strings_checked);
}

void stream_encoder::encode_int(std::int64_t v, byte_buffer& out, place at) {
    if (!at.direct || at.type_id < 0) return put_absolute(out, v);
    put_field_int(out, v, table_.history(static_cast<std::uint32_t>(at.type_id))[at.field]);
}

proto_errc stream_encoder::encode_descriptor(const record_type& t, byte_buffer& out) {
    if (t.fields.size() > options_.peer.max_elements) return proto_errc::too_many_elements;
    const auto name = [&](std::string_view s) {
        return encode_other_string(s, out, other_counts_, string_route::always);
    };
    if (auto err = name(t.name); err != proto_errc::ok) return err;
    out.put_varint(t.fields.size());
    for (const auto& f : t.fields)
        if (auto err = name(f); err != proto_errc::ok) return err;
    return {};
}

const record_type_ptr& stream_encoder::sent_type(const record_type_ptr& t,
                                                 const std::vector<std::uint32_t>*& sent_fields) {
    auto it = reduced_.find(t.get());
    if (it == reduced_.end()) {
        if (reduced_.size() > 4096) reduced_.clear();
        reduced_type r{t, t, {}};
        if (auto tr = options_.transient.find(t->name); tr != options_.transient.end()) {
            std::vector<std::string> fields;
            for (std::uint32_t i = 0; i < t->fields.size(); ++i) {
                if (std::find(tr->second.begin(), tr->second.end(), t->fields[i]) !=
                    tr->second.end())
                    continue;
                fields.push_back(t->fields[i]);
                r.sent_fields.push_back(i);
            }
            r.sent = make_record_type(t->name, std::move(fields));
        }
        it = reduced_.emplace(t.get(), std::move(r)).first;
    }
    sent_fields = it->second.sent == t ? nullptr : &it->second.sent_fields;
    return it->second.sent;
}

proto_errc stream_encoder::encode_record(const record& r, byte_buffer& out, std::uint32_t depth) {
    if (!r.type || r.type->fields.size() != r.fields.size()) return proto_errc::bad_record;
    const std::vector<std::uint32_t>* sent_fields = nullptr;
    std::int64_t type_id = -1;
    if (auto err = put_record_type(r.type, out, sent_fields, type_id); err != proto_errc::ok)
        return err;
    return encode_fields(r, sent_fields, type_id, out, depth);
}

proto_errc stream_encoder::put_record_type(const record_type_ptr& type, byte_buffer& out,
                                           const std::vector<std::uint32_t>*& sent_fields,
                                           std::int64_t& type_id) {
    const record_type_ptr& t = options_.transient.empty() ? type : sent_type(type, sent_fields);
    if (auto id = table_.use_type(t)) {
        put_id(out, *id, wire::short_record, wire::tag_record);
        type_id = *id;
    } else {
        // Descriptor strings go first so the type's id is the one the receiver assigns next.
        const std::size_t tag_at = out.size();
        out.put_u8(wire::tag_record_new);
        if (auto err = encode_descriptor(*t, out); err != proto_errc::ok) return err;
        if (table_.can_insert_type(*t)) {
            type_id = table_.insert_type(t);
            start_field_strings(static_cast<std::uint32_t>(type_id), t->fields.size());
        } else {
            out.data()[tag_at] = wire::tag_record_inline;
        }
    }
    return proto_errc::ok;
}

// Before the table forgets its types: what each live type's fields taught, by type key.
// Bounded in types and in fields: a sender of ever new types keeps what the last ones taught,
// and one of types of thousands of fields (the daemon re-encoding what a peer sent) cannot
// make it hold more than about 2 MiB outside its table. The memos need no clearing: the reset
// moves the table to a new string epoch (proto/string_lookup.hpp).
void stream_encoder::save_learnt_counts() {
    for (std::uint32_t id = 0; id < field_strings_.size(); ++id) {
        const std::string* key = table_.type_key_of(id);
        if (key == nullptr) continue;
        const std::vector<field_strings>& fields = field_strings_[id];
        const bool known = learnt_counts_.count(*key) != 0;
        if ((!known && learnt_counts_.size() >= max_learnt_types) ||
            learnt_fields_ + fields.size() > max_learnt_fields) {
            learnt_counts_.clear();
            learnt_fields_ = 0;
        }
        if (fields.size() > max_learnt_fields) continue;
        std::vector<index_counts>& saved = learnt_counts_[*key];
        learnt_fields_ -= saved.size();
        saved.clear();
        for (const field_strings& f : fields)
            saved.push_back(f.counts);
        learnt_fields_ += saved.size();
    }
}

// A newly inserted type starts from what its fields taught before the last reset, if anything.
void stream_encoder::start_field_strings(std::uint32_t type_id, std::size_t fields) {
    if (field_strings_.size() <= type_id) field_strings_.resize(type_id + 1);
    std::vector<field_strings>& strings = field_strings_[type_id];
    strings.assign(fields, {});
    const auto learnt = learnt_counts_.find(*table_.type_key_of(type_id));
    if (learnt == learnt_counts_.end() || learnt->second.size() != fields) return;
    for (std::size_t i = 0; i < fields; ++i)
        strings[i].counts = learnt->second[i];
}

proto_errc stream_encoder::encode_fields(const record& r,
                                         const std::vector<std::uint32_t>* sent_fields,
                                         std::int64_t type_id, byte_buffer& out,
                                         std::uint32_t depth) {
    const std::size_t n = sent_fields ? sent_fields->size() : r.fields.size();
    // encode_value's depth check, made once for the fields that bypass it below.
    if (n > 0 && depth + 1 > options_.peer.max_depth) return proto_errc::depth_exceeded;
    // The type stays in the table while its fields are coded: their delta state lives there.
    if (type_id >= 0) table_.pin(static_cast<std::uint32_t>(type_id));
    // A message's root record in column layout: each field to its section. Two instances of
    // the loop, so that the plain one pays nothing per field for the layout.
    const proto_errc ec =
        depth == 1 && !columns_.empty()
            ? encode_field_values(
                  r, sent_fields, n, type_id, depth,
                  [this](std::uint32_t i) -> byte_buffer& { return columns_[field_section(i)]; })
            : encode_field_values(r, sent_fields, n, type_id, depth,
                                  [&out](std::uint32_t) -> byte_buffer& { return out; });
    if (type_id >= 0) table_.unpin(static_cast<std::uint32_t>(type_id));
    return ec;
}

template <class Destination>
proto_errc stream_encoder::encode_field_values(const record& r,
                                               const std::vector<std::uint32_t>* sent_fields,
                                               std::size_t n, std::int64_t type_id,
                                               std::uint32_t depth, Destination to) {
    proto_errc ec = proto_errc::ok;
    for (std::uint32_t i = 0; i < n && ec == proto_errc::ok; ++i) {
        const value& f = r.fields[sent_fields ? (*sent_fields)[i] : i];
        const place at{type_id, i, true};
        byte_buffer& out = to(i);
        // Strings, integers and floats, most fields, skip the general dispatch.
        switch (f.type()) {
            case value::kind::string: {
                ec = encode_string(*f.get_if<std::string>(), out, at);
                break;
            }
            case value::kind::integer:
                encode_int(*f.get_if<std::int64_t>(), out, at);
                break;
            case value::kind::floating:
                put_float(out, *f.get_if<double>());
                break;
            default:
                ec = encode_value(f, out, depth + 1, at);
        }
    }
    return ec;
}

proto_errc stream_encoder::encode_object_ref(std::uint32_t index, byte_buffer& out,
                                             std::uint32_t depth) {
    if (index >= current_->objects.size()) return proto_errc::unknown_object;
    if (handles_[index] >= 0) {
        out.put_u8(wire::tag_object_ref);
        out.put_varint(static_cast<std::uint64_t>(handles_[index]));
        return {};
    }
    if (next_handle_ >= options_.peer.max_elements) return proto_errc::too_many_elements;
    handles_[index] = next_handle_++;  // before the body, so a cycle back to it is a ref
    const value& body = current_->objects[index];
    const std::uint64_t key =
        index < current_->shared_keys.size() ? current_->shared_keys[index] : 0;
    // Kept objects must stand alone: a handle inside one means nothing in the next message.
    if (key == 0 || contains_object_refs(body)) {
        out.put_u8(wire::tag_object_def);
        return encode_value(body, out, depth + 1, place{});
    }
    if (auto id = table_.find_object(key, body)) {
        if (charge_reference(table_.object_expanded_bytes(*id))) {
            table_.use_object_id(*id);
            out.put_u8(wire::tag_object_kept);
            out.put_varint(*id);
            return {};
        }
        // Over the receiver's reference allowance: this once its state travels again.
        out.put_u8(wire::tag_object_def);
        return encode_value(body, out, depth + 1, place{});
    }
    // New or changed: its state travels, and both peers keep it if the budget allows.
    const std::size_t tag_at = out.size();
    const std::uint64_t charged_before = reference_bytes_;
    out.put_u8(wire::tag_object_keep);
    if (auto err = encode_value(body, out, depth + 1, place{}); err != proto_errc::ok) return err;
    const std::uint64_t wire_bytes = out.size() - tag_at - 1;
    // Charged what the receiver's decoded copy costs it, as its decoder computes it.
    if (const std::uint64_t cost = object_entry_cost(body); table_.can_insert_object(cost)) {
        table_.insert_object(key, body, cost, wire_bytes + (reference_bytes_ - charged_before));
    } else {
        out.data()[tag_at] = wire::tag_object_def;
        table_.forget_object(key);
    }
    return {};
}

// Carried byte for byte, never recompressed; the receiver checks the same header.
proto_errc stream_encoder::encode_lazy(const lazy_value& l, byte_buffer& out) {
    if (!lazy_codec_allowed(l.codec())) return proto_errc::bad_codec;
    if (l.raw_size() == 0 || l.stored().empty()) return proto_errc::bad_message;
    if (l.raw_size() > options_.peer.max_frame_bytes) return proto_errc::frame_too_large;
    put_lazy(out, l);
    return {};
}

proto_errc stream_encoder::encode_value(const value& v, byte_buffer& out, std::uint32_t depth,
                                        place at) {
    if (depth > options_.peer.max_depth) return proto_errc::depth_exceeded;
    const place inside{at.type_id, at.field, false};
    switch (v.type()) {
        case value::kind::null:
            out.put_u8(wire::tag_null);
            return {};
        case value::kind::boolean:
            out.put_u8(v.get<bool>() ? wire::tag_true : wire::tag_false);
            return {};
        case value::kind::integer:
            encode_int(v.get<std::int64_t>(), out, at);
            return {};
        case value::kind::floating:
            put_float(out, *v.get_if<double>());
            return {};
        case value::kind::string:
            return encode_string(v.get<std::string>(), out, at);
        case value::kind::bytes: {
            const auto& b = v.get<bytes>().data;
            if (b.size() > options_.peer.max_string_bytes) return proto_errc::string_too_long;
            put_literal(out, wire::tag_bytes, b.data(), b.size());
            return {};
        }
        case value::kind::list: {
            const auto& l = v.get<list>();
            if (l.size() > options_.peer.max_elements) return proto_errc::too_many_elements;
            out.put_u8(wire::tag_list);
            out.put_varint(l.size());
            for (const auto& e : l)
                if (auto err = encode_value(e, out, depth + 1, inside); err != proto_errc::ok)
                    return err;
            return {};
        }
        case value::kind::map: {
            const auto& m = v.get<map>();
            if (m.size() > options_.peer.max_elements) return proto_errc::too_many_elements;
            out.put_u8(wire::tag_map);
            out.put_varint(m.size());
            for (const auto& [k, e] : m) {
                if (auto err = encode_string(k, out, place{}); err != proto_errc::ok) return err;
                if (auto err = encode_value(e, out, depth + 1, inside); err != proto_errc::ok)
                    return err;
            }
            return {};
        }
        case value::kind::record:
            return encode_record(v.get<record>(), out, depth);
        case value::kind::object_ref:
            return encode_object_ref(v.get<object_ref>().index, out, depth);
        case value::kind::lazy:
            return encode_lazy(v.get<lazy_value>(), out);
    }
    return proto_errc::unknown_tag;
}

}  // namespace objwire
