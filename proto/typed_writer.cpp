#include "proto/typed_writer.hpp"

#include <limits>

#include "proto/encoder.hpp"
#include "proto/encoder_literals.hpp"
#include "proto/wire.hpp"

// Each step does what stream_encoder::encode_value does for the same value at the same depth
// and place, checks included, so the two paths cannot write different bytes: the field loop's
// shortcuts (encode_field_values) only skip checks that were made once for the record.
namespace objwire {

void typed_writer::null(const typed_slot& s) {
    s.out->put_u8(wire::tag_null);
}

void typed_writer::boolean(const typed_slot& s, bool b) {
    s.out->put_u8(b ? wire::tag_true : wire::tag_false);
}

void typed_writer::integer(const typed_slot& s, std::int64_t v) {
    e_.encode_int(v, *s.out, {s.type_id, s.field, s.direct});
}

proto_errc typed_writer::unsigned_integer(const typed_slot& s, std::uint64_t v) {
    if (v > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
        return proto_errc::integer_out_of_range;
    integer(s, static_cast<std::int64_t>(v));
    return proto_errc::ok;
}

void typed_writer::floating(const typed_slot& s, double d) {
    put_float(*s.out, d);
}

proto_errc typed_writer::string(const typed_slot& s, std::string_view text) {
    return e_.encode_string(text, *s.out, {s.type_id, s.field, s.direct}, false);
}

proto_errc typed_writer::bytes(const typed_slot& s, std::span<const std::uint8_t> b) {
    if (b.size() > e_.options_.peer.max_string_bytes) return proto_errc::string_too_long;
    put_literal(*s.out, wire::tag_bytes, b.data(), b.size());
    return proto_errc::ok;
}

namespace {

// The head of a list or map; `element` is where its elements go: one level deeper, inside the
// same place (encode_value's `inside`).
proto_errc put_container(const typed_slot& s, std::size_t n, std::uint8_t tag,
                         const decoder_limits& peer, typed_slot& element) {
    if (s.depth > peer.max_depth) return proto_errc::depth_exceeded;
    if (n > peer.max_elements) return proto_errc::too_many_elements;
    // encode_value checks each element's depth; one check for all of them.
    if (n > 0 && s.depth + 1 > peer.max_depth) return proto_errc::depth_exceeded;
    s.out->put_u8(tag);
    s.out->put_varint(n);
    element = typed_slot{s.out, s.depth + 1, s.type_id, s.field, false};
    return proto_errc::ok;
}

}  // namespace

proto_errc typed_writer::begin_list(const typed_slot& s, std::size_t n, typed_slot& element) {
    return put_container(s, n, wire::tag_list, e_.options_.peer, element);
}

proto_errc typed_writer::begin_map(const typed_slot& s, std::size_t n, typed_slot& element) {
    return put_container(s, n, wire::tag_map, e_.options_.peer, element);
}

proto_errc typed_writer::map_key(const typed_slot& element, std::string_view key) {
    return e_.encode_string(key, *element.out, {}, false);
}

proto_errc typed_writer::begin_record(const typed_slot& s, const record_type_ptr& type,
                                      typed_record& r) {
    if (s.depth > e_.options_.peer.max_depth) return proto_errc::depth_exceeded;
    r = typed_record{};
    r.out_ = s.out;
    r.depth_ = s.depth;
    if (auto ec = e_.put_record_type(type, *s.out, r.kept_, r.type_id_); ec != proto_errc::ok)
        return ec;
    const std::size_t sent = r.kept_ ? r.kept_->size() : type->fields.size();
    if (sent > 0 && s.depth + 1 > e_.options_.peer.max_depth) return proto_errc::depth_exceeded;
    if (s.depth == 1) r.columns_ = e_.columns_;
    // The type stays in the table while its fields are written: their delta state lives there.
    if (r.type_id_ >= 0) e_.table_.pin(static_cast<std::uint32_t>(r.type_id_));
    return proto_errc::ok;
}

void typed_writer::end_record(const typed_record& r) {
    if (r.type_id_ >= 0) e_.table_.unpin(static_cast<std::uint32_t>(r.type_id_));
}

proto_errc typed_writer::object(const typed_slot& s, const void* identity, bool& define,
                                typed_slot& body) {
    if (s.depth > e_.options_.peer.max_depth) return proto_errc::depth_exceeded;
    const auto [it, fresh] = e_.typed_handles_.try_emplace(identity, e_.next_handle_);
    if (!fresh) {
        define = false;
        s.out->put_u8(wire::tag_object_ref);
        s.out->put_varint(it->second);
        return proto_errc::ok;
    }
    if (e_.next_handle_ >= e_.options_.peer.max_elements) return proto_errc::too_many_elements;
    ++e_.next_handle_;  // before the body, so a cycle back to it is a reference
    define = true;
    s.out->put_u8(wire::tag_object_def);
    body = typed_slot{s.out, s.depth + 1, -1, 0, false};
    if (body.depth > e_.options_.peer.max_depth) return proto_errc::depth_exceeded;
    return proto_errc::ok;
}

}  // namespace objwire
