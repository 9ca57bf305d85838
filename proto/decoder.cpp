#include "proto/decoder.hpp"

#include <bit>

#include "proto/hex_string.hpp"
#include "proto/lazy_value.hpp"
#include "proto/utf8.hpp"
#include "proto/wire.hpp"

namespace objwire {

stream_decoder::stream_decoder(decoder_limits limits)
    : limits_(limits), table_(limits.table_budget) {}

proto_errc stream_decoder::fail(proto_errc e) {
    if (poisoned_ == proto_errc::ok) poisoned_ = e;
    return e;
}

std::error_code stream_decoder::next(byte_reader& in, message& out, bool& got) {
    return next_message<true>(in, out, got);
}

std::error_code stream_decoder::check_payload(std::span<const std::uint8_t> payload,
                                              std::uint64_t& messages) {
    messages = 0;
    auto counted = [&messages](message&&) { ++messages; };
    return walk_payload<false>(payload, counted);
}

// In check mode `out` still serves: its object list numbers the handles (each left empty),
// so references and limits on them are checked by the same code.
template <bool Build>
std::error_code stream_decoder::next_message(byte_reader& in, message& out, bool& got) {
    got = false;
    if (poisoned_ != proto_errc::ok) return poisoned_;
    while (!in.at_end() && *in.position() == wire::tag_reset) {
        in.u8();
        table_.reset();
    }
    if (in.at_end()) return {};
    out.objects.clear();
    current_ = &out;
    presize_left_ = column_count_ != 0 ? bytes_left(in) : in.remaining();
    value* root = Build ? &out.root : nullptr;
    // Check mode goes straight to a root record in either layout (one call less a message).
    proto_errc e = column_count_ != 0 ? decode_root<Build, true>(in, root)
                   : Build            ? decode_value<Build>(in, root, 1, place{})
                                      : decode_root<Build, false>(in, root);
    current_ = nullptr;
    if (e != proto_errc::ok) return fail(e);
    ++messages_;
    got = true;
    return {};
}

// A count of items that each take at least one byte: more than the bytes left is a lie.
proto_errc stream_decoder::count(byte_reader& in, std::uint64_t& n) {
    n = in.varint();
    if (!in.ok()) return in.error();
    if (n > limits_.max_elements) return proto_errc::too_many_elements;
    return presize(in.remaining(), n);
}

// Slots sized before their values decode: each will hold a value of at least one byte of its
// own, so all of a message's together cannot exceed its bytes. Checking the bytes left alone
// would let every level of a nested container claim them all again (63 lists of a million in
// a 1 MB frame asked for 3 GB).
proto_errc stream_decoder::presize(std::size_t bytes_left, std::uint64_t n) {
    if (n > bytes_left || n > presize_left_) return proto_errc::truncated;
    presize_left_ -= n;
    return proto_errc::ok;
}

// Every back-reference copies its entry: checked against the frame's allowance before the
// copy is made, so a frame of one-byte references to one big string decodes nothing big.
proto_errc stream_decoder::charge_reference(std::uint64_t bytes) {
    if (bytes > limits_.max_reference_bytes - reference_bytes_)
        return proto_errc::reference_bytes_exceeded;
    reference_bytes_ += bytes;
    return proto_errc::ok;
}

proto_errc stream_decoder::decode_literal(byte_reader& in, std::string_view& out) {
    std::uint64_t n = in.varint();
    if (!in.ok()) return in.error();
    if (n > limits_.max_string_bytes) return proto_errc::string_too_long;
    out = in.take_chars(static_cast<std::size_t>(n));
    if (!in.ok()) return in.error();
    if (!is_valid_utf8(out)) return proto_errc::invalid_utf8;
    return proto_errc::ok;
}

// A back-reference to string entry `id`: marked used and charged like any reference.
template <bool Build>
inline proto_errc stream_decoder::string_ref(std::uint64_t id, std::string* out) {
    const std::string* s = table_.use_string(id);
    if (!s) return proto_errc::unknown_reference;
    if (auto e = charge_reference(s->size()); e != proto_errc::ok) return e;
    if constexpr (Build) *out = *s;
    return proto_errc::ok;
}

template <bool Build>
inline proto_errc stream_decoder::hex_string(byte_reader& in, std::string* out) {
    const std::uint64_t k = in.varint();
    if (!in.ok()) return in.error();
    if (k > limits_.max_string_bytes / 2) return proto_errc::string_too_long;
    // The packed form is only for strings of at least 4 digits: one form per string.
    if (k < hex_string_min_digits / 2) return proto_errc::bad_message;
    auto packed = in.take(static_cast<std::size_t>(k));
    if (!in.ok()) return in.error();
    if constexpr (Build) unpack_hex(packed.data(), packed.size(), *out);
    return proto_errc::ok;
}

// tag_string or tag_string_new.
template <bool Build>
inline proto_errc stream_decoder::literal_string(byte_reader& in, std::uint8_t tag,
                                                 std::string* out) {
    std::string_view sv;
    if (auto e = decode_literal(in, sv); e != proto_errc::ok) return e;
    if (tag == wire::tag_string_new) {
        if (sv.empty()) return proto_errc::bad_message;
        if (auto e = table_.insert_string(sv); e != proto_errc::ok) return e;
    }
    if constexpr (Build) assign_text(*out, sv);
    return proto_errc::ok;
}

// The string forms by tag, for a place that holds only a string (a map key, a descriptor's
// names) and for decode_tag's string tags: inlined there, its tests fold into decode_tag's.
template <bool Build>
inline proto_errc stream_decoder::decode_string(byte_reader& in, std::uint8_t tag,
                                                std::string* out) {
    if (!in.ok()) return in.error();
    if (tag >= wire::short_string_ref && tag < wire::short_record)
        return string_ref<Build>(tag - wire::short_string_ref, out);
    switch (tag) {
        case wire::tag_string_ref: {
            std::uint64_t id = in.varint();
            if (!in.ok()) return in.error();
            return string_ref<Build>(id, out);
        }
        case wire::tag_hex_string:
            return hex_string<Build>(in, out);
        case wire::tag_string:
        case wire::tag_string_new:
            return literal_string<Build>(in, tag, out);
        default:
            return proto_errc::unknown_tag;
    }
}

proto_errc stream_decoder::decode_descriptor(byte_reader& in, record_type_ptr& out) {
    record_type& t = descriptor_scratch_;  // its strings keep their storage between calls
    if (auto e = decode_string<true>(in, in.u8(), &t.name); e != proto_errc::ok) return e;
    std::uint64_t n;
    if (auto e = count(in, n); e != proto_errc::ok) return e;
    t.fields.resize(static_cast<std::size_t>(n));
    for (auto& f : t.fields)
        if (auto e = decode_string<true>(in, in.u8(), &f); e != proto_errc::ok) return e;
    // As the JSON reader refuses: a record must not name a field twice.
    if (first_duplicate_field(t.fields) != t.fields.size()) return proto_errc::duplicate_field;
    if (!last_descriptor_ || last_descriptor_->name != t.name ||
        last_descriptor_->fields != t.fields)
        last_descriptor_ = std::make_shared<const record_type>(t);
    out = last_descriptor_;
    return proto_errc::ok;
}

// The root of a message: a record is decoded as decode_value would (its depth, 1, is
// allowed when max_depth is); Split, in column layout, its fields come from their sections.
template <bool Build, bool Split>
proto_errc stream_decoder::decode_root(byte_reader& in, value* out) {
    const std::uint8_t tag = in.at_end() ? wire::tag_null : *in.position();
    const bool record = (tag >= wire::short_record && tag < wire::short_int) ||
                        tag == wire::tag_record || tag == wire::tag_record_new ||
                        tag == wire::tag_record_inline;
    if (!record || limits_.max_depth < 1) return decode_value<Build>(in, out, 1, place{});
    in.u8();
    return decode_record<Build, Split>(in, tag, out, 1);
}

std::error_code stream_decoder::open_columns(std::span<const std::uint8_t> payload,
                                             byte_reader& in) {
    column_count_ = 0;
    if (!has_columns(payload)) return {};
    if (poisoned_ != proto_errc::ok) return poisoned_;
    column_directory d;
    if (auto e = read_column_payload(payload, d); e != proto_errc::ok) return fail(e);
    in = byte_reader(column_section(payload, d, 0));
    column_count_ = d.count - 1;
    for (std::size_t i = 0; i < column_count_; ++i)
        columns_[i] = byte_reader(column_section(payload, d, i + 1));
    return {};
}

std::error_code stream_decoder::close_columns() {
    for (std::size_t i = 0; i < column_count_; ++i)
        if (!columns_[i].at_end()) return fail(proto_errc::trailing_bytes);
    column_count_ = 0;
    return {};
}

byte_reader* stream_decoder::field_in(std::uint32_t i) {
    const std::size_t s = field_section(i);
    return s < column_count_ ? &columns_[s] : nullptr;
}

std::size_t stream_decoder::bytes_left(const byte_reader& in) const {
    std::size_t n = in.remaining();
    for (std::size_t i = 0; i < column_count_; ++i)
        n += columns_[i].remaining();
    return n;
}

template <bool Build, bool Split>
proto_errc stream_decoder::decode_record(byte_reader& in, std::uint8_t tag, value* out,
                                         std::uint32_t depth) {
    record_type_ptr type;
    const record_type_ptr* known = nullptr;
    std::int64_t type_id = -1;
    if (tag == wire::tag_record_new || tag == wire::tag_record_inline) {
        if (auto e = decode_descriptor(in, type); e != proto_errc::ok) return e;
        if (tag == wire::tag_record_new) {
            std::uint32_t id;
            if (auto e = table_.insert_type(type, id); e != proto_errc::ok) return e;
            type_id = id;
        }
        known = &type;
    } else {
        std::uint64_t id = tag >= wire::short_record ? tag - wire::short_record : in.varint();
        if (!in.ok()) return in.error();
        known = table_.use_type(id);
        if (!known) return proto_errc::unknown_reference;
        type_id = static_cast<std::int64_t>(id);
    }
    const std::size_t n = (*known)->fields.size();
    // Split: a message's root record in column layout, each field from its section.
    if (auto e = presize(Split ? bytes_left(in) : in.remaining(), n); e != proto_errc::ok) return e;
    // Decoded in place: a value that held a record of the same type keeps its storage, and
    // the type pointer is only copied (an atomic increment) when it changes.
    record* r = nullptr;
    if constexpr (Build) {
        r = &out->ensure<record>();
        if (r->type != *known) r->type = *known;
        r->fields.resize(n);
    }
    // Pinned while its fields decode, exactly as the sender pinned it while encoding them.
    if (type_id >= 0) table_.pin(static_cast<std::uint32_t>(type_id));
    const proto_errc e = decode_fields<Build, Split>(in, r, n, depth, type_id);
    if (type_id >= 0) table_.unpin(static_cast<std::uint32_t>(type_id));
    return e;
}

// A record's fields, in either mode: decode_value's depth check made once for all of them,
// then each straight to the dispatch on its tag. Out of decode_record, so that the loop keeps
// its few variables in registers.
template <bool Build, bool Split>
proto_errc stream_decoder::decode_fields(byte_reader& in, record* r, std::size_t n,
                                         std::uint32_t depth, std::int64_t type_id) {
    const bool too_deep = depth + 1 > limits_.max_depth;
    for (std::uint32_t i = 0; i < n; ++i) {
        byte_reader* from = Split ? field_in(i) : &in;
        if (!from) return proto_errc::bad_columns;
        if (too_deep) return proto_errc::depth_exceeded;
        value* field = nullptr;
        if constexpr (Build) field = &r->fields[i];
        if (auto e = decode_tag<Build>(*from, field, depth + 1, place{type_id, i});
            e != proto_errc::ok)
            return e;
    }
    return proto_errc::ok;
}

// Absolute integers anywhere; changes from the field's last integer only in a record field.
template <bool Build>
inline proto_errc stream_decoder::decode_int(byte_reader& in, std::uint8_t tag, value* out,
                                             place at) {
    std::int64_t v = 0;
    std::uint64_t delta = 0;
    const bool is_delta =
        tag == wire::tag_int_delta || (tag >= wire::short_delta && tag < wire::short_string_ref);
    // A change of what? Only record fields have a history; refused before its varint is read.
    if (is_delta && at.type_id < 0) return proto_errc::unknown_tag;
    if (tag >= wire::short_int) {
        v = static_cast<std::int64_t>(tag - wire::short_int) + wire::short_int_min;
    } else if (tag == wire::tag_int) {
        const std::uint64_t z = in.varint();
        if (!in.ok()) return in.error();
        v = zigzag_decode(z);
    } else if (tag == wire::tag_int_delta) {
        delta = static_cast<std::uint64_t>(zigzag_decode(in.varint()));
        if (!in.ok()) return in.error();
    } else {
        delta = static_cast<std::uint64_t>(static_cast<std::int64_t>(tag - wire::short_delta) +
                                           wire::short_delta_min);
    }
    if (at.type_id >= 0) {
        std::int64_t& last = table_.history(static_cast<std::uint32_t>(at.type_id))[at.field];
        if (is_delta) v = static_cast<std::int64_t>(static_cast<std::uint64_t>(last) + delta);
        last = v;
    }
    if constexpr (Build) out->ensure<std::int64_t>() = v;
    return proto_errc::ok;
}

// A kept object's body is built in either mode: the table keeps it, and later frames copy it.
template <bool Build>
proto_errc stream_decoder::decode_object_def(byte_reader& in, std::uint8_t tag, value* out,
                                             std::uint32_t depth) {
    auto& objects = current_->objects;
    if (objects.size() >= limits_.max_elements) return proto_errc::too_many_elements;
    const auto handle = static_cast<std::uint32_t>(objects.size());
    objects.emplace_back();  // the handle exists before its body, so a cycle can name it
    value body;
    if (tag == wire::tag_object_kept) {
        const std::uint64_t id = in.varint();
        if (!in.ok()) return in.error();
        const value* kept = table_.use_object(id);
        if (!kept) return proto_errc::unknown_reference;
        if (auto e = charge_reference(table_.object_expanded_bytes(id)); e != proto_errc::ok)
            return e;
        if constexpr (Build) body = *kept;
    } else if (tag == wire::tag_object_keep) {
        const std::uint8_t* start = in.position();
        const std::uint64_t charged_before = reference_bytes_;
        if (auto e = decode_value<true>(in, &body, depth + 1, place{}); e != proto_errc::ok)
            return e;
        if (contains_object_refs(body)) return proto_errc::bad_message;
        const auto wire_bytes = static_cast<std::uint64_t>(in.position() - start);
        const std::uint64_t expanded = wire_bytes + (reference_bytes_ - charged_before);
        // Checking needs no copy of its own: the table takes the body.
        value kept = Build ? value(body) : std::move(body);
        if (auto e = table_.insert_object(std::move(kept), expanded); e != proto_errc::ok) return e;
    } else {
        value* into = Build ? &body : nullptr;
        if (auto e = decode_value<Build>(in, into, depth + 1, place{}); e != proto_errc::ok)
            return e;
    }
    if constexpr (Build) {
        objects[handle] = std::move(body);
        *out = object_ref{handle};
    }
    return proto_errc::ok;
}

// Lists and maps out of line: decode_value, called for every value, stays small (few
// registers to save), which is most of what a field costs when nothing is built.
template <bool Build>
proto_errc stream_decoder::decode_list(byte_reader& in, value* out, std::uint32_t depth) {
    std::uint64_t n;
    if (auto e = count(in, n); e != proto_errc::ok) return e;
    list l(Build ? static_cast<std::size_t>(n) : 0);
    for (std::uint64_t i = 0; i < n; ++i) {
        value* item = Build ? &l[i] : nullptr;
        if (auto err = decode_value<Build>(in, item, depth + 1, place{}); err != proto_errc::ok)
            return err;
    }
    if constexpr (Build) *out = std::move(l);
    return proto_errc::ok;
}

template <bool Build>
proto_errc stream_decoder::decode_map(byte_reader& in, value* out, std::uint32_t depth) {
    std::uint64_t n;
    if (auto e = count(in, n); e != proto_errc::ok) return e;
    map m(Build ? static_cast<std::size_t>(n) : 0);
    for (std::uint64_t i = 0; i < n; ++i) {
        std::string* key = Build ? &m[i].first : nullptr;
        value* item = Build ? &m[i].second : nullptr;
        if (auto err = decode_string<Build>(in, in.u8(), key); err != proto_errc::ok) return err;
        if (auto err = decode_value<Build>(in, item, depth + 1, place{}); err != proto_errc::ok)
            return err;
    }
    if constexpr (Build) *out = std::move(m);
    return proto_errc::ok;
}

template <bool Build>
proto_errc stream_decoder::decode_value(byte_reader& in, value* out, std::uint32_t depth,
                                        place at) {
    if (depth > limits_.max_depth) return proto_errc::depth_exceeded;
    return decode_tag<Build>(in, out, depth, at);
}

// The one dispatch on a value's tag, for both modes, the commonest tags first (short ints,
// short records, short string references); record fields come here straight from
// decode_record, which checked their depth.
template <bool Build>
inline proto_errc stream_decoder::decode_tag(byte_reader& in, value* out, std::uint32_t depth,
                                             place at) {
    const std::uint8_t tag = in.u8();
    if (!in.ok()) return in.error();
    if (tag >= wire::short_int) return decode_int<Build>(in, tag, out, at);
    if (tag >= wire::short_record) return decode_record<Build, false>(in, tag, out, depth);
    // Decodes into the value's own string when it holds one, reusing its storage.
    if (tag >= wire::short_string_ref)
        return decode_string<Build>(in, tag, Build ? &out->ensure<std::string>() : nullptr);
    if (tag >= wire::short_delta) return decode_int<Build>(in, tag, out, at);
    switch (tag) {
        case wire::tag_null:
            if constexpr (Build) *out = value{};
            return proto_errc::ok;
        case wire::tag_false:
            if constexpr (Build) *out = false;
            return proto_errc::ok;
        case wire::tag_true:
            if constexpr (Build) *out = true;
            return proto_errc::ok;
        case wire::tag_int:
        case wire::tag_int_delta:
            return decode_int<Build>(in, tag, out, at);
        case wire::tag_float64: {
            auto bits = in.fixed<std::uint64_t>();
            if (!in.ok()) return in.error();
            if constexpr (Build) *out = std::bit_cast<double>(bits);
            return proto_errc::ok;
        }
        case wire::tag_string:
        case wire::tag_string_new:
        case wire::tag_string_ref:
        case wire::tag_hex_string:
            return decode_string<Build>(in, tag, Build ? &out->ensure<std::string>() : nullptr);
        case wire::tag_bytes: {
            std::uint64_t n = in.varint();
            if (!in.ok()) return in.error();
            if (n > limits_.max_string_bytes) return proto_errc::string_too_long;
            auto s = in.take(static_cast<std::size_t>(n));
            if (!in.ok()) return in.error();
            if constexpr (Build) *out = bytes{{s.begin(), s.end()}};
            return proto_errc::ok;
        }
        case wire::tag_list:
            return decode_list<Build>(in, out, depth);
        case wire::tag_map:
            return decode_map<Build>(in, out, depth);
        case wire::tag_record_new:
        case wire::tag_record_inline:
        case wire::tag_record:
            return decode_record<Build, false>(in, tag, out, depth);
        case wire::tag_object_def:
        case wire::tag_object_keep:
        case wire::tag_object_kept:
            return decode_object_def<Build>(in, tag, out, depth);
        case wire::tag_lazy: {
            // Kept compressed: expanded by whoever reads it. Rare: checking reads it aside.
            value unused;
            return read_lazy(in, limits_, Build ? *out : unused);
        }
        case wire::tag_object_ref: {
            std::uint64_t h = in.varint();
            if (!in.ok()) return in.error();
            if (h >= current_->objects.size()) return proto_errc::unknown_object;
            if constexpr (Build) *out = object_ref{static_cast<std::uint32_t>(h)};
            return proto_errc::ok;
        }
        default:
            return proto_errc::unknown_tag;
    }
}

// decode_payload (in the header) walks with next_message<true> from other translation units.
template std::error_code stream_decoder::next_message<true>(byte_reader&, message&, bool&);

}  // namespace objwire
