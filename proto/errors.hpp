// Error codes of the protocol layer: one category, one value per distinct failure, so that a
// log line and a test can name exactly what was wrong with the peer's bytes.
#pragma once

#include <system_error>

namespace objwire {

enum class proto_errc {
    ok = 0,
    truncated = 1,             // input ended inside a value or frame
    bad_checksum,              // frame CRC-32C mismatch
    frame_too_large,           // announced frame length over the agreed maximum
    unknown_tag,               // a value tag this version does not define
    bad_varint,                // varint longer than 10 bytes or overflowing 64 bits
    invalid_utf8,              // a string that is not valid UTF-8
    depth_exceeded,            // nesting deeper than the agreed maximum
    string_too_long,           // string or bytes length over the limit
    too_many_elements,         // list/map/record count over the limit
    unknown_reference,         // back-reference to a table entry that does not exist
    unknown_object,            // in-message object reference that was never defined
    table_budget_exceeded,     // an insert would take the table over the announced budget
    bad_sequence,              // frame sequence number out of order
    trailing_bytes,            // bytes left over where a structure should have ended
    unknown_frame_kind,        // frame kind byte not defined
    bad_codec,                 // compression codec not negotiated or unknown
    decompress_failed,         // compressed payload is corrupt or exceeds its stated raw size
    bad_magic,                 // handshake does not start with "OBJW"
    unsupported_version,       // handshake version we do not speak
    bad_handshake,             // handshake fields malformed or missing
    bad_reserved,              // a reserved field is not zero
    unexpected_frame,          // a frame kind that is not valid in the current state
    message_too_large,         // one message does not fit in a frame
    bad_record,                // record field count does not match its type descriptor
    bad_message,               // peer sent an error frame or malformed control frame
    unauthorized,              // the hello lacks the shared token, or carries a wrong one
    sender_busy,               // a sender id or cursor in use by another connection
    not_available,             // the daemon cannot serve what the hello asks for (role, sink)
    reference_bytes_exceeded,  // a frame's back-references decode to more than announced
    bad_columns,               // a column directory that does not describe its payload
    sender_fenced,         // the sender id was claimed by another stream since this one's welcome
    integer_out_of_range,  // an unsigned integer over INT64_MAX, which the encoding cannot hold
    too_many_connections,  // a connection cap (in all, or per address) is reached
    duplicate_field,       // a record type names the same field twice
    store_limit_exceeded,  // the receiver will not store more for what this peer sent
    not_found = 36,        // a reader's sender id or cursor that the daemon does not know
    past_end = 37,         // a cursor set, or a new one made, past the end of what is stored
    relay_loop = 38,       // a stream that already passed this relay, or more relays than allowed
};
static_assert(static_cast<int>(proto_errc::duplicate_field) == 34, "error values are wire values");

const std::error_category& proto_category() noexcept;
// The enumerator's name ("bad_checksum"): a stable label for metrics and tests.
const char* proto_errc_name(proto_errc e) noexcept;

inline std::error_code make_error_code(proto_errc e) noexcept {
    return {static_cast<int>(e), proto_category()};
}

}  // namespace objwire

template <>
struct std::is_error_code_enum<objwire::proto_errc> : std::true_type {};
