#include "proto/control.hpp"

#include <functional>

#include "proto/byte_reader.hpp"
#include "proto/control_fields.hpp"
#include "proto/control_text.hpp"
#include "proto/errors.hpp"
#include "proto/utf8.hpp"

namespace objwire {
namespace {

using namespace fields;

constexpr std::uint8_t magic[4] = {'O', 'B', 'J', 'W'};
// An enum's number, at most `last`.
template <typename E>
proto_errc read_enum(byte_reader& f, E& out, E last) {
    std::uint64_t v;
    if (auto e = read_number(f, v, static_cast<std::uint64_t>(last)); e != proto_errc::ok) return e;
    out = static_cast<E>(v);
    return proto_errc::ok;
}

proto_errc read_flag(byte_reader& f, bool& out) {
    std::uint64_t v;
    if (auto e = read_number(f, v, 1); e != proto_errc::ok) return e;
    out = v == 1;
    return proto_errc::ok;
}

void put_preamble(byte_buffer& out, std::uint16_t version) {
    out.append(magic, 4);
    out.put_u16(version);
}

proto_errc read_preamble(byte_reader& in, std::uint16_t& version) {
    auto m = in.take(4);
    if (!in.ok()) return proto_errc::bad_magic;
    if (!std::equal(m.begin(), m.end(), magic)) return proto_errc::bad_magic;
    version = in.fixed<std::uint16_t>();
    if (!in.ok()) return proto_errc::bad_handshake;
    if (version != protocol_version) return proto_errc::unsupported_version;
    return proto_errc::ok;
}

}  // namespace

bool welcome::operator==(const welcome& o) const {
    return version == o.version && server_name == o.server_name &&
           limits.table_budget == o.limits.table_budget && limits.max_depth == o.limits.max_depth &&
           limits.max_string_bytes == o.limits.max_string_bytes &&
           limits.max_elements == o.limits.max_elements &&
           limits.max_frame_bytes == o.limits.max_frame_bytes &&
           limits.max_reference_bytes == o.limits.max_reference_bytes && codecs == o.codecs &&
           sink == o.sink && next_sequence == o.next_sequence && credit_bytes == o.credit_bytes &&
           journal_first_offset == o.journal_first_offset &&
           journal_end_offset == o.journal_end_offset && fresh_frames == o.fresh_frames &&
           columns == o.columns && resume_token == o.resume_token &&
           stored_objects == o.stored_objects && stored_digest == o.stored_digest &&
           read_start == o.read_start && read_offsets == o.read_offsets;
}

void encode_hello(const hello& h, byte_buffer& out) {
    put_preamble(out, h.version);
    field_writer w(out);
    w.text(1, h.client_name);
    w.text(2, h.sender_id);
    w.number(3, h.max_frame_bytes);
    w.number(4, h.codecs);
    w.number(5, h.table_budget);
    if (!h.auth_token.empty()) w.text(6, h.auth_token);
    if (h.role != peer_role::sender) w.number(7, static_cast<std::uint64_t>(h.role));
    if (h.read_from != 0) w.number(8, h.read_from);
    if (h.follow) w.number(9, 1);
    if (!h.read_sender.empty()) w.text(10, h.read_sender);
    if (!h.resume_token.empty()) w.text(11, h.resume_token);
    if (h.read_at_end) w.number(12, 1);
    if (h.read_last != 0) w.number(13, h.read_last);
    if (!h.read_cursor.empty()) w.text(14, h.read_cursor);
    if (h.request != read_request::none) w.number(15, static_cast<std::uint64_t>(h.request));
    if (h.read_since_ms != 0) w.number(16, h.read_since_ms);
    for (const auto& relay : h.relay_path)
        w.text(17, relay);
}

result<hello> decode_hello(std::span<const std::uint8_t> payload) {
    byte_reader in(payload);
    hello h;
    if (auto e = read_preamble(in, h.version); e != proto_errc::ok) return e;
    auto e = read_fields(in, [&](std::uint64_t key, byte_reader& f) {
        switch (key) {
            case 1:
                return read_text(f, h.client_name);
            case 2:
                return read_text(f, h.sender_id);
            case 3:
                return read_into(f, h.max_frame_bytes);
            case 4:
                return read_into(f, h.codecs);
            case 5:
                return read_into(f, h.table_budget);
            case 6:
                return read_text(f, h.auth_token);
            case 7:
                return read_enum(f, h.role, peer_role::stats);
            case 8:
                return read_into(f, h.read_from);
            case 9:
                return read_flag(f, h.follow);
            case 10:
                return read_text(f, h.read_sender);
            case 11:
                return read_text(f, h.resume_token);
            case 12:
                return read_flag(f, h.read_at_end);
            case 13:
                return read_into(f, h.read_last);
            case 14:
                return read_text(f, h.read_cursor);
            case 15:
                return read_enum(f, h.request, read_request::set_cursor);
            case 16:
                return read_into(f, h.read_since_ms);
            case 17:
                if (h.relay_path.size() >= max_relay_path) return proto_errc::too_many_elements;
                return read_text(f, h.relay_path.emplace_back());
            default:
                f.take(f.remaining());
                return proto_errc::ok;
        }
    });
    if (e != proto_errc::ok) return e;
    return h;
}

void encode_welcome(const welcome& w, byte_buffer& out) {
    put_preamble(out, w.version);
    field_writer f(out);
    f.text(1, w.server_name);
    f.number(2, w.limits.table_budget);
    f.number(3, w.limits.max_frame_bytes);
    f.number(4, w.limits.max_depth);
    f.number(5, w.limits.max_string_bytes);
    f.number(6, w.limits.max_elements);
    f.number(7, w.codecs);
    f.text(8, w.sink);
    f.number(9, w.next_sequence);
    f.number(10, w.limits.max_reference_bytes);
    if (w.credit_bytes) f.number(11, w.credit_bytes);
    if (w.journal_first_offset) f.number(12, w.journal_first_offset);
    if (w.journal_end_offset) f.number(13, w.journal_end_offset);
    if (w.fresh_frames) f.number(14, 1);
    if (w.columns) f.number(15, 1);
    if (!w.resume_token.empty()) f.text(16, w.resume_token);
    if (w.stored_objects) f.number(17, w.stored_objects);
    if (w.stored_digest) f.number(18, w.stored_digest);
    if (w.read_start) f.number(20, w.read_start);
    if (w.read_offsets != offset_unit::object) f.number(21, static_cast<int>(w.read_offsets));
}

result<welcome> decode_welcome(std::span<const std::uint8_t> payload) {
    byte_reader in(payload);
    welcome w;
    if (auto e = read_preamble(in, w.version); e != proto_errc::ok) return e;
    auto e = read_fields(in, [&](std::uint64_t key, byte_reader& f) {
        switch (key) {
            case 1:
                return read_text(f, w.server_name);
            case 2:
                return read_into(f, w.limits.table_budget);
            case 3:
                return read_into(f, w.limits.max_frame_bytes);
            case 4:
                return read_into(f, w.limits.max_depth);
            case 5:
                return read_into(f, w.limits.max_string_bytes);
            case 6:
                return read_into(f, w.limits.max_elements);
            case 7:
                return read_into(f, w.codecs);
            case 8:
                return read_text(f, w.sink);
            case 9:
                return read_into(f, w.next_sequence);
            case 10:
                return read_into(f, w.limits.max_reference_bytes);
            case 11:
                return read_into(f, w.credit_bytes);
            case 12:
                return read_into(f, w.journal_first_offset);
            case 13:
                return read_into(f, w.journal_end_offset);
            case 14: {
                std::uint64_t on = 0;
                const auto e = read_into(f, on);
                w.fresh_frames = on != 0;
                return e;
            }
            case 15: {
                std::uint64_t on = 0;
                const auto e = read_into(f, on);
                w.columns = on != 0;
                return e;
            }
            case 16:
                return read_text(f, w.resume_token);
            case 17:
                return read_into(f, w.stored_objects);
            case 18:
                return read_into(f, w.stored_digest);
            case 20:
                return read_into(f, w.read_start);
            case 21: {
                std::uint64_t unit = 0;
                const auto e = read_into(f, unit);
                if (e == proto_errc::ok && unit > 1) return proto_errc::bad_message;
                w.read_offsets = static_cast<offset_unit>(unit);
                return e;
            }
            default:
                f.take(f.remaining());
                return proto_errc::ok;
        }
    });
    if (e != proto_errc::ok) return e;
    return w;
}

void encode_ack(const ack& a, byte_buffer& out) {
    field_writer f(out);
    f.number(1, a.sequence);
    f.number(2, a.objects);
    f.number(3, a.table_bytes);
    f.number(4, a.table_peak_bytes);
    // Only receivers that decompressed something say so; both fields or neither, so that any
    // ack decoded encodes again to an equal one.
    if (a.decompressed_bytes || a.decompress_ns) {
        f.number(5, a.decompressed_bytes);
        f.number(6, a.decompress_ns);
    }
    if (a.credit) f.number(7, a.credit);
}

result<ack> decode_ack(std::span<const std::uint8_t> payload) {
    byte_reader in(payload);
    ack a;
    auto e = read_fields(in, [&](std::uint64_t key, byte_reader& f) {
        switch (key) {
            case 1:
                return read_into(f, a.sequence);
            case 2:
                return read_into(f, a.objects);
            case 3:
                return read_into(f, a.table_bytes);
            case 4:
                return read_into(f, a.table_peak_bytes);
            case 5:
                return read_into(f, a.decompressed_bytes);
            case 6:
                return read_into(f, a.decompress_ns);
            case 7:
                return read_into(f, a.credit);
            default:
                f.take(f.remaining());
                return proto_errc::ok;
        }
    });
    if (e != proto_errc::ok) return e;
    return a;
}

void encode_mark(const mark& m, byte_buffer& out) {
    field_writer f(out);
    f.number(1, m.input_digest);
}

result<mark> decode_mark(std::span<const std::uint8_t> payload) {
    byte_reader in(payload);
    mark m;
    auto e = read_fields(in, [&](std::uint64_t key, byte_reader& f) {
        if (key == 1) return read_into(f, m.input_digest);
        f.take(f.remaining());
        return proto_errc::ok;
    });
    if (e != proto_errc::ok) return e;
    return m;
}

void encode_error(const error_message& m, byte_buffer& out) {
    field_writer f(out);
    f.number(1, m.code);
    f.text(2, m.text.substr(0, max_control_string));
}

result<error_message> decode_error(std::span<const std::uint8_t> payload) {
    byte_reader in(payload);
    error_message m;
    auto e = read_fields(in, [&](std::uint64_t key, byte_reader& f) {
        switch (key) {
            case 1:
                return read_into(f, m.code);
            case 2:
                return read_text(f, m.text);
            default:
                f.take(f.remaining());
                return proto_errc::ok;
        }
    });
    if (e != proto_errc::ok) return e;
    return m;
}

peer_error read_error_frame(std::span<const std::uint8_t> payload) {
    auto e = decode_error(payload);
    if (!e) return {proto_errc::bad_message, "malformed error frame", false};
    peer_error out;
    out.code = e->code != 0 ? std::error_code(static_cast<proto_errc>(e->code))
                            : std::error_code(proto_errc::bad_message);
    // The peer's words are printed and logged: no control character of theirs gets through.
    out.text = e->text.empty() ? "no reason given" : escape_control_chars(e->text);
    return out;
}

bool valid_cursor_name(std::string_view name) {
    if (name.empty() || name.size() > 128 || name.front() == '.') return false;
    for (const char c : name) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                        (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
        if (!ok) return false;
    }
    return true;
}

void encode_read_ack(const read_ack& a, byte_buffer& out) {
    field_writer f(out);
    f.number(1, a.next_offset);
}

result<read_ack> decode_read_ack(std::span<const std::uint8_t> payload) {
    byte_reader in(payload);
    read_ack a;
    auto e = read_fields(in, [&](std::uint64_t key, byte_reader& f) {
        if (key == 1) return read_into(f, a.next_offset);
        f.take(f.remaining());
        return proto_errc::ok;
    });
    if (e != proto_errc::ok) return e;
    return a;
}

// One (1 name, 2 offset) pair of fields per cursor, in order.
void encode_cursor_list(const cursor_list& l, byte_buffer& out) {
    field_writer f(out);
    for (const auto& c : l.cursors) {
        f.text(1, c.name);
        f.number(2, c.next_offset);
    }
}

result<cursor_list> decode_cursor_list(std::span<const std::uint8_t> payload) {
    byte_reader in(payload);
    cursor_list l;
    auto e = read_fields(in, [&](std::uint64_t key, byte_reader& f) {
        switch (key) {
            case 1:
                l.cursors.emplace_back();
                return read_text(f, l.cursors.back().name);
            case 2:
                if (l.cursors.empty()) return proto_errc::bad_message;
                return read_into(f, l.cursors.back().next_offset);
            default:
                f.take(f.remaining());
                return proto_errc::ok;
        }
    });
    if (e != proto_errc::ok) return e;
    return l;
}

// Fields 1 id, 2 objects, 3 first offset, 4 last offset, 5 last time per sender, in order;
// a field 1 starts the next sender.
void encode_sender_list(const sender_list& l, byte_buffer& out) {
    field_writer f(out);
    for (const auto& e : l.senders) {
        f.text(1, e.id);
        f.number(2, e.objects);
        f.number(3, e.first_offset);
        f.number(4, e.last_offset);
        f.number(5, e.last_time_ms);
    }
}

proto_errc decode_sender_list(std::span<const std::uint8_t> payload, sender_list& into) {
    byte_reader in(payload);
    const std::size_t first = into.senders.size();
    auto e = read_fields(in, [&](std::uint64_t key, byte_reader& f) {
        if (key == 1) {
            into.senders.emplace_back();
            return read_text(f, into.senders.back().id);
        }
        if (key < 2 || key > 5) {  // a later version's field: skipped
            f.take(f.remaining());
            return proto_errc::ok;
        }
        if (into.senders.size() == first) return proto_errc::bad_message;
        auto& s = into.senders.back();
        switch (key) {
            case 2:
                return read_into(f, s.objects);
            case 3:
                return read_into(f, s.first_offset);
            case 4:
                return read_into(f, s.last_offset);
            default:
                return read_into(f, s.last_time_ms);
        }
    });
    if (e == proto_errc::ok) {
        for (std::size_t i = first; i < into.senders.size(); ++i) {
            const auto& s = into.senders[i];
            if (s.objects == 0 || s.first_offset > s.last_offset) return proto_errc::bad_message;
        }
    }
    return e;
}

}  // namespace objwire
