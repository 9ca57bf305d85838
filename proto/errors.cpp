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
        }
        return "unknown objwire.proto error " + std::to_string(ev);
    }
};

}  // namespace

const std::error_category& proto_category() noexcept {
    static const proto_category_impl instance;
    return instance;
}

}  // namespace objwire
