// Bad input sent to a running daemon: each case gets its own error and a log line naming the
// peer and the reason, that connection closes, and a good client sending at the same time
// is unaffected.
#include <gtest/gtest.h>

#include <asio.hpp>

#include <objwire/connection.hpp>
#include "bad_peer.hpp"
#include "client/workloads/workloads.hpp"
#include "proto/control.hpp"
#include "proto/encoder.hpp"
#include "proto/errors.hpp"
#include "proto/frame.hpp"
#include "proto/wire.hpp"

namespace objwire::test {
namespace {

byte_buffer person_frame(std::uint64_t sequence) {
    byte_buffer frame;
    frame.resize(frame_header_size);
    stream_encoder enc({});
    message m{make_record(make_record_type("Person", {"firstName", "surname", "age"}),
                          {"Heinz", "Kabutz", 1}),
              {}};
    EXPECT_FALSE(enc.encode(m, frame));
    seal_frame(frame.span(), frame_kind::data, sequence);
    return frame;
}

class BadInput : public bad_input_fixture {
  protected:
    // Sends a good frame 1 and a frame 2 with a reserved tag in one write: frame 1 is
    // acknowledged and stored, frame 2 refused, and nothing of frame 2 is stored.
    void expect_first_stored_then_refused(raw_peer& p, const byte_buffer& good,
                                          const byte_buffer& bad) {
        byte_buffer both;
        both.append(good.span());
        both.append(bad.span());
        p.send(both.span());
        auto ack_frame = p.read_frame();
        ASSERT_EQ(ack_frame.header.kind, frame_kind::ack);
        EXPECT_EQ(decode_ack(ack_frame.payload)->sequence, 1u);
        EXPECT_EQ(p.error_then_close(), proto_errc::unknown_tag);
        stop();
        EXPECT_EQ(stored().size(), 1u);
    }
};

TEST_F(BadInput, CorruptedChecksum) {
    start();
    with_good_client([&] {
        raw_peer p(port());
        auto frame = person_frame(1);
        frame.data()[frame.size() - 1] ^= 0x01;
        p.send(frame.span());
        EXPECT_EQ(p.error_then_close(), proto_errc::bad_checksum);
        expect_logged(p.name(), "closing connection: frame checksum mismatch");
    });
}

TEST_F(BadInput, OversizedFrame) {
    start();
    with_good_client([&] {
        raw_peer p(port());
        byte_buffer header;
        header.resize(frame_header_size);
        seal_frame(header.span(), frame_kind::data, 1);
        store_le<std::uint32_t>(header.data() + 4, settings_.max_frame_bytes + 1);  // claims more
        store_le<std::uint32_t>(header.data() + 16, settings_.max_frame_bytes + 1);
        p.send(header.span());
        EXPECT_EQ(p.error_then_close(), proto_errc::frame_too_large);
        expect_logged(p.name(), "closing connection: frame larger than the agreed maximum");
    });
}

TEST_F(BadInput, UnknownTag) {
    start();
    with_good_client([&] {
        raw_peer p(port());
        const std::uint8_t payload[] = {0x17};  // a reserved tag
        byte_buffer frame;
        append_frame(frame, frame_kind::data, 1, payload);
        p.send(frame.span());
        EXPECT_EQ(p.error_then_close(), proto_errc::unknown_tag);
        expect_logged(p.name(), "closing connection: unknown value tag");
    });
}

TEST_F(BadInput, TruncatedFrameThenClose) {
    start();
    with_good_client([&] {
        raw_peer p(port());
        auto frame = person_frame(1);
        p.send(frame.span().first(frame.size() / 2));
        p.close_sending();
        EXPECT_EQ(p.error_then_close(), std::nullopt);  // closed, nothing acknowledged
        expect_logged(p.name(), "connection closed mid-frame");
    });
}

TEST_F(BadInput, GoodFramesBeforeABadOneAreStoredAndAcked) {
    start();
    raw_peer p(port());
    auto good = person_frame(1);
    const std::uint8_t payload[] = {0x17};  // a reserved tag
    byte_buffer bad;
    append_frame(bad, frame_kind::data, 2, payload);
    expect_first_stored_then_refused(p, good, bad);
}

// Objects are stored as they decode: a frame whose second object is bad has its first one in
// the open batch already, and it must go with the frame (the sender will resend the frame).
TEST_F(BadInput, AFrameThatFailsPartWayStoresNothingOfItself) {
    start();
    raw_peer p(port());
    auto good = person_frame(1);
    byte_buffer half_good;
    half_good.resize(frame_header_size);
    stream_encoder enc({});  // the receiver's table starts afresh for this connection, too
    message m{make_record(make_record_type("Person", {"firstName", "surname", "age"}),
                          {"Heinz", "Kabutz", 2}),
              {}};
    ASSERT_FALSE(enc.encode(m, half_good));  // a good object, then a reserved tag
    half_good.put_u8(0x17);
    seal_frame(half_good.span(), frame_kind::data, 2);
    expect_first_stored_then_refused(p, good, half_good);
}

}  // namespace
}  // namespace objwire::test
