// Helpers shared by the proto unit tests: building messages and encoding them end to end.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "proto/decoder.hpp"
#include "proto/encoder.hpp"
#include "proto/journal_block.hpp"
#include "proto/receiver.hpp"
#include "proto/sender.hpp"
#include "proto/value.hpp"

namespace objwire::test {

// Appends v as the protocol's varint, for tests that build frames byte by byte.
inline void append_varint(std::vector<std::uint8_t>& out, std::uint64_t v) {
    byte_buffer b;
    b.put_varint(v);
    out.insert(out.end(), b.data(), b.data() + b.size());
}

inline record_type_ptr person_type() {
    static const auto t = make_record_type("Person", {"firstName", "surname", "age"});
    return t;
}

inline message person(std::int64_t age) {
    return {make_record(person_type(), {"Heinz", "Kabutz", age}), {}};
}

// A stored block of `count` person records from `first_offset`.
inline byte_buffer stored_block(const std::string& sender, std::uint64_t first_offset, int count) {
    journal_block_writer w(sender);
    for (int i = 0; i < count; ++i) {
        if (w.add(person(static_cast<std::int64_t>(first_offset) + i)))
            throw std::runtime_error("add");
    }
    auto span = w.finish(1, 1, 1700000000000);
    seal_journal_block(span, first_offset);
    byte_buffer b;
    b.append(span);
    return b;
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

// Bytes in flight handed to the receiver, `chunk` bytes a "read", processing after each: each
// message to `deliver`, each frame's count to `frame_done` when given.
inline void feed(receiver& r, std::span<const std::uint8_t> bytes,
                 const std::function<void(message&&)>& deliver,
                 const receiver::frame_handler& frame_done = {}, std::size_t chunk = SIZE_MAX) {
    for (std::size_t pos = 0; pos < bytes.size();) {
        auto space = r.prepare();
        const std::size_t n = std::min({space.size(), bytes.size() - pos, chunk});
        std::copy_n(bytes.data() + pos, n, space.data());
        r.commit(n);
        pos += n;
        r.process(deliver, frame_done);
    }
}

// Writes what the sender offers into the receiver (feed()), and consumes it; the receiver's
// replies stay with it. Returns the bytes written.
inline std::size_t deliver(sender& s, receiver& r, std::vector<message>& stored,
                           std::size_t chunk = SIZE_MAX) {
    const auto out = s.output();
    feed(
        r, out, [&](message&& m) { stored.push_back(std::move(m)); }, {}, chunk);
    s.consume_output();
    return out.size();
}

// The receiver's replies so far (acks, and an error or goodbye) to the sender, processed.
inline void answer(receiver& r, sender& s) {
    r.acknowledge();
    auto& back = r.output();
    auto into = s.prepare();
    std::copy_n(back.data(), back.size(), into.data());
    s.commit(back.size());
    back.clear();
    s.process();
}

}  // namespace objwire::test
