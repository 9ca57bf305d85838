#include "proto/errors.hpp"

#include <string>

namespace objwire {
namespace {

class proto_category_impl final : public std::error_category {
  public:
    const char* name() const noexcept override { return "objwire.proto"; }
    std::string message(int ev) const override {
        switch (static_cast<proto_errc>(ev)) {
            case proto_errc::ok:
                return "ok";
            case proto_errc::truncated:
                return "truncated input";
            case proto_errc::bad_checksum:
                return "frame checksum mismatch";
            case proto_errc::frame_too_large:
                return "frame larger than the agreed maximum";
            case proto_errc::unknown_tag:
                return "unknown value tag";
            case proto_errc::bad_varint:
                return "malformed varint";
            case proto_errc::invalid_utf8:
                return "string is not valid UTF-8";
            case proto_errc::depth_exceeded:
                return "nesting deeper than the agreed maximum";
            case proto_errc::string_too_long:
                return "string or bytes longer than the limit";
            case proto_errc::too_many_elements:
                return "more elements than the limit";
            case proto_errc::unknown_reference:
                return "back-reference to an unknown table entry";
            case proto_errc::unknown_object:
                return "reference to an undefined object";
            case proto_errc::table_budget_exceeded:
                return "table_budget_exceeded";
            case proto_errc::bad_sequence:
                return "frame sequence out of order";
            case proto_errc::trailing_bytes:
                return "trailing bytes after a complete structure";
            case proto_errc::unknown_frame_kind:
                return "unknown frame kind";
            case proto_errc::bad_codec:
                return "unknown or unnegotiated compression codec";
            case proto_errc::decompress_failed:
                return "decompression failed or exceeded raw size";
            case proto_errc::bad_magic:
                return "bad magic (not an objwire peer)";
            case proto_errc::unsupported_version:
                return "unsupported protocol version";
            case proto_errc::bad_handshake:
                return "malformed handshake";
            case proto_errc::bad_reserved:
                return "reserved field is not zero";
            case proto_errc::unexpected_frame:
                return "frame not valid in this state";
            case proto_errc::message_too_large:
                return "message does not fit in one frame";
            case proto_errc::bad_record:
                return "record does not match its type descriptor";
            case proto_errc::bad_message:
                return "malformed control message";
            case proto_errc::unauthorized:
                return "not authorized";
            case proto_errc::sender_busy:
                return "in use by another connection";
            case proto_errc::not_available:
                return "not available on this daemon";
            case proto_errc::reference_bytes_exceeded:
                return "frame decodes to more bytes by reference than announced";
            case proto_errc::bad_columns:
                return "column directory does not match its payload";
            case proto_errc::sender_fenced:
                return "the sender id was taken by another stream: this one may not resume it";
            case proto_errc::integer_out_of_range:
                return "unsigned integer over 2^63-1: the value encoding holds signed 64-bit "
                       "integers";
            case proto_errc::too_many_connections:
                return "too many connections";
            case proto_errc::duplicate_field:
                return "record type has the same field name twice";
            case proto_errc::store_limit_exceeded:
                return "more stored than the receiver allows for the bytes received";
            case proto_errc::not_found:
                return "no such sender id or cursor";
            case proto_errc::past_end:
                return "offset past the end of what is stored";
            case proto_errc::relay_loop:
                return "the stream already passed through this relay, or through too many";
        }
        return "unknown objwire.proto error " + std::to_string(ev);
    }
};

}  // namespace

const std::error_category& proto_category() noexcept {
    static const proto_category_impl instance;
    return instance;
}

// No default: a new code without a name here is a compile warning (an error in CI).
const char* proto_errc_name(proto_errc e) noexcept {
    switch (e) {
        case proto_errc::ok:
            return "ok";
        case proto_errc::truncated:
            return "truncated";
        case proto_errc::bad_checksum:
            return "bad_checksum";
        case proto_errc::frame_too_large:
            return "frame_too_large";
        case proto_errc::unknown_tag:
            return "unknown_tag";
        case proto_errc::bad_varint:
            return "bad_varint";
        case proto_errc::invalid_utf8:
            return "invalid_utf8";
        case proto_errc::depth_exceeded:
            return "depth_exceeded";
        case proto_errc::string_too_long:
            return "string_too_long";
        case proto_errc::too_many_elements:
            return "too_many_elements";
        case proto_errc::unknown_reference:
            return "unknown_reference";
        case proto_errc::unknown_object:
            return "unknown_object";
        case proto_errc::table_budget_exceeded:
            return "table_budget_exceeded";
        case proto_errc::bad_sequence:
            return "bad_sequence";
        case proto_errc::trailing_bytes:
            return "trailing_bytes";
        case proto_errc::unknown_frame_kind:
            return "unknown_frame_kind";
        case proto_errc::bad_codec:
            return "bad_codec";
        case proto_errc::decompress_failed:
            return "decompress_failed";
        case proto_errc::bad_magic:
            return "bad_magic";
        case proto_errc::unsupported_version:
            return "unsupported_version";
        case proto_errc::bad_handshake:
            return "bad_handshake";
        case proto_errc::bad_reserved:
            return "bad_reserved";
        case proto_errc::unexpected_frame:
            return "unexpected_frame";
        case proto_errc::message_too_large:
            return "message_too_large";
        case proto_errc::bad_record:
            return "bad_record";
        case proto_errc::bad_message:
            return "bad_message";
        case proto_errc::unauthorized:
            return "unauthorized";
        case proto_errc::sender_busy:
            return "sender_busy";
        case proto_errc::not_available:
            return "not_available";
        case proto_errc::reference_bytes_exceeded:
            return "reference_bytes_exceeded";
        case proto_errc::bad_columns:
            return "bad_columns";
        case proto_errc::sender_fenced:
            return "sender_fenced";
        case proto_errc::integer_out_of_range:
            return "integer_out_of_range";
        case proto_errc::too_many_connections:
            return "too_many_connections";
        case proto_errc::duplicate_field:
            return "duplicate_field";
        case proto_errc::store_limit_exceeded:
            return "store_limit_exceeded";
        case proto_errc::not_found:
            return "not_found";
        case proto_errc::past_end:
            return "past_end";
        case proto_errc::relay_loop:
            return "relay_loop";
    }
    return "unknown";
}

}  // namespace objwire
