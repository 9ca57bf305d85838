// Fuzz target: the handshake and control payload decoders (proto/control.hpp): hello, welcome,
// ack and error. Whatever the bytes: no crash, and a payload that decodes encodes again to one
// that decodes to the same value (unknown fields are skipped, so the bytes may differ).
//
// Input: one knob byte (0 hello, 1 welcome, 2 ack, 3 error, modulo 4), then the payload.
#include "fuzz_support.hpp"
#include "proto/control.hpp"

using namespace objwire;

namespace {

template <class T>
void check(std::span<const std::uint8_t> payload,
           result<T> (*decode)(std::span<const std::uint8_t>),
           void (*encode)(const T&, byte_buffer&)) {
    auto v = decode(payload);
    if (!v) {
        FUZZ_CHECK(v.error());
        return;
    }
    byte_buffer again;
    encode(*v, again);
    auto back = decode(again.span());
    FUZZ_CHECK(back.has_value());
    FUZZ_CHECK(*back == *v);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const std::span<const std::uint8_t> payload(data + 1, size - 1);
    switch (data[0] % 4) {
        case 0:
            check<hello>(payload, decode_hello, encode_hello);
            break;
        case 1:
            check<welcome>(payload, decode_welcome, encode_welcome);
            break;
        case 2:
            check<ack>(payload, decode_ack, encode_ack);
            break;
        default:
            check<error_message>(payload, decode_error, encode_error);
            break;
    }
    return 0;
}
