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

// Usage counts are halved past this many events, so old behaviour fades.
constexpr std::uint32_t usage_decay_at = 8192;
// A field's first inserts are always made: there is nothing to judge by yet. Enough for a
// field of a few hundred values (hosts, services) to show its hits before it is judged; paid
// once per type, as what a field taught outlives resets.
constexpr std::uint32_t usage_warmup_inserts = 256;
// A declined field still indexes one miss in this many, to notice when values start recurring.
constexpr std::uint32_t usage_probe_every = 64;

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
    : options_(std::move(options)), table_(options_.peer.table_budget) {
    if (options_.lazy.active())
        packer_ = std::make_unique<lazy_packer>(options_.lazy, options_.transient);
}

void stream_encoder::reset(byte_buffer& out) {
    out.put_u8(wire::tag_reset);
    start_fresh();
}

void stream_encoder::start_fresh() {
    keep_learnt_usage();
    table_.reset();
    field_usage_.clear();
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
    if (const proto_errc ec = root(); ec != proto_errc::ok) {
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

stream_encoder::field_usage& stream_encoder::usage(place at) {
    if (at.type_id < 0) return other_usage_;
    return field_usage_[static_cast<std::size_t>(at.type_id)][at.field];
}

// Whether a field indexes only a sample of its values: past its first inserts, and they did
// not earn a quarter of a hit each.
bool stream_encoder::declines(const field_usage& u) const {
    return options_.reset.indexes_selectively() && u.inserts >= usage_warmup_inserts &&
           u.hits * 4 < u.inserts;
}

// Counts one lookup of a string in its field; for a miss, says whether to index it.
bool stream_encoder::should_index(field_usage& u, bool hit) {
    if (!options_.reset.indexes_selectively()) return !hit;
    if (u.inserts + u.hits >= usage_decay_at) {
        u.inserts /= 2;
        u.hits /= 2;
    }
    if (hit) {
        ++u.hits;
        return false;
    }
    // Index while every value indexed in this field has earned a quarter of a hit on average.
    const bool earns = u.inserts < usage_warmup_inserts || u.hits * 4 >= u.inserts;
    const bool probe = !earns && ++u.declined % usage_probe_every == 0;
    if (!earns && !probe) return false;
    ++u.inserts;
    return true;
}

// A field whose values do not recur (ids, free text) is looked up only once in
// usage_probe_every values: the lookups would miss, and each costs a hash and a probe of a
// table that such fields fill with probes. The sampled ones still see recurrence begin. True
// when `s` is one of the others, written as a literal (ec says whether it could be).
[[gnu::always_inline]] inline bool stream_encoder::put_unsampled(std::string_view s,
                                                                 byte_buffer& out, field_usage& u,
                                                                 proto_errc& ec) {
    if (!declines(u) || (u.declined + 1) % usage_probe_every == 0) return false;
    ++u.declined;
    u.last_id = -1;
    table_.count_miss();
    ec = put_string_literal(out, s, options_.strings_checked);
    return true;
}

// A string field of a record whose type is in the table, the commonest string: its field's
// usage counts decide whether to look it up at all, and its memo answers a field that repeats
// its value. The memo costs no look at the table entry unless a string longer than 8 bytes
// matches its length and last word.
proto_errc stream_encoder::encode_field_string(std::string_view s, byte_buffer& out,
                                               field_usage& u) {
    if (s.size() > options_.peer.max_string_bytes) return proto_errc::string_too_long;
    if (proto_errc ec; put_unsampled(s, out, u, ec)) return ec;
    // What a declining field does not skip is its sample, counted here.
    const bool sampled = declines(u);
    if (sampled) ++u.declined;
    // The memo holds while no string entry went since it was taken (the epoch), so its entry
    // is live and holds the string it held; length and print then decide a short string.
    const std::uint64_t print = string_print(s);
    std::optional<std::uint32_t> id;
    if (u.last_id >= 0 && u.last_print == print && u.last_size == s.size() &&
        u.last_epoch == table_.string_epoch() &&
        (s.size() <= whole_print_max ||
         same_string(table_.string_key(static_cast<std::uint32_t>(u.last_id)), s)))
        id = static_cast<std::uint32_t>(u.last_id);
    else
        id = table_.find_string(s, print);
    if (id && charge_reference(s.size())) {
        table_.use_string_id(*id);
        u.last_id = *id;
        u.last_print = print;
        u.last_size = static_cast<std::uint32_t>(s.size());
        u.last_epoch = table_.string_epoch();
        should_index(u, true);
        put_id(out, *id, wire::short_string_ref, wire::tag_string_ref);
        return {};
    }
    u.last_id = -1;
    // Over the receiver's reference allowance: the copy travels, the entry is not used.
    if (id) return put_string_literal(out, s, options_.strings_checked);
    return encode_string_miss(s, out, u, sampled, false);
}

proto_errc stream_encoder::encode_string(std::string_view s, byte_buffer& out, place at,
                                         bool always_index) {
    // Descriptor strings (always_index) have no place; a direct field string is never one.
    if (at.direct && at.type_id >= 0 && !always_index)
        return encode_field_string(s, out, usage(at));
    if (s.size() > options_.peer.max_string_bytes) return proto_errc::string_too_long;
    field_usage& u = usage(at);
    const std::optional<std::uint32_t> id = table_.find_string(s);
    if (id && charge_reference(s.size())) {
        table_.use_string_id(*id);
        if (!always_index) should_index(u, true);
        put_id(out, *id, wire::short_string_ref, wire::tag_string_ref);
        return {};
    }
    // Over the receiver's reference allowance: the copy travels, the entry is not used.
    if (id) return put_string_literal(out, s, options_.strings_checked);
    return encode_string_miss(s, out, u, false, always_index);
}

// A string not in the table: indexed (sent as a new entry) if its field's usage says so, a
// literal otherwise.
proto_errc stream_encoder::encode_string_miss(std::string_view s, byte_buffer& out, field_usage& u,
                                              bool sampled, bool always_index) {
    table_.count_miss();
    if (sampled) ++u.inserts;  // a sampled miss is indexed: the probe that notices recurrence
    const bool index = always_index || sampled || should_index(u, false);
    if (index && !s.empty() && s.size() <= options_.max_indexed_string &&
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
    if (auto err = encode_string(t.name, out, place{}, true); err != proto_errc::ok) return err;
    out.put_varint(t.fields.size());
    for (const auto& f : t.fields)
        if (auto err = encode_string(f, out, place{}, true); err != proto_errc::ok) return err;
    return {};
}

const record_type_ptr& stream_encoder::sent_type(const record_type_ptr& t,
                                                 const std::vector<std::uint32_t>*& kept) {
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
                r.kept.push_back(i);
            }
            r.sent = make_record_type(t->name, std::move(fields));
        }
        it = reduced_.emplace(t.get(), std::move(r)).first;
    }
    kept = it->second.sent == t ? nullptr : &it->second.kept;
    return it->second.sent;
}

proto_errc stream_encoder::encode_record(const record& r, byte_buffer& out, std::uint32_t depth) {
    if (!r.type || r.type->fields.size() != r.fields.size()) return proto_errc::bad_record;
    const std::vector<std::uint32_t>* kept = nullptr;
    std::int64_t type_id = -1;
    if (auto err = put_record_type(r.type, out, kept, type_id); err != proto_errc::ok) return err;
    return encode_fields(r, kept, type_id, out, depth);
}

proto_errc stream_encoder::put_record_type(const record_type_ptr& type, byte_buffer& out,
                                           const std::vector<std::uint32_t>*& kept,
                                           std::int64_t& type_id) {
    const record_type_ptr& t = options_.transient.empty() ? type : sent_type(type, kept);
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
            learn_usage(static_cast<std::uint32_t>(type_id), t->fields.size());
        } else {
            out.data()[tag_at] = wire::tag_record_inline;
        }
    }
    return proto_errc::ok;
}

// Before the table forgets its types: what each live type's fields taught, by type key.
// Bounded in types and in fields: a sender of ever new types keeps what the last ones taught,
// and one of types of thousands of fields (the daemon re-encoding what a peer sent) cannot
// make it hold more than about 2 MiB outside its table.
void stream_encoder::keep_learnt_usage() {
    for (std::uint32_t id = 0; id < field_usage_.size(); ++id) {
        const std::string* key = table_.type_key_of(id);
        if (key == nullptr) continue;
        const bool known = learned_usage_.count(*key) != 0;
        if ((!known && learned_usage_.size() >= max_learned_types) ||
            learned_fields_ + field_usage_[id].size() > max_learned_fields) {
            learned_usage_.clear();
            learned_fields_ = 0;
        }
        if (field_usage_[id].size() > max_learned_fields) continue;
        for (auto& u : field_usage_[id])
            u.last_id = -1;  // ids mean nothing after the reset
        auto& kept = learned_usage_[*key];
        learned_fields_ += field_usage_[id].size();
        learned_fields_ -= kept.size();
        kept = std::move(field_usage_[id]);
    }
}

// A newly inserted type starts from what its fields taught before the last reset, if anything.
void stream_encoder::learn_usage(std::uint32_t type_id, std::size_t fields) {
    if (field_usage_.size() <= type_id) field_usage_.resize(type_id + 1);
    const auto learned = learned_usage_.find(*table_.type_key_of(type_id));
    if (learned != learned_usage_.end() && learned->second.size() == fields)
        field_usage_[type_id] = learned->second;
    else
        field_usage_[type_id].assign(fields, {});
}

proto_errc stream_encoder::encode_fields(const record& r, const std::vector<std::uint32_t>* kept,
                                         std::int64_t type_id, byte_buffer& out,
                                         std::uint32_t depth) {
    const std::size_t n = kept ? kept->size() : r.fields.size();
    // encode_value's depth check, made once for the fields that bypass it below.
    if (n > 0 && depth + 1 > options_.peer.max_depth) return proto_errc::depth_exceeded;
    // The type stays in the table while its fields are coded: their delta state lives there.
    if (type_id >= 0) table_.pin(static_cast<std::uint32_t>(type_id));
    // A message's root record in column layout: each field to its section. Two instances of
    // the loop, so that the plain one pays nothing per field for the layout.
    const proto_errc ec =
        depth == 1 && !columns_.empty()
            ? encode_field_values(
                  r, kept, n, type_id, depth,
                  [this](std::uint32_t i) -> byte_buffer& { return columns_[field_section(i)]; })
            : encode_field_values(r, kept, n, type_id, depth,
                                  [&out](std::uint32_t) -> byte_buffer& { return out; });
    if (type_id >= 0) table_.unpin(static_cast<std::uint32_t>(type_id));
    return ec;
}

template <class Destination>
proto_errc stream_encoder::encode_field_values(const record& r,
                                               const std::vector<std::uint32_t>* kept,
                                               std::size_t n, std::int64_t type_id,
                                               std::uint32_t depth, Destination to) {
    proto_errc ec = proto_errc::ok;
    for (std::uint32_t i = 0; i < n && ec == proto_errc::ok; ++i) {
        const value& f = r.fields[kept ? (*kept)[i] : i];
        const place at{type_id, i, true};
        byte_buffer& out = to(i);
        // Strings, integers and floats, most fields, skip the general dispatch.
        switch (f.type()) {
            case value::kind::string: {
                const std::string& s = *f.get_if<std::string>();
                if (type_id < 0) {
                    ec = encode_string(s, out, at, false);
                    break;
                }
                field_usage& u = field_usage_[static_cast<std::size_t>(type_id)][i];
                // encode_field_string's first case, here for the values of a declined field
                // (most of free text and ids): no call, no lookup. The sampled ones go on.
                if (s.size() <= options_.peer.max_string_bytes && put_unsampled(s, out, u, ec))
                    break;
                ec = encode_field_string(s, out, u);
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
            return encode_string(v.get<std::string>(), out, at, false);
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
                if (auto err = encode_string(k, out, place{}, false); err != proto_errc::ok)
                    return err;
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
