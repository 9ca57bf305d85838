// Fuzz target: the receiving state machine (proto/receiver.hpp) after a valid hello, driven as
// the daemon's session drives it: bytes in through prepare()/commit() in reads of some size,
// process(), acknowledge(), output out. Whatever the bytes: no crash, a close leaves the
// receiver finished or failed, every message counted was delivered, and what the receiver
// writes back is a well-formed reply stream - a welcome, cumulative acks that never pass the
// frames it took, then at most one error frame (with the receiver's own error) or a goodbye.
//
// Input: one knob byte, then the bytes after the hello.
//   bit 0    framed mode: the rest is parts (fuzz::split), each a kind byte and a payload that
//            the harness seals into a frame - with the next data sequence unless the kind
//            byte's bit 7 is set - so inputs get past the checksum into the decoder; otherwise
//            the rest is the raw byte stream.
//   bit 1    small limits (table budget, depth, counts, frame size).
//   bits 2-5 read size 2^n bytes (1 .. 32 KiB).
//   bit 6    the hello offers every codec (zlib, zstd, lz4), so compressed frames - zlib bombs
//            included - reach the receiver's decompression if it accepts them.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "fuzz_support.hpp"
#include "proto/control.hpp"
#include "proto/frame.hpp"
#include "proto/json_writer.hpp"
#include "proto/receiver.hpp"

using namespace objwire;

namespace {

receiver::options options_for(std::uint8_t knob) {
    receiver::options o;
    o.sink = "fuzz";
    o.read_block = 64;
    if (knob & 2) {
        o.limits.table_budget = 256;
        o.limits.max_depth = 8;
        o.limits.max_string_bytes = 64;
        o.limits.max_elements = 16;
        o.limits.max_frame_bytes = 4096;
    }
    return o;
}

byte_buffer stream_for(std::uint8_t knob, std::span<const std::uint8_t> rest) {
    byte_buffer stream;
    byte_buffer payload;
    hello h;
    h.client_name = "fuzz";
    if (knob & 0x40) h.codecs = 0x1F;
    encode_hello(h, payload);
    append_frame(stream, frame_kind::hello, 0, payload.span());
    if (!(knob & 1)) {
        stream.append(rest);
        return stream;
    }
    std::uint64_t next_sequence = 1;
    for (auto part : fuzz::split(rest)) {
        if (part.empty()) continue;
        const auto kind = static_cast<frame_kind>(part[0] & 0x7F);
        std::uint64_t sequence = 0;
        if (kind == frame_kind::data)
            sequence = (part[0] & 0x80) ? next_sequence + 1 : next_sequence++;
        append_frame(stream, kind, sequence, part.subspan(1));
    }
    return stream;
}

// The receiver's replies, parsed as the sender would.
void check_replies(std::span<const std::uint8_t> out, const receiver& r) {
    frame_parser parser(1u << 30);
    std::uint64_t last_ack = 0;
    bool welcomed = false;
    bool ended = false;  // an error frame or a goodbye: nothing may follow
    for (std::size_t pos = 0; pos < out.size();) {
        auto p = parser.parse(out.subspan(pos));
        FUZZ_CHECK(p.state == frame_parser::status::frame);
        FUZZ_CHECK(!ended);
        const auto& f = p.frame;
        switch (f.header.kind) {
            case frame_kind::welcome:
                FUZZ_CHECK(!welcomed);
                FUZZ_CHECK(decode_welcome(f.payload).has_value());
                welcomed = true;
                break;
            case frame_kind::ack: {
                FUZZ_CHECK(welcomed);
                auto a = decode_ack(f.payload);
                FUZZ_CHECK(a.has_value());
                FUZZ_CHECK(a->sequence > last_ack && a->sequence <= r.frames());
                last_ack = a->sequence;
                break;
            }
            case frame_kind::error: {
                auto e = decode_error(f.payload);
                FUZZ_CHECK(e.has_value());
                FUZZ_CHECK(r.current() == receiver::state::failed);
                FUZZ_CHECK(static_cast<int>(e->code) == r.error().value());
                ended = true;
                break;
            }
            case frame_kind::goodbye:
                FUZZ_CHECK(r.current() == receiver::state::finished);
                ended = true;
                break;
            default:
                fuzz::invariant_failed("the receiver sent a frame kind it should not", __FILE__,
                                       __LINE__);
        }
        pos += p.size;
    }
    FUZZ_CHECK(welcomed);
    FUZZ_CHECK(last_ack == r.frames());  // everything taken in is acknowledged
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const std::uint8_t knob = data[0];
    const byte_buffer stream = stream_for(knob, {data + 1, size - 1});
    const std::size_t read_size = std::size_t{1} << ((knob >> 2) % 16);

    receiver r(options_for(knob));
    std::uint64_t delivered = 0;
    std::string json;
    auto deliver = [&](message&& m) {
        ++delivered;
        json.clear();
        append_json(m, json);
    };
    std::vector<std::uint8_t> replies;
    auto step = receiver::step::read;
    for (std::size_t fed = 0; fed < stream.size() && step == receiver::step::read;) {
        auto space = r.prepare();
        FUZZ_CHECK(!space.empty());
        const std::size_t n = std::min({space.size(), read_size, stream.size() - fed});
        std::memcpy(space.data(), stream.data() + fed, n);
        r.commit(n);
        fed += n;
        step = r.process(deliver);
        r.acknowledge();
        replies.insert(replies.end(), r.output().data(), r.output().data() + r.output().size());
        r.output().clear();
    }
    if (step == receiver::step::close) {
        FUZZ_CHECK(r.current() == receiver::state::finished ||
                   r.current() == receiver::state::failed);
        FUZZ_CHECK(r.current() != receiver::state::failed || r.error());
        // Closed stays closed and delivers nothing more.
        const auto before = delivered;
        FUZZ_CHECK(r.process(deliver) == receiver::step::close);
        FUZZ_CHECK(delivered == before);
    } else {
        FUZZ_CHECK(r.current() == receiver::state::streaming);
    }
    // Messages are delivered as they decode: only a frame that failed part-way delivered
    // messages the receiver does not count (its driver drops them).
    FUZZ_CHECK(delivered == r.messages() ||
               (r.current() == receiver::state::failed && delivered > r.messages()));
    check_replies(replies, r);
    return 0;
}
