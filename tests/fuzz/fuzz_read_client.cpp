// Fuzz target: the reading end of the reader protocol (proto/read_client.hpp) and the block
// decoding a reader does with it (proto/block_objects.hpp), fed what a hostile daemon sends,
// as client/lib/reader.cpp drives them. Whatever the bytes: no crash; the first event is the
// welcome (or the answer to a cursor or sender-list request), every block handed out is verified
// and within max_block_objects, its objects decode within the limits or fail with a reason, offsets
// only grow (blocks and gaps), nothing comes after the end or a failure, and a failure has a
// reason.
//
// Input: one knob byte, then the daemon's bytes.
//   bit 0    framed mode: the rest is parts (fuzz::split), each a kind byte and a payload that
//            the harness seals into a frame - journal_block frames with the next sequence
//            unless the kind byte's bit 7 is set - after a welcome, so inputs get past the
//            frame checksum; otherwise the rest is the raw byte stream.
//   bit 1    small limits (frame size, objects per block, decoded bytes).
//   bit 2    a cursor reader (its stream ends twice: the end, then the confirmed goodbye).
//   bits 3-6 read size 2^n bytes (1 .. 32 KiB).
//   bit 7    a sender-list request: no welcome (framed mode seals the parts without one); a
//            list handed out has valid entries with ids ascending.
#include <algorithm>
#include <cstring>
#include <string>

#include "fuzz_support.hpp"
#include "proto/block_objects.hpp"
#include "proto/control.hpp"
#include "proto/frame.hpp"
#include "proto/read_client.hpp"

using namespace objwire;

namespace {

byte_buffer stream_for(std::uint8_t knob, std::span<const std::uint8_t> rest) {
    byte_buffer stream;
    if (!(knob & 1)) {
        stream.append(rest);
        return stream;
    }
    if (!(knob & 0x80)) {
        byte_buffer payload;
        welcome w;
        w.sink = "fuzz";
        encode_welcome(w, payload);
        append_frame(stream, frame_kind::welcome, 0, payload.span());
    }
    std::uint64_t next_sequence = 1;
    for (auto part : fuzz::split(rest)) {
        if (part.empty()) continue;
        const auto kind = static_cast<frame_kind>(part[0] & 0x7F);
        std::uint64_t sequence = 0;
        if (kind == frame_kind::journal_block)
            sequence = (part[0] & 0x80) ? next_sequence + 1 : next_sequence++;
        append_frame(stream, kind, sequence, part.subspan(1));
    }
    return stream;
}

read_client::options options_for(std::uint8_t knob) {
    read_client::options o;
    o.greeting.client_name = "fuzz";
    if (knob & 4) o.greeting.read_cursor = "fuzz";
    if (knob & 0x80) o.greeting.request = read_request::list_senders;
    o.read_block = 64;
    if (knob & 2) {
        o.max_frame_bytes = 4096;
        o.max_block_objects = 16;
    }
    return o;
}

decoder_limits limits_for(std::uint8_t knob) {
    auto l = journal_block_limits();
    if (knob & 2) l.max_reference_bytes = 4096;
    return l;
}

// Decodes every object of the block the client handed out, as the library's reader does.
void decode_block(const read_client& c, std::uint8_t knob, std::string& out) {
    const auto& b = c.block();
    FUZZ_CHECK(b.header.message_count <= c.settings().max_block_objects);
    FUZZ_CHECK(b.header.message_count > 0);
    block_objects objects(limits_for(knob));
    if (auto ec = objects.open(b)) {
        FUZZ_CHECK(!objects.error_detail().empty());
        return;
    }
    message m;
    std::uint64_t offset = 0;
    std::uint64_t expected = b.header.first_offset;
    for (bool got = true; got;) {
        if (objects.next(m, offset, got)) {
            FUZZ_CHECK(!objects.error_detail().empty());
            return;
        }
        if (got) FUZZ_CHECK(offset == expected++);
        if (got) out += 'o';
    }
    FUZZ_CHECK(objects.left() == 0);
    FUZZ_CHECK(expected == b.end_offset());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const std::uint8_t knob = data[0];
    const byte_buffer stream = stream_for(knob, {data + 1, size - 1});
    const std::size_t read_size = std::size_t{1} << ((knob >> 3) % 16);

    read_client c(options_for(knob));
    FUZZ_CHECK(!c.output().empty());  // the hello
    c.output().clear();
    bool welcomed = false;
    bool over = false;
    std::uint64_t served_end = 0;
    std::string seen;
    int ends = 0;
    for (std::size_t fed = 0; fed < stream.size() && !over;) {
        auto space = c.prepare();
        FUZZ_CHECK(!space.empty());
        const std::size_t n = std::min({space.size(), read_size, stream.size() - fed});
        std::memcpy(space.data(), stream.data() + fed, n);
        c.commit(n);
        fed += n;
        for (auto e = c.next(); e != read_client::event::need_more && !over; e = c.next()) {
            switch (e) {
                case read_client::event::welcome:
                    FUZZ_CHECK(!welcomed);
                    welcomed = true;
                    break;
                case read_client::event::block:
                    FUZZ_CHECK(welcomed);
                    FUZZ_CHECK(c.offsets_are_blocks() ||
                               c.block().header.first_offset >= served_end);
                    served_end = c.block().end_offset();
                    decode_block(c, knob, seen);
                    break;
                case read_client::event::gap:
                    FUZZ_CHECK(welcomed);
                    FUZZ_CHECK(c.gap().first < c.gap().end);
                    FUZZ_CHECK(c.offsets_are_blocks() || c.gap().first >= served_end);
                    served_end = c.gap().end;
                    break;
                case read_client::event::cursor_list:
                    FUZZ_CHECK(!welcomed);
                    over = true;
                    break;
                case read_client::event::sender_list: {
                    FUZZ_CHECK(!welcomed && (knob & 0x80));
                    const auto& l = c.senders().senders;
                    for (std::size_t i = 0; i < l.size(); ++i) {
                        FUZZ_CHECK(l[i].objects > 0 && l[i].first_offset <= l[i].last_offset);
                        FUZZ_CHECK(i == 0 || l[i - 1].id < l[i].id);
                    }
                    FUZZ_CHECK(c.current() == read_client::state::finished);
                    over = true;
                    break;
                }
                case read_client::event::end:
                    ++ends;
                    // A cursor reader acknowledges and says goodbye; its second end is final.
                    if (c.current() == read_client::state::stream_ended) {
                        c.ack(served_end);
                        c.goodbye();
                        FUZZ_CHECK(c.current() == read_client::state::closing);
                    } else {
                        FUZZ_CHECK(c.current() == read_client::state::finished);
                        over = true;
                    }
                    break;
                case read_client::event::failed:
                    FUZZ_CHECK(c.current() == read_client::state::failed);
                    FUZZ_CHECK(c.error() && !c.error_detail().empty());
                    over = true;
                    break;
                case read_client::event::need_more:
                    break;
            }
        }
    }
    FUZZ_CHECK(ends <= 2);
    if (over && c.current() == read_client::state::failed)
        FUZZ_CHECK(c.next() == read_client::event::failed);
    if (over && c.current() == read_client::state::finished)
        FUZZ_CHECK(c.next() == read_client::event::end);
    return 0;
}
