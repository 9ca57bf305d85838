// The sender and receiver state machines talking to each other through memory: the whole
// protocol - handshake, batching, acks, goodbye, refusals - with no socket.
#include <gtest/gtest.h>

#include <algorithm>
#include <span>

#include "proto/columns.hpp"
#include "proto/frame.hpp"
#include "proto/receiver.hpp"
#include "proto/sender.hpp"
#include "proto/wire.hpp"
#include "test_support.hpp"

namespace objwire {
namespace {

using test::person;

// Moves bytes between the two ends until neither has anything to say.
struct link {
    sender& s;
    receiver& r;
    std::vector<message> stored;
    std::size_t chunk = 1 << 20;  // bytes per "read", to exercise partial frames

    void pump() {
        for (int round = 0; round < 100000; ++round) {
            bool moved = false;
            if (!s.output().empty()) {
                test::deliver(s, r, stored, chunk);
                moved = true;
            }
            r.acknowledge();  // also what was delivered without a pump (nothing if nothing new)
            auto& back = r.output();
            if (!back.empty()) {
                auto space = s.prepare();
                ASSERT_GE(space.size(), back.size());
                std::copy_n(back.data(), back.size(), space.data());
                s.commit(back.size());
                back.clear();
                s.process();
                moved = true;
            }
            if (!moved) return;
        }
    }
};

sender::options sender_opts(std::uint32_t batch = 1024) {
    sender::options o;
    o.greeting.client_name = "test";
    o.batch_max_bytes = batch;
    return o;
}

receiver::options receiver_opts(std::uint64_t credit = 0) {
    receiver::options o;
    o.sink = "memory";
    o.credit_bytes = credit;  // 0: announces none, as receivers before welcome field 11
    return o;
}

TEST(Session, HandshakeBatchesAcksAndGoodbye) {
    sender s(sender_opts());
    receiver r(receiver_opts());
    link l{s, r, {}};
    l.pump();
    ASSERT_EQ(s.current(), sender::state::streaming);
    EXPECT_EQ(s.peer().sink, "memory");
    std::vector<message> sent;
    for (int i = 0; i < 5000; ++i) {
        sent.push_back(person(i));
        ASSERT_FALSE(s.add(sent.back()));
        if (i % 700 == 0) l.pump();
    }
    s.finish();
    l.pump();
    EXPECT_EQ(s.current(), sender::state::closed);
    EXPECT_EQ(r.current(), receiver::state::finished);
    EXPECT_EQ(l.stored, sent);
    EXPECT_TRUE(s.all_acked());
    EXPECT_EQ(s.last_ack().objects, 5000u);
    EXPECT_EQ(s.last_ack().sequence, s.frames_sent());
    EXPECT_GT(s.frames_sent(), 15u);  // 1 KiB batches of 4-byte objects
    EXPECT_EQ(s.in_flight_bytes(), 0u);
}

TEST(Session, AReceiverGivesItsBuffersBackWhenAnotherPartTakesTheConnection) {
    auto opts = receiver_opts();
    opts.read_block = 256 * 1024;
    sender s(sender_opts());
    receiver r(opts);
    link l{s, r, {}};
    l.pump();
    ASSERT_EQ(r.current(), receiver::state::streaming);
    EXPECT_GE(r.buffer_bytes(), opts.read_block);
    r.release_buffers();
    EXPECT_EQ(r.buffer_bytes(), 0u);
    EXPECT_EQ(r.buffered(), 0u);
}

TEST(Session, SplitDeliveryYieldsTheSameMessages) {
    for (std::size_t chunk : {1u, 7u, 24u, 25u, 4096u}) {
        sender s(sender_opts(256));
        receiver r(receiver_opts());
        link l{s, r, {}, chunk};
        l.pump();
        std::vector<message> sent;
        for (int i = 0; i < 300; ++i) {
            sent.push_back(person(i * 1000));
            ASSERT_FALSE(s.add(sent.back()));
        }
        s.finish();
        l.pump();
        EXPECT_EQ(l.stored, sent) << "chunk " << chunk;
        EXPECT_EQ(s.current(), sender::state::closed);
    }
}

TEST(Session, DataBeforeHelloIsRefused) {
    receiver r(receiver_opts());
    byte_buffer frame;
    append_frame(frame, frame_kind::data, 1, {});
    auto space = r.prepare();
    std::copy_n(frame.data(), frame.size(), space.data());
    r.commit(frame.size());
    EXPECT_EQ(r.process([](message&&) {}), receiver::step::close);
    EXPECT_EQ(r.error(), proto_errc::unexpected_frame);
    r.acknowledge();
    // The refusal travels as an error frame the sender understands.
    frame_parser p(1 << 20);
    auto parsed = p.parse(r.output().span());
    ASSERT_EQ(parsed.state, frame_parser::status::frame);
    EXPECT_EQ(parsed.frame.header.kind, frame_kind::error);
}

TEST(Session, OutOfOrderSequenceIsRefusedAndNothingOfTheFrameDelivered) {
    sender s(sender_opts());
    receiver r(receiver_opts());
    link l{s, r, {}};
    l.pump();
    byte_buffer payload;
    payload.resize(frame_header_size);
    stream_encoder enc({});
    ASSERT_FALSE(enc.encode(person(1), payload));
    seal_frame(payload.span(), frame_kind::data, 5);
    auto space = r.prepare();
    std::copy_n(payload.data(), payload.size(), space.data());
    r.commit(payload.size());
    std::size_t delivered = 0;
    EXPECT_EQ(r.process([&](message&&) { ++delivered; }), receiver::step::close);
    EXPECT_EQ(r.error(), proto_errc::bad_sequence);
    EXPECT_EQ(delivered, 0u);
    r.acknowledge();
    // The sender learns why.
    auto& back = r.output();
    auto sp = s.prepare();
    std::copy_n(back.data(), back.size(), sp.data());
    s.commit(back.size());
    EXPECT_EQ(s.process(), proto_errc::bad_sequence);
    EXPECT_NE(s.error_detail().find("expected 1, got 5"), std::string::npos);
}

// Messages are delivered as they decode, so a frame that fails part-way has delivered its
// first ones: the driver drops them, and the ack covers only the whole frames before it.
TEST(Session, AFrameThatFailsPartWayIsNotCountedOrAcknowledged) {
    sender s(sender_opts());
    receiver r(receiver_opts());
    link l{s, r, {}};
    l.pump();
    stream_encoder enc({});
    byte_buffer frames;
    for (std::uint64_t seq = 1; seq <= 2; ++seq) {
        byte_buffer f;
        f.resize(frame_header_size);
        ASSERT_FALSE(enc.encode(person(static_cast<int>(seq)), f));
        if (seq == 2) {  // a second message naming a string the table never had
            f.put_u8(wire::tag_string_ref);
            f.put_varint(100);
        }
        seal_frame(f.span(), frame_kind::data, seq);
        frames.append(f.span());
    }
    auto space = r.prepare();
    ASSERT_GE(space.size(), frames.size());
    std::copy_n(frames.data(), frames.size(), space.data());
    r.commit(frames.size());
    std::vector<message> delivered;
    EXPECT_EQ(r.process([&](message&& m) { delivered.push_back(m); }), receiver::step::close);
    EXPECT_EQ(r.error(), proto_errc::unknown_reference);
    ASSERT_EQ(delivered.size(), 2u);  // frame 1's message, and the failed frame's first
    EXPECT_EQ(delivered[1], person(2));
    EXPECT_EQ(r.frames(), 1u);  // only frame 1 counts as received
    r.acknowledge();
    frame_parser p(1 << 20);
    auto parsed = p.parse(r.output().span());
    ASSERT_EQ(parsed.state, frame_parser::status::frame);
    ASSERT_EQ(parsed.frame.header.kind, frame_kind::ack);
    EXPECT_EQ(decode_ack(parsed.frame.payload)->sequence, 1u);
    auto rest = r.output().span().subspan(parsed.size);
    auto error = p.parse(rest);
    ASSERT_EQ(error.state, frame_parser::status::frame);
    EXPECT_EQ(error.frame.header.kind, frame_kind::error);
}

TEST(Session, MessageLargerThanTheReceiverAcceptsIsRefusedLocally) {
    sender s(sender_opts());
    receiver::options ro = receiver_opts();
    ro.limits.max_frame_bytes = 4096;
    receiver r(ro);
    link l{s, r, {}};
    l.pump();
    ASSERT_FALSE(s.add(person(1)));
    EXPECT_EQ(s.add({std::string(5000, 'x'), {}}), proto_errc::message_too_large);
    ASSERT_FALSE(s.add(person(2)));
    s.finish();
    l.pump();
    EXPECT_EQ(l.stored, (std::vector<message>{person(1), person(2)}));
    EXPECT_EQ(s.current(), sender::state::closed);
}

// Adds `count` persons, writing after each add and letting acks back only every `ack_every`
// adds (the receiver keeps them until then).
void stream_with_late_acks(sender& s, link& l, std::vector<message>& sent, int count,
                           int ack_every) {
    for (int i = 0; i < count; ++i) {
        sent.push_back(person(i));
        EXPECT_FALSE(s.add(sent.back()));
        test::deliver(s, l.r, l.stored);
        if (i % ack_every == 0) l.pump();
    }
    s.finish();
    l.pump();
}

TEST(Session, TheReceiversCreditCapsTheSendWindow) {
    auto so = sender_opts(1024);
    so.max_in_flight = 1 << 20;
    sender s(so);
    receiver r(receiver_opts(4096));
    link l{s, r, {}};
    l.pump();
    ASSERT_EQ(s.peer().credit_bytes, 4096u);
    EXPECT_EQ(s.window_bytes(), 4096u);  // the smaller of the two
    std::vector<message> sent;
    stream_with_late_acks(s, l, sent, 20'000, 2'000);
    EXPECT_EQ(s.current(), sender::state::closed);
    EXPECT_EQ(l.stored, sent);
    EXPECT_LE(s.peak_unacked_bytes(), 4096u);
    EXPECT_GT(s.peak_unacked_bytes(), 2048u);  // acks came late: the window filled up
    EXPECT_TRUE(s.all_acked());
}

TEST(Session, AFrameLargerThanTheWindowGoesAloneOnceTheOthersAreAcknowledged) {
    auto so = sender_opts(4096);                    // frames of about 4 KiB
    so.compression.mode = compression_mode::never;  // persons would pack into far less
    sender s(so);
    receiver r(receiver_opts(1024));
    link l{s, r, {}};
    l.pump();
    std::vector<message> sent;
    for (int i = 0; i < 3000; ++i) {
        sent.push_back(person(i));
        ASSERT_FALSE(s.add(sent.back()));
    }
    s.seal();
    ASSERT_GE(s.frames_sent(), 2u);
    // One frame is offered; the next waits for its ack, however long.
    const std::size_t first = test::deliver(s, r, l.stored);
    EXPECT_GT(first, 1024u);
    EXPECT_LT(first, 4096u + 512u);
    EXPECT_TRUE(s.output().empty());
    EXPECT_TRUE(s.frames_waiting());
    EXPECT_EQ(test::deliver(s, r, l.stored), 0u);
    l.pump();  // the ack comes back: the rest goes, frame by frame
    s.finish();
    l.pump();
    EXPECT_EQ(l.stored, sent);
    EXPECT_LE(s.peak_unacked_bytes(), 4096u + 512u);
    EXPECT_EQ(s.current(), sender::state::closed);
}

// Bytes in flight between the ends: what the sender wrote, handed to the receiver later.
void feed(receiver& r, std::span<const std::uint8_t> bytes, std::vector<message>& stored) {
    test::feed(r, bytes, [&](message&& m) { stored.push_back(std::move(m)); });
}

// The credit of the ack a receiver just queued (field 7; 0: absent).
std::uint64_t queued_ack_credit(receiver& r) {
    r.acknowledge();
    auto& out = r.output();
    EXPECT_GT(out.size(), frame_header_size);
    auto a = decode_ack(out.span().subspan(frame_header_size));
    EXPECT_TRUE(a);
    return a ? a->credit : 0;
}

// Ack field 7: the receiver's share changed (other senders came), its next ack says so, and
// the sender's window follows for the frames it writes next; frames already written stay in
// flight until acknowledged.
TEST(Session, AnAcksCreditSizesTheWindowForTheFramesWrittenNext) {
    auto so = sender_opts(1024);
    so.compression.mode = compression_mode::never;
    so.max_in_flight = 1 << 20;
    sender s(so);
    receiver r(receiver_opts(16384));
    link l{s, r, {}};
    l.pump();
    ASSERT_EQ(s.window_bytes(), 16384u);
    std::vector<message> sent;
    for (int i = 0; i < 20'000 && !s.frames_waiting(); ++i) {
        sent.push_back(person(i));
        ASSERT_FALSE(s.add(sent.back()));
    }
    ASSERT_TRUE(s.frames_waiting());   // the welcome's window is full
    for (int i = 0; i < 3'000; ++i) {  // and a dozen frames wait behind it
        sent.push_back(person(i));
        ASSERT_FALSE(s.add(sent.back()));
    }
    const auto written = s.output();
    const std::vector<std::uint8_t> in_the_network(written.begin(), written.end());
    s.consume_output();
    EXPECT_GT(s.unacked_bytes(), 16384u - 1100u);
    EXPECT_LE(s.unacked_bytes(), 16384u);

    // Half the bytes arrive; the share shrinks to 4 KiB and the ack for them says so.
    const std::size_t half = in_the_network.size() / 2;
    feed(r, std::span(in_the_network).first(half), l.stored);
    r.set_credit(4096);
    test::answer(r, s);
    EXPECT_EQ(r.announced_credit(), 4096u);
    EXPECT_EQ(s.credit_bytes(), 4096u);
    EXPECT_EQ(s.window_bytes(), 4096u);
    // What was written and not acknowledged stays, above the new window: nothing new goes.
    EXPECT_GT(s.unacked_bytes(), 4096u);
    EXPECT_TRUE(s.output().empty());

    // The rest arrives and is acknowledged: new frames go within the new window only.
    feed(r, std::span(in_the_network).subspan(half), l.stored);
    test::answer(r, s);
    EXPECT_FALSE(s.output().empty());
    EXPECT_LE(s.unacked_bytes(), 4096u);
    EXPECT_GT(s.unacked_bytes(), 2048u);
    for (int i = 0; i < 5'000; ++i) {
        sent.push_back(person(i));
        ASSERT_FALSE(s.add(sent.back()));
        test::deliver(s, r, l.stored);
        EXPECT_LE(s.unacked_bytes(), 4096u) << i;
        if (i % 1'000 == 0) l.pump();
    }
    s.finish();
    l.pump();
    EXPECT_EQ(l.stored, sent);
    EXPECT_EQ(s.current(), sender::state::closed);

    // A larger share (senders left) grows the window again.
    sender grown(so);
    receiver r2(receiver_opts(4096));
    link l2{grown, r2, {}};
    l2.pump();
    ASSERT_FALSE(grown.add(person(1)));
    grown.seal();
    l2.pump();
    ASSERT_EQ(grown.window_bytes(), 4096u);
    r2.set_credit(32768);
    ASSERT_FALSE(grown.add(person(2)));
    grown.seal();
    l2.pump();
    EXPECT_EQ(grown.window_bytes(), 32768u);
}

// Only a change travels: the ack of a receiver whose share stayed has no field 7, so a
// connection whose share never changes sends the same bytes as before the field existed.
TEST(Session, AnAckCarriesTheCreditOnlyWhenItChanged) {
    sender s(sender_opts());
    receiver r(receiver_opts(8192));
    link l{s, r, {}};
    l.pump();
    const auto next_ack_credit = [&](int i, std::uint64_t share) {
        EXPECT_FALSE(s.add(person(i)));
        s.seal();
        test::deliver(s, r, l.stored);
        r.set_credit(share);
        const auto credit = queued_ack_credit(r);
        l.pump();
        return credit;
    };
    EXPECT_EQ(next_ack_credit(1, 8192), 0u);  // as welcomed
    EXPECT_EQ(next_ack_credit(2, 2048), 2048u);
    EXPECT_EQ(s.window_bytes(), 2048u);
    EXPECT_EQ(s.peer().credit_bytes, 8192u);  // the welcome as it came
    EXPECT_EQ(next_ack_credit(3, 2048), 0u);
    EXPECT_EQ(next_ack_credit(4, 0), 0u);  // 0: none to announce, the last one stands
    EXPECT_EQ(s.window_bytes(), 2048u);
    EXPECT_EQ(next_ack_credit(5, 8192), 8192u);
    EXPECT_EQ(s.window_bytes(), 8192u);
}

// A credit told before anything new is acknowledged (objwired's notice when other senders
// came): an ack of what was already acknowledged, carrying the credit - only while every frame
// delivered is acknowledged, and only when the credit changed.
TEST(Session, ACreditIsAnnouncedInAnAckOfWhatIsAlreadyAcknowledged) {
    sender s(sender_opts());
    receiver r(receiver_opts(65536));
    link l{s, r, {}};
    l.pump();
    r.announce_credit();
    EXPECT_TRUE(r.output().empty());  // nothing changed
    ASSERT_FALSE(s.add(person(1)));
    s.seal();
    l.pump();
    ASSERT_EQ(s.last_ack().sequence, 1u);
    r.set_credit(8192);
    r.announce_credit();
    ASSERT_FALSE(r.output().empty());
    l.pump();
    EXPECT_EQ(s.window_bytes(), 8192u);
    EXPECT_EQ(s.last_ack().sequence, 1u);  // the same frames acknowledged, no more
    EXPECT_EQ(s.last_ack().objects, 1u);
    EXPECT_EQ(s.current(), sender::state::streaming);
    r.announce_credit();
    EXPECT_TRUE(r.output().empty());  // told already
    // A frame delivered and not yet acknowledged: the credit waits for its ack.
    ASSERT_FALSE(s.add(person(2)));
    s.seal();
    test::deliver(s, r, l.stored);
    r.set_credit(4096);
    r.announce_credit();
    EXPECT_TRUE(r.output().empty());
    EXPECT_EQ(queued_ack_credit(r), 4096u);
    l.pump();
    EXPECT_EQ(s.window_bytes(), 4096u);
    EXPECT_EQ(s.last_ack().sequence, 2u);
    s.finish();
    l.pump();
    EXPECT_EQ(s.current(), sender::state::closed);
    EXPECT_EQ(l.stored, (std::vector<message>{person(1), person(2)}));
}

TEST(Session, AWelcomeWithoutCreditLeavesMaxInFlight) {
    auto so = sender_opts(1024);
    so.max_in_flight = 8192;
    sender s(so);
    receiver r(receiver_opts());  // no credit
    link l{s, r, {}};
    l.pump();
    EXPECT_EQ(s.peer().credit_bytes, 0u);
    EXPECT_EQ(s.window_bytes(), 8192u);
    std::vector<message> sent;
    stream_with_late_acks(s, l, sent, 20'000, 4'000);
    EXPECT_EQ(l.stored, sent);
    EXPECT_LE(s.peak_unacked_bytes(), 8192u);
    EXPECT_GT(s.peak_unacked_bytes(), 4096u);
}

// Frames as a receiver that stores them whole sees them: for each data frame, its payload,
// whether it was fresh and the messages it delivered.
struct seen_frame {
    std::vector<std::uint8_t> payload;
    bool fresh = false;
    std::vector<message> messages;
};

std::vector<seen_frame> frames_of(bool receiver_asks, int objects,
                                  compression_mode compress = compression_mode::never) {
    auto so = sender_opts(2048);
    so.compression.mode = compress;
    so.compression.codec = codec_id::zstd;  // zstd-stream when the receiver takes it
    sender s(so);
    auto ro = receiver_opts();
    ro.fresh_frames = receiver_asks;
    receiver r(ro);
    std::vector<seen_frame> seen;
    std::vector<message> pending;
    const auto move_bytes = [&] {
        const auto out = s.output();
        auto space = r.prepare();
        EXPECT_GE(space.size(), out.size());
        std::copy_n(out.data(), out.size(), space.data());
        r.commit(out.size());
        s.consume_output();
        r.process([&](message&& m) { pending.push_back(std::move(m)); },
                  [&](std::uint64_t n) {
                      EXPECT_EQ(n, pending.size());
                      const auto p = r.frame_payload();
                      seen.push_back({{p.begin(), p.end()}, r.frame_fresh(), std::move(pending)});
                      pending.clear();
                  });
        test::answer(r, s);
    };
    move_bytes();  // hello, welcome
    EXPECT_EQ(s.peer().fresh_frames, receiver_asks);
    for (int i = 0; i < objects; ++i) {
        EXPECT_FALSE(s.add(person(i * 7919)));
        move_bytes();
    }
    s.finish();
    move_bytes();
    return seen;
}

// A receiver that stores fresh frames as they came asks for them in its welcome; the sender
// then starts every frame from an empty table, and each payload decodes alone to exactly the
// messages the receiver's long-lived decoder delivered.
TEST(Session, AReceiverThatStoresFramesWholeGetsEveryFrameFresh) {
    const auto seen = frames_of(true, 3000);
    ASSERT_GT(seen.size(), 5u);
    for (const auto& f : seen) {
        EXPECT_TRUE(f.fresh);
        stream_decoder alone({});
        std::vector<message> got;
        ASSERT_FALSE(alone.decode_payload(f.payload, [&](message&& m) { got.push_back(m); }));
        EXPECT_EQ(got, f.messages);
    }
    // Without the request only the first frame starts fresh: the table carries across frames.
    const auto plain = frames_of(false, 3000);
    ASSERT_GT(plain.size(), 5u);
    EXPECT_TRUE(plain[0].fresh);
    EXPECT_EQ(std::count_if(plain.begin(), plain.end(), [](auto& f) { return f.fresh; }), 1);
}

// Compressing with a context across frames, the link is the slow part: the sender keeps its
// table (each frame defining it again would cost wire bytes) and writes its frames in column
// layout, which the receiver never stores whole - it re-encodes their objects.
TEST(Session, FramesCompressedAcrossFramesKeepTheirTable) {
    const auto seen = frames_of(true, 3000, compression_mode::always);
    ASSERT_GT(seen.size(), 5u);
    std::size_t messages = 0;
    for (const auto& f : seen) {
        EXPECT_TRUE(has_columns(f.payload));
        EXPECT_FALSE(f.fresh);
        messages += f.messages.size();
    }
    EXPECT_EQ(messages, 3000u);
}

}  // namespace
}  // namespace objwire
