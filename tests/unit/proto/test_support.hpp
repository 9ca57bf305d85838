// Helpers shared by the proto unit tests: building messages and encoding them end to end.
#pragma once

#include <vector>

#include "proto/decoder.hpp"
#include "proto/encoder.hpp"
#include "proto/value.hpp"

namespace objwire::test {

inline record_type_ptr person_type() {
    static const auto t = make_record_type("Person", {"firstName", "surname", "age"});
    return t;
}

inline message person(std::int64_t age) {
    return {make_record(person_type(), {"Heinz", "Kabutz", age}), {}};
}

// Encodes messages into one payload, decodes it with a fresh decoder, returns what came out.
inline std::vector<message> round_trip(const std::vector<message>& in, decoder_limits limits = {},
                                       std::size_t* wire_bytes = nullptr) {
    encoder_options opts;
    opts.peer = limits;
    stream_encoder enc(opts);
    byte_buffer buf;
    for (const auto& m : in) {
        auto ec = enc.encode(m, buf);
        if (ec) throw std::system_error(ec);
    }
    if (wire_bytes) *wire_bytes = buf.size();
    stream_decoder dec(limits);
    std::vector<message> out;
    auto ec = dec.decode_payload(buf.span(), [&](message&& m) { out.push_back(std::move(m)); });
    if (ec) throw std::system_error(ec);
    return out;
}

}  // namespace objwire::test
