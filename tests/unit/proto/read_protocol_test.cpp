// The reader protocol's two ends (proto/read_client.hpp, proto/read_server.hpp) talking
// through memory, a scripted transport: every byte stream split at every byte, an error frame
// or a flipped byte at every step, each rule a hostile daemon or reader could break.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "proto/block_objects.hpp"
#include "proto/errors.hpp"
#include "proto/frame.hpp"
#include "proto/read_client.hpp"
#include "proto/read_server.hpp"
#include "proto/wire.hpp"
#include "test_support.hpp"

namespace objwire {
namespace {

journal_block_view view_of(const byte_buffer& b) {
    auto p = parse_journal_block(b.span());
    if (p.state != journal_block_parse::status::block) throw std::runtime_error("parse");
    return p.block;
}

hello reader_hello() {
    hello h;
    h.client_name = "test";
    h.role = peer_role::reader;
    h.max_frame_bytes = 1 << 20;
    return h;
}

// What the daemon says to a plain reader: a welcome, blocks of two senders, a gap, the end.
byte_buffer scripted_stream(const hello& h = reader_hello()) {
    read_server s(h);
    welcome w;
    w.sink = "journal /tmp/x";
    w.journal_end_offset = 40;
    s.welcome(w);
    const auto a = test::stored_block("a", 0, 10);
    const auto b = test::stored_block("b", 10, 5);
    const auto c = test::stored_block("a", 25, 15);
    for (const auto* block : {&a, &b}) {
        EXPECT_NE(s.add_block(view_of(*block), block->span()),
                  read_server::block_verdict::too_large);
    }
    s.add_gap({15, 25});
    EXPECT_NE(s.add_block(view_of(c), c.span()), read_server::block_verdict::too_large);
    s.end_stream();
    byte_buffer out;
    out.append(s.output().span());
    return out;
}

// One event as a test compares them: its kind and what it carried.
struct seen {
    read_client::event kind;
    std::uint64_t first = 0;
    std::uint64_t end = 0;
    std::vector<message> objects;
    bool operator==(const seen&) const = default;
};

// Drains every event the client has for the bytes so far; the last is need_more, end or
// failed.
void drain(read_client& c, std::vector<seen>& out) {
    for (;;) {
        const auto e = c.next();
        seen s{e, 0, 0, {}};
        if (e == read_client::event::block) {
            s.first = c.block().header.first_offset;
            s.end = c.block().end_offset();
            block_objects objects(journal_block_limits());
            EXPECT_FALSE(objects.open(c.block()));
            message m;
            std::uint64_t offset = 0;
            bool got = true;
            while (got) {
                EXPECT_FALSE(objects.next(m, offset, got)) << objects.error_detail();
                if (got) s.objects.push_back(m);
            }
        } else if (e == read_client::event::gap) {
            s.first = c.gap().first;
            s.end = c.gap().end;
        }
        if (e == read_client::event::need_more && !out.empty() &&
            out.back().kind == read_client::event::need_more)
            return;
        out.push_back(s);
        if (e == read_client::event::need_more || e == read_client::event::end ||
            e == read_client::event::failed)
            return;
    }
}

// As a driver does: no more reading once the read ended or failed.
void feed(read_client& c, std::span<const std::uint8_t> bytes, std::vector<seen>& out) {
    const auto over = [&] {
        return !out.empty() && (out.back().kind == read_client::event::end ||
                                out.back().kind == read_client::event::failed);
    };
    while (!bytes.empty() && !over()) {
        auto space = c.prepare();
        const auto n = std::min(space.size(), bytes.size());
        std::copy_n(bytes.data(), n, space.data());
        c.commit(n);
        bytes = bytes.subspan(n);
        drain(c, out);
    }
}

// The events without the need_more ones a split adds.
std::vector<seen> meaningful(std::vector<seen> v) {
    std::erase_if(v, [](const seen& s) { return s.kind == read_client::event::need_more; });
    return v;
}

read_client::options client_opts(hello h = reader_hello()) {
    read_client::options o;
    o.greeting = std::move(h);
    o.max_frame_bytes = 1 << 20;
    o.read_block = 64;
    return o;
}

std::vector<seen> read_all(std::span<const std::uint8_t> stream, read_client& c) {
    std::vector<seen> out;
    feed(c, stream, out);
    return meaningful(out);
}

TEST(ReadProtocol, TheClientSeesWhatTheServerServed) {
    const auto stream = scripted_stream();
    read_client c(client_opts());
    // The hello asks as a reader, with the frame limit the client enforces.
    frame_parser p(1 << 20);
    auto hello_frame = p.parse(c.output().span());
    ASSERT_EQ(hello_frame.state, frame_parser::status::frame);
    auto h = decode_hello(hello_frame.frame.payload);
    ASSERT_TRUE(h);
    EXPECT_EQ(h->role, peer_role::reader);
    EXPECT_EQ(h->max_frame_bytes, 1u << 20);

    const auto events = read_all(stream.span(), c);
    ASSERT_EQ(events.size(), 6u);
    EXPECT_EQ(events[0].kind, read_client::event::welcome);
    EXPECT_EQ(events[1].kind, read_client::event::block);
    EXPECT_EQ(events[1].objects.size(), 10u);
    EXPECT_EQ(events[1].objects[3], test::person(3));
    EXPECT_EQ(events[2].first, 10u);
    EXPECT_EQ((events[3]), (seen{read_client::event::gap, 15, 25, {}}));
    EXPECT_EQ(events[4].first, 25u);
    EXPECT_EQ(events[4].objects.back(), test::person(39));
    EXPECT_EQ(events[5].kind, read_client::event::end);
    EXPECT_EQ(c.current(), read_client::state::finished);
    EXPECT_EQ(c.peer().journal_end_offset, 40u);
    EXPECT_EQ(c.wire_bytes_in(), stream.size());
}

TEST(ReadProtocol, EverySplitOfTheStreamGivesTheSameEvents) {
    const auto stream = scripted_stream();
    read_client whole(client_opts());
    const auto expected = read_all(stream.span(), whole);
    for (std::size_t cut = 0; cut <= stream.size(); ++cut) {
        read_client c(client_opts());
        std::vector<seen> got;
        feed(c, stream.span().subspan(0, cut), got);
        feed(c, stream.span().subspan(cut), got);
        ASSERT_EQ(meaningful(got), expected) << "split at byte " << cut;
    }
    read_client bytewise(client_opts());
    std::vector<seen> got;
    for (std::size_t i = 0; i < stream.size(); ++i)
        feed(bytewise, stream.span().subspan(i, 1), got);
    EXPECT_EQ(meaningful(got), expected);
}

// Where each frame of a stream begins.
std::vector<std::size_t> frame_starts(std::span<const std::uint8_t> stream) {
    std::vector<std::size_t> starts;
    frame_parser p(1u << 30);
    for (std::size_t pos = 0; pos < stream.size();) {
        starts.push_back(pos);
        pos += p.parse(stream.subspan(pos)).size;
    }
    return starts;
}

TEST(ReadProtocol, AnErrorFrameAtEveryStepEndsTheReadWithTheDaemonsReason) {
    const auto stream = scripted_stream();
    read_client whole(client_opts());
    const auto expected = read_all(stream.span(), whole);
    const auto starts = frame_starts(stream.span());
    for (std::size_t i = 0; i < starts.size(); ++i) {
        byte_buffer cut;
        cut.append(stream.span().subspan(0, starts[i]));
        byte_buffer payload;
        encode_error({static_cast<std::uint32_t>(proto_errc::not_available), "stopping"}, payload);
        append_frame(cut, frame_kind::error, 0, payload.span());
        read_client c(client_opts());
        const auto got = read_all(cut.span(), c);
        ASSERT_EQ(got.size(), i + 1) << "error at frame " << i;
        EXPECT_TRUE(std::equal(got.begin(), got.end() - 1, expected.begin()));
        EXPECT_EQ(got.back().kind, read_client::event::failed);
        EXPECT_TRUE(c.refused());
        EXPECT_EQ(c.error(), proto_errc::not_available);
        EXPECT_EQ(c.error_detail(),
                  i == 0 ? "refused: stopping" : "the daemon ended the stream: stopping");
    }
}

TEST(ReadProtocol, AFlippedByteAnywhereEndsTheReadAndNeverYieldsAWrongObject) {
    const auto stream = scripted_stream();
    read_client whole(client_opts());
    const auto expected = read_all(stream.span(), whole);
    for (std::size_t at = 0; at < stream.size(); ++at) {
        byte_buffer damaged;
        damaged.append(stream.span());
        damaged.data()[at] ^= 0x20;
        read_client c(client_opts());
        auto got = read_all(damaged.span(), c);
        // What came before the damaged frame, then a failure - or, with a length grown past
        // the bytes there are, still waiting for them.
        ASSERT_FALSE(got.empty() && c.current() == read_client::state::finished) << at;
        if (!got.empty() && got.back().kind == read_client::event::failed) {
            EXPECT_FALSE(c.refused()) << at;
            got.pop_back();
        } else {
            EXPECT_NE(c.current(), read_client::state::finished) << "byte " << at;
        }
        ASSERT_LT(got.size(), expected.size()) << "byte " << at;
        EXPECT_TRUE(std::equal(got.begin(), got.end(), expected.begin())) << "byte " << at;
    }
}

// A stream of one welcome, then `frames` sealed by hand.
byte_buffer welcomed(offset_unit unit = offset_unit::object) {
    byte_buffer out, payload;
    welcome w;
    w.sink = "journal /tmp/x";
    w.read_offsets = unit;
    encode_welcome(w, payload);
    append_frame(out, frame_kind::welcome, 0, payload.span());
    return out;
}

void append_block(byte_buffer& out, const byte_buffer& block, std::uint64_t sequence) {
    append_frame(out, frame_kind::journal_block, sequence, block.span());
}

void append_gap(byte_buffer& out, std::uint64_t first, std::uint64_t end) {
    byte_buffer payload;
    encode_read_gap({first, end}, payload);
    append_frame(out, frame_kind::gap, 0, payload.span());
}

// Reads `stream`; expects the read to fail with `ec` and a reason containing `words`.
void expect_failure(const byte_buffer& stream, std::error_code ec, const std::string& words,
                    read_client::options opts = client_opts()) {
    read_client c(std::move(opts));
    const auto got = read_all(stream.span(), c);
    ASSERT_FALSE(got.empty());
    EXPECT_EQ(got.back().kind, read_client::event::failed) << words;
    EXPECT_EQ(c.error(), ec) << c.error_detail();
    EXPECT_NE(c.error_detail().find(words), std::string::npos) << c.error_detail();
    EXPECT_FALSE(c.refused());
}

TEST(ReadProtocol, TheClientRefusesWhatABrokenDaemonServes) {
    const auto a = test::stored_block("a", 100, 3);
    {
        auto s = welcomed();
        append_block(s, a, 2);
        expect_failure(s, proto_errc::bad_sequence, "block frame 2 where 1 was due");
    }
    {
        auto s = welcomed();
        append_block(s, a, 1);
        append_block(s, test::stored_block("a", 101, 1), 2);
        expect_failure(s, proto_errc::bad_message, "offsets going backwards");
    }
    {
        auto s = welcomed();
        append_block(s, a, 1);
        append_gap(s, 50, 60);
        expect_failure(s, proto_errc::bad_message, "offsets going backwards: a gap");
    }
    {
        auto s = welcomed();
        std::uint8_t backwards[16] = {};
        store_le<std::uint64_t>(backwards, 9);
        store_le<std::uint64_t>(backwards + 8, 9);
        append_frame(s, frame_kind::gap, 0, backwards);
        expect_failure(s, proto_errc::bad_message, "malformed gap frame");
    }
    {
        auto s = welcomed();
        byte_buffer torn;
        torn.append(a.span().subspan(0, a.size() - 1));
        append_frame(s, frame_kind::journal_block, 1, torn.span());
        expect_failure(s, journal_errc::short_block, "bad stored block in frame 1");
    }
    {
        auto s = welcomed();
        append_frame(s, frame_kind::data, 1, {});
        expect_failure(s, proto_errc::unexpected_frame, "unexpected frame kind 3");
    }
    {
        byte_buffer s;
        append_frame(s, frame_kind::goodbye, 0, {});
        expect_failure(s, proto_errc::unexpected_frame, "did not answer the hello with a welcome");
    }
    {
        auto opts = client_opts();
        opts.max_block_objects = 2;
        auto s = welcomed();
        append_block(s, a, 1);
        expect_failure(s, proto_errc::too_many_elements, "read.max_block_objects", opts);
    }
    {
        auto opts = client_opts();
        opts.max_frame_bytes = 64;
        auto s = welcomed();
        append_block(s, a, 1);
        expect_failure(s, proto_errc::frame_too_large, "read.max_block_bytes", opts);
    }
}

read_client::options senders_opts() {
    auto h = reader_hello();
    h.request = read_request::list_senders;
    return client_opts(h);
}

// A sender list as objwired sends it: parts of `per_frame` entries, then a goodbye.
byte_buffer sender_list_stream(const sender_list& l, std::size_t per_frame) {
    byte_buffer s;
    for (std::size_t i = 0; i < l.senders.size(); i += per_frame) {
        sender_list part;
        for (std::size_t j = i; j < std::min(l.senders.size(), i + per_frame); ++j)
            part.senders.push_back(l.senders[j]);
        byte_buffer payload;
        encode_sender_list(part, payload);
        append_frame(s, frame_kind::sender_list, 0, payload.span());
    }
    append_frame(s, frame_kind::goodbye, 0, {});
    return s;
}

sender_list some_senders(int n) {
    sender_list l;
    for (int i = 0; i < n; ++i) {
        const auto k = static_cast<std::uint64_t>(i);
        l.senders.push_back({"sender-" + std::to_string(1000 + i), k + 1, k, 2 * k, 1000 + k});
    }
    return l;
}

TEST(ReadProtocol, ASenderListInPartsSplitAtEveryByteArrivesWhole) {
    const auto l = some_senders(7);
    const auto stream = sender_list_stream(l, 3);
    for (std::size_t cut = 0; cut <= stream.size(); ++cut) {
        read_client c(senders_opts());
        std::vector<seen> got;
        feed(c, stream.span().subspan(0, cut), got);
        feed(c, stream.span().subspan(cut), got);
        const auto events = meaningful(got);
        // The list, then (as after a cursor list) the end.
        ASSERT_EQ(events.size(), 2u) << "cut at " << cut;
        EXPECT_EQ(events[0].kind, read_client::event::sender_list) << "cut at " << cut;
        EXPECT_EQ(events[1].kind, read_client::event::end) << "cut at " << cut;
        EXPECT_EQ(c.senders(), l) << "cut at " << cut;
        EXPECT_EQ(c.current(), read_client::state::finished);
    }
    // No sender at all: a goodbye alone.
    read_client c(senders_opts());
    const auto none = sender_list_stream({}, 3);
    EXPECT_EQ(read_all(none.span(), c).front().kind, read_client::event::sender_list);
    EXPECT_TRUE(c.senders().senders.empty());
}

TEST(ReadProtocol, TheClientRefusesASenderListABrokenDaemonSends) {
    auto twice = some_senders(4);
    twice.senders[3].id = twice.senders[1].id;
    expect_failure(sender_list_stream(twice, 2), proto_errc::bad_message,
                   "ids are not in ascending order", senders_opts());
    auto opts = senders_opts();
    opts.max_list_bytes = 200;
    expect_failure(sender_list_stream(some_senders(20), 2), proto_errc::frame_too_large,
                   "sender list is larger than this reader accepts (200 bytes)", opts);
    byte_buffer cursors;
    append_frame(cursors, frame_kind::cursor_list, 0, {});
    expect_failure(cursors, proto_errc::unexpected_frame, "did not answer the sender list request",
                   senders_opts());
    byte_buffer welcome_instead;
    append_frame(welcome_instead, frame_kind::welcome, 0, {});
    expect_failure(welcome_instead, proto_errc::unexpected_frame,
                   "did not answer the sender list request", senders_opts());
    // A refusal without a text still fails with a reason (fuzz_read_client found it empty).
    byte_buffer refusal, payload;
    encode_error({static_cast<std::uint32_t>(proto_errc::not_available), ""}, payload);
    append_frame(refusal, frame_kind::error, 0, payload.span());
    read_client refused(senders_opts());
    EXPECT_EQ(read_all(refusal.span(), refused).back().kind, read_client::event::failed);
    EXPECT_TRUE(refused.refused());
    EXPECT_EQ(refused.error(), proto_errc::not_available);
    EXPECT_EQ(refused.error_detail(), "no reason given");
    // A sender list to a cursor request is as wrong.
    auto h = reader_hello();
    h.request = read_request::list_cursors;
    expect_failure(sender_list_stream(some_senders(1), 1), proto_errc::unexpected_frame,
                   "did not answer the cursor request", client_opts(h));
}

TEST(ReadProtocol, ABlockLargerThanTheReaderAcceptsIsAnErrorFrameAfterTheBlocksBeforeIt) {
    auto h = reader_hello();
    const auto small = test::stored_block("a", 0, 1);
    const auto big = test::stored_block("a", 1, 400);
    h.max_frame_bytes = static_cast<std::uint32_t>(small.size() + frame_header_size);
    read_server s(h);
    s.welcome({});
    EXPECT_EQ(s.add_block(view_of(small), small.span()), read_server::block_verdict::queued);
    EXPECT_EQ(s.add_block(view_of(big), big.span()), read_server::block_verdict::too_large);
    EXPECT_EQ(s.current(), read_server::state::failed);
    // Nothing goes out after the error frame.
    const auto before = s.output().size();
    s.add_gap({5, 6});
    s.end_stream();
    EXPECT_EQ(s.output().size(), before);

    read_client c(client_opts(h));
    const auto got = read_all(s.output().span(), c);
    ASSERT_EQ(got.size(), 3u);
    EXPECT_EQ(got[1].first, 0u);
    EXPECT_EQ(c.error(), proto_errc::frame_too_large);
    EXPECT_TRUE(c.refused());
    EXPECT_NE(c.error_detail().find("over the reader's max_frame_bytes"), std::string::npos);
}

TEST(ReadProtocol, TheServerServesOnlyTheWantedSender) {
    auto h = reader_hello();
    h.read_sender = "b";
    const auto events = [&] {
        read_client c(client_opts(h));
        return read_all(scripted_stream(h).span(), c);
    }();
    ASSERT_EQ(events.size(), 4u);  // welcome, b's block, the gap, the end
    EXPECT_EQ(events[1].first, 10u);
    EXPECT_EQ(events[2].kind, read_client::event::gap);
    EXPECT_EQ(events[3].kind, read_client::event::end);
}

TEST(ReadProtocol, OffsetsInsideBlocksCountedAsBlocksAreNotCheckedForOrder) {
    auto s = welcomed(offset_unit::block);
    append_block(s, test::stored_block("a", 5, 1), 1);
    append_block(s, test::stored_block("b", 0, 1), 2);
    append_frame(s, frame_kind::goodbye, 0, {});
    read_client c(client_opts());
    const auto got = read_all(s.span(), c);
    EXPECT_TRUE(c.offsets_are_blocks());
    ASSERT_EQ(got.size(), 4u);
    EXPECT_EQ(got.back().kind, read_client::event::end);
}

// A cursor reader's whole exchange: both ends, the reader's frames split at every byte.
TEST(ReadProtocol, ACursorReaderAcksAndEndsTwiceSplitAtEveryByte) {
    auto h = reader_hello();
    h.read_cursor = "nightly";
    read_server s(h);
    s.welcome({});
    const auto a = test::stored_block("a", 0, 4);
    s.add_block(view_of(a), a.span());
    s.end_stream();
    EXPECT_EQ(s.current(), read_server::state::stream_ended);

    read_client c(client_opts(h));
    c.output().clear();  // the hello
    auto got = read_all(s.output().span(), c);
    s.output().clear();
    ASSERT_EQ(got.back().kind, read_client::event::end);
    EXPECT_EQ(c.current(), read_client::state::stream_ended);
    c.ack(4);
    c.goodbye();
    EXPECT_EQ(c.current(), read_client::state::closing);
    byte_buffer reply;
    reply.append(c.output().span());

    for (std::size_t cut = 0; cut <= reply.size(); ++cut) {
        read_server server(h);
        server.welcome({});
        server.set_durable_end(4);
        std::vector<read_server::peer_event> events;
        for (auto part : {reply.span().subspan(0, cut), reply.span().subspan(cut)}) {
            auto space = server.prepare();
            ASSERT_GE(space.size(), part.size());
            std::copy(part.begin(), part.end(), space.begin());
            server.commit(part.size());
            for (auto e = server.next_from_peer(); e != read_server::peer_event::need_more;
                 e = server.next_from_peer())
                events.push_back(e);
        }
        ASSERT_EQ(events,
                  (std::vector{read_server::peer_event::ack, read_server::peer_event::goodbye}))
            << "split at " << cut;
        EXPECT_EQ(server.acked(), 4u);
        server.confirm_goodbye();
        EXPECT_EQ(server.current(), read_server::state::closed);
    }
    // The daemon's confirmation ends the client's side; blocks in flight are passed over.
    byte_buffer confirm;
    append_block(confirm, test::stored_block("a", 4, 1), 2);
    append_frame(confirm, frame_kind::goodbye, 0, {});
    got = read_all(confirm.span(), c);
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0].kind, read_client::event::end);
    EXPECT_EQ(c.current(), read_client::state::finished);
}

// A cursor reader without follow that says goodbye before the stream's end: the daemon
// sends the end, then its answer, and the client finishes only on the answer - the one that
// says the name is free - whichever came first on the wire. A follower hears one goodbye.
TEST(ReadProtocol, AGoodbyeBeforeTheStreamsEndIsAnsweredAfterIt) {
    for (const bool follow : {false, true}) {
        auto h = reader_hello();
        h.read_cursor = "partway";
        h.follow = follow;
        read_server s(h);
        s.welcome({});
        const auto a = test::stored_block("a", 0, 4);
        s.add_block(view_of(a), a.span());
        read_client c(client_opts(h));
        c.output().clear();  // the hello
        auto got = read_all(s.output().span(), c);
        s.output().clear();
        ASSERT_EQ(got.back().kind, read_client::event::block);
        c.ack(2);
        c.goodbye();
        byte_buffer reply;
        reply.append(c.output().span());
        auto space = s.prepare();
        std::copy(reply.span().begin(), reply.span().end(), space.begin());
        s.commit(reply.size());
        s.set_durable_end(4);
        EXPECT_EQ(s.next_from_peer(), read_server::peer_event::ack);
        EXPECT_EQ(s.next_from_peer(), read_server::peer_event::goodbye);
        s.confirm_goodbye();
        EXPECT_EQ(s.current(), read_server::state::closed);
        // The answer alone is not yet the end: the client waits for more.
        byte_buffer first;
        append_frame(first, frame_kind::goodbye, 0, {});
        const auto answer = s.output().span();
        ASSERT_EQ(answer.size(), (follow ? 1 : 2) * first.size()) << "follow " << follow;
        got = read_all(answer.subspan(0, first.size()), c);
        if (!follow) {
            EXPECT_TRUE(got.empty() || got.back().kind != read_client::event::end);
            EXPECT_EQ(c.current(), read_client::state::closing);
            got = read_all(answer.subspan(first.size()), c);
        }
        ASSERT_FALSE(got.empty());
        EXPECT_EQ(got.back().kind, read_client::event::end);
        EXPECT_EQ(c.current(), read_client::state::finished);
    }
}

read_server::peer_event first_event(read_server& s, const byte_buffer& bytes) {
    auto space = s.prepare();
    const auto n = std::min(space.size(), bytes.size());
    std::copy_n(bytes.data(), n, space.data());
    s.commit(n);
    return s.next_from_peer();
}

TEST(ReadProtocol, TheServerEndsAReaderThatSendsAnythingElse) {
    auto cursor = reader_hello();
    cursor.read_cursor = "c";
    const auto ack_frame = [](std::uint64_t offset) {
        byte_buffer payload, frame;
        encode_read_ack({offset}, payload);
        append_frame(frame, frame_kind::ack, 0, payload.span());
        return frame;
    };
    {
        read_server s(cursor);
        s.set_durable_end(10);
        EXPECT_EQ(first_event(s, ack_frame(11)), read_server::peer_event::violation);
        EXPECT_NE(s.violation().find("past the durable end 10"), std::string::npos);
    }
    {
        read_server s(reader_hello());  // no cursor: acks mean nothing
        EXPECT_EQ(first_event(s, ack_frame(0)), read_server::peer_event::violation);
    }
    {
        read_server s(cursor);
        byte_buffer f;
        append_frame(f, frame_kind::data, 1, {});
        EXPECT_EQ(first_event(s, f), read_server::peer_event::violation);
        EXPECT_NE(s.violation().find("kind 3"), std::string::npos);
    }
    {
        read_server s(cursor);
        byte_buffer big;
        std::vector<std::uint8_t> payload(read_server::max_peer_frame + 1);
        append_frame(big, frame_kind::ack, 0, payload);
        EXPECT_EQ(first_event(s, big), read_server::peer_event::violation);
    }
    {
        read_server s(cursor);
        byte_buffer junk;
        const std::uint8_t bytes[frame_header_size] = {0xFF, 0xFF, 0xFF};
        junk.append(bytes);
        EXPECT_EQ(first_event(s, junk), read_server::peer_event::violation);
    }
    {
        read_server s(reader_hello());
        byte_buffer bye;
        append_frame(bye, frame_kind::goodbye, 0, {});
        EXPECT_EQ(first_event(s, bye), read_server::peer_event::goodbye);
        // A plain reader is not answered: its goodbye ends the stream.
        s.confirm_goodbye();
        EXPECT_TRUE(s.output().empty());
    }
}

TEST(ReadProtocol, BlockObjectsChecksTheCountBothWays) {
    // A block that announces more objects than its payload holds, and one with fewer.
    const auto block = test::stored_block("a", 0, 3);
    for (std::uint32_t announced : {2u, 4u}) {
        auto view = view_of(block);
        view.header.message_count = announced;
        block_objects objects(journal_block_limits());
        ASSERT_FALSE(objects.open(view));
        message m;
        std::uint64_t offset = 0;
        bool got = true;
        std::error_code ec;
        int n = 0;
        while (got && !ec) {
            ec = objects.next(m, offset, got);
            n += got && !ec;
        }
        EXPECT_EQ(ec, journal_errc::count_mismatch) << announced;
        EXPECT_NE(objects.error_detail().find(announced < 3 ? "more objects" : "fewer objects"),
                  std::string::npos)
            << objects.error_detail();
        // The object that meets the surplus is dropped with the error.
        EXPECT_EQ(n, announced < 3 ? 1 : 3);
    }
}

TEST(ReadProtocol, BlockObjectsNamesTheReadersDecodedBytesCap) {
    // One list: a 2,000-byte string, then three references to it.
    std::vector<std::uint8_t> payload{wire::tag_list, 4, wire::tag_string_new};
    byte_buffer length;
    length.put_varint(2000);
    payload.insert(payload.end(), length.data(), length.data() + length.size());
    payload.resize(payload.size() + 2000, 'a');
    payload.resize(payload.size() + 3, wire::short_string_ref);
    journal_block_writer w("a");
    ASSERT_FALSE(w.add_payload(payload, 1));
    auto span = w.finish(1, 1, 0);
    seal_journal_block(span, 0);
    auto parsed = parse_journal_block(span);
    ASSERT_EQ(parsed.state, journal_block_parse::status::block);
    auto limits = journal_block_limits();
    limits.max_reference_bytes = 1000;
    block_objects objects(limits);
    ASSERT_FALSE(objects.open(parsed.block));
    message m;
    std::uint64_t offset = 0;
    bool got = true;
    std::error_code ec;
    while (got && !ec)
        ec = objects.next(m, offset, got);
    EXPECT_EQ(ec, proto_errc::reference_bytes_exceeded);
    EXPECT_NE(objects.error_detail().find("read.max_decoded_bytes"), std::string::npos)
        << objects.error_detail();
}

// A block whose bytes go out from a shared buffer (a gathered write): its header then the
// block's bytes are byte for byte the frame add_block makes, numbered and counted the same, other
// senders' blocks passed over, a block over the reader's limit refused with the same error.
TEST(ReadProtocol, ABlockHeaderBeforeSharedBytesIsTheSameFrame) {
    const auto a = test::stored_block("a", 0, 10);
    const auto b = test::stored_block("b", 10, 5);
    const auto c = test::stored_block("a", 15, 7);
    auto h = reader_hello();
    h.read_sender = "a";
    read_server whole(h);
    read_server headers(h);
    for (auto* s : {&whole, &headers})
        s->welcome({});
    byte_buffer gathered;
    gathered.append(headers.output().span());
    for (const auto* block : {&a, &b, &c}) {
        const auto v = view_of(*block);
        const auto expect = whole.add_block(v, block->span());
        std::array<std::uint8_t, frame_header_size> header{};
        EXPECT_EQ(headers.add_block_header(v, sum_payload(block->span()), header), expect);
        if (expect != read_server::block_verdict::queued) continue;
        gathered.append(header);
        gathered.append(block->span());
    }
    EXPECT_EQ(
        std::vector<std::uint8_t>(gathered.span().begin(), gathered.span().end()),
        std::vector<std::uint8_t>(whole.output().span().begin(), whole.output().span().end()));
    EXPECT_EQ(headers.blocks(), 2u);
    EXPECT_EQ(headers.block_objects(), 17u);
    EXPECT_EQ(headers.block_bytes(), whole.block_bytes());

    h.max_frame_bytes = static_cast<std::uint32_t>(a.size());  // the header does not fit
    read_server small(h);
    small.welcome({});
    std::array<std::uint8_t, frame_header_size> header{};
    EXPECT_EQ(small.add_block_header(view_of(a), sum_payload(a.span()), header),
              read_server::block_verdict::too_large);
    EXPECT_NE(small.failure().find("offset 0"), std::string::npos) << small.failure();
}

}  // namespace
}  // namespace objwire
