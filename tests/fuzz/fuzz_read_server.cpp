// Fuzz target: the daemon's end of the reader protocol (proto/read_server.hpp), fed what a
// hostile reader sends after its hello, as daemon/roles drive it: a stream is served (a
// welcome, a block, the end) while the reader's bytes come in. Whatever the bytes: no crash;
// an ack is only reported for a cursor reader and never past the durable end; after the
// reader's goodbye or a violation nothing more is taken; a violation has a reason; what the
// server writes is a well-formed stream of frames with one goodbye or error frame at most
// before the confirming goodbye.
//
// Input: one knob byte, then the reader's bytes.
//   bit 0    framed mode: the rest is parts (fuzz::split), each a kind byte and a payload that
//            the harness seals into a frame; otherwise the rest is the raw byte stream.
//   bit 1    a cursor reader.
//   bits 2-5 read size 2^n bytes (1 .. 32 KiB).
//   bit 6    the stream ends (goodbye) before the reader's bytes come.
#include <algorithm>
#include <cstring>

#include "fuzz_support.hpp"
#include "proto/control.hpp"
#include "proto/frame.hpp"
#include "proto/read_server.hpp"

using namespace objwire;

namespace {

byte_buffer stream_for(std::uint8_t knob, std::span<const std::uint8_t> rest) {
    byte_buffer stream;
    if (!(knob & 1)) {
        stream.append(rest);
        return stream;
    }
    for (auto part : fuzz::split(rest)) {
        if (part.empty()) continue;
        append_frame(stream, static_cast<frame_kind>(part[0]), 0, part.subspan(1));
    }
    return stream;
}

constexpr std::uint64_t durable_end = 1000;

// Serves one block of one object at offset 0.
void serve(read_server& s) {
    s.welcome({});
    journal_block_writer w("fuzz");
    FUZZ_CHECK(!w.add(message{std::int64_t{7}, {}}));
    auto block = w.finish(1, 1, 0);
    seal_journal_block(block, 0);
    const auto parsed = parse_journal_block(block);
    FUZZ_CHECK(parsed.state == journal_block_parse::status::block);
    FUZZ_CHECK(s.add_block(parsed.block, block) == read_server::block_verdict::queued);
}

void check_output(std::span<const std::uint8_t> out) {
    frame_parser parser(1u << 30);
    int endings = 0;
    for (std::size_t pos = 0; pos < out.size();) {
        auto p = parser.parse(out.subspan(pos));
        FUZZ_CHECK(p.state == frame_parser::status::frame);
        const auto kind = p.frame.header.kind;
        FUZZ_CHECK(kind == frame_kind::welcome || kind == frame_kind::journal_block ||
                   kind == frame_kind::gap || kind == frame_kind::goodbye ||
                   kind == frame_kind::error);
        if (kind == frame_kind::goodbye || kind == frame_kind::error) ++endings;
        pos += p.size;
    }
    FUZZ_CHECK(endings <= 2);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const std::uint8_t knob = data[0];
    const byte_buffer stream = stream_for(knob, {data + 1, size - 1});
    const std::size_t read_size = std::size_t{1} << ((knob >> 2) % 16);

    hello h;
    h.role = peer_role::reader;
    if (knob & 2) h.read_cursor = "fuzz";
    read_server s(h);
    serve(s);
    if (knob & 0x40) s.end_stream();
    s.set_durable_end(durable_end);
    bool goodbye = false;
    bool violated = false;
    for (std::size_t fed = 0; fed < stream.size() && !goodbye && !violated;) {
        auto space = s.prepare();
        FUZZ_CHECK(!space.empty());
        const std::size_t n = std::min({space.size(), read_size, stream.size() - fed});
        std::memcpy(space.data(), stream.data() + fed, n);
        s.commit(n);
        fed += n;
        for (auto e = s.next_from_peer(); e != read_server::peer_event::need_more;
             e = s.next_from_peer()) {
            if (e == read_server::peer_event::ack) {
                FUZZ_CHECK(s.cursor_reader());
                FUZZ_CHECK(s.acked() <= durable_end);
                continue;
            }
            if (e == read_server::peer_event::goodbye) {
                goodbye = true;
                s.confirm_goodbye();
                FUZZ_CHECK(!s.cursor_reader() || s.current() == read_server::state::closed);
            } else {
                violated = true;
                FUZZ_CHECK(!s.violation().empty());
                s.fail(proto_errc::bad_message, "the reader sent " + s.violation());
            }
            break;
        }
    }
    if (violated) FUZZ_CHECK(s.next_from_peer() == read_server::peer_event::violation);
    if (goodbye) FUZZ_CHECK(s.next_from_peer() == read_server::peer_event::need_more);
    check_output(s.output().span());
    return 0;
}
