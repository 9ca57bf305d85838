#include "proto/encoder.hpp"

#include <bit>
#include <cstring>

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

void put_int(byte_buffer& out, std::int64_t v) {
    if (v >= wire::short_int_min && v <= wire::short_int_max) {
        out.put_u8(static_cast<std::uint8_t>(wire::short_int + (v - wire::short_int_min)));
    } else {
        out.put_u8(wire::tag_int);
        out.put_varint(zigzag_encode(v));
    }
}

void put_literal(byte_buffer& out, std::uint8_t tag, const void* p, std::size_t n) {
    out.put_u8(tag);
    out.put_varint(n);
    out.append(p, n);
}

}  // namespace

stream_encoder::stream_encoder(encoder_options options)
    : options_(options), table_(options.peer.table_budget) {}

void stream_encoder::reset(byte_buffer& out) {
    out.put_u8(wire::tag_reset);
    table_.reset();
    table_full_ = false;
    since_reset_ = 0;
}

void stream_encoder::begin_message(byte_buffer& out) {
    const bool cadence_due =
        options_.reset_every_messages != 0 && since_reset_ >= options_.reset_every_messages;
    if (cadence_due || table_full_) reset(out);
}

std::error_code stream_encoder::encode(const message& m, byte_buffer& out) {
    begin_message(out);
    const std::size_t start = out.size();
    current_ = &m;
    handles_.assign(m.objects.size(), -1);
    next_handle_ = 0;
    std::error_code ec = encode_value(m.root, out, 1);
    current_ = nullptr;
    if (ec) {
        out.resize(start);
        reset(out);  // the table may hold entries the receiver will never see
        return ec;
    }
    ++messages_;
    ++since_reset_;
    return {};
}

std::error_code stream_encoder::encode_string(std::string_view s, byte_buffer& out) {
    if (s.size() > options_.peer.max_string_bytes) return proto_errc::string_too_long;
    if (auto id = table_.find_string(s)) {
        put_id(out, *id, wire::short_string_ref, wire::tag_string_ref);
        return {};
    }
    if (!is_valid_utf8(s)) return proto_errc::invalid_utf8;
    if (!s.empty() && s.size() <= options_.max_indexed_string) {
        if (table_.try_insert_string(s)) {
            put_literal(out, wire::tag_string_new, s.data(), s.size());
            return {};
        }
        table_full_ = true;
    }
    put_literal(out, wire::tag_string, s.data(), s.size());
    return {};
}

std::error_code stream_encoder::encode_descriptor(const record_type& t, byte_buffer& out) {
    if (t.fields.size() > options_.peer.max_elements) return proto_errc::too_many_elements;
    if (auto ec = encode_string(t.name, out)) return ec;
    out.put_varint(t.fields.size());
    for (const auto& f : t.fields)
        if (auto ec = encode_string(f, out)) return ec;
    return {};
}

std::error_code stream_encoder::encode_record(const record& r, byte_buffer& out,
                                              std::uint32_t depth) {
    if (!r.type || r.type->fields.size() != r.fields.size()) return proto_errc::bad_record;
    if (auto id = table_.find_type(r.type)) {
        put_id(out, *id, wire::short_record, wire::tag_record);
    } else {
        // Descriptor strings go first so the type's id is the one the receiver assigns next.
        const std::size_t tag_at = out.size();
        out.put_u8(wire::tag_record_new);
        if (auto ec = encode_descriptor(*r.type, out)) return ec;
        if (!table_.try_insert_type(r.type)) {
            out.data()[tag_at] = wire::tag_record_inline;
            table_full_ = true;
        }
    }
    for (const auto& f : r.fields)
        if (auto ec = encode_value(f, out, depth + 1)) return ec;
    return {};
}

std::error_code stream_encoder::encode_object_ref(std::uint32_t index, byte_buffer& out,
                                                  std::uint32_t depth) {
    if (index >= current_->objects.size()) return proto_errc::unknown_object;
    if (handles_[index] >= 0) {
        out.put_u8(wire::tag_object_ref);
        out.put_varint(static_cast<std::uint64_t>(handles_[index]));
        return {};
    }
    if (next_handle_ >= options_.peer.max_elements) return proto_errc::too_many_elements;
    handles_[index] = next_handle_++;  // before the body, so a cycle back to it is a ref
    out.put_u8(wire::tag_object_def);
    return encode_value(current_->objects[index], out, depth + 1);
}

std::error_code stream_encoder::encode_value(const value& v, byte_buffer& out,
                                             std::uint32_t depth) {
    if (depth > options_.peer.max_depth) return proto_errc::depth_exceeded;
    switch (v.type()) {
        case value::kind::null: out.put_u8(wire::tag_null); return {};
        case value::kind::boolean:
            out.put_u8(v.get<bool>() ? wire::tag_true : wire::tag_false);
            return {};
        case value::kind::integer: put_int(out, v.get<std::int64_t>()); return {};
        case value::kind::floating:
            out.put_u8(wire::tag_float64);
            out.put_u64(std::bit_cast<std::uint64_t>(v.get<double>()));
            return {};
        case value::kind::string: return encode_string(v.get<std::string>(), out);
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
                if (auto ec = encode_value(e, out, depth + 1)) return ec;
            return {};
        }
        case value::kind::map: {
            const auto& m = v.get<map>();
            if (m.size() > options_.peer.max_elements) return proto_errc::too_many_elements;
            out.put_u8(wire::tag_map);
            out.put_varint(m.size());
            for (const auto& [k, e] : m) {
                if (auto ec = encode_string(k, out)) return ec;
                if (auto ec = encode_value(e, out, depth + 1)) return ec;
            }
            return {};
        }
        case value::kind::record: return encode_record(v.get<record>(), out, depth);
        case value::kind::object_ref:
            return encode_object_ref(v.get<object_ref>().index, out, depth);
    }
    return proto_errc::unknown_tag;
}

}  // namespace objwire
