#include <gtest/gtest.h>

#include <algorithm>

#include "proto/control.hpp"
#include "proto/errors.hpp"

namespace objwire {
namespace {

TEST(Control, HelloRoundTrips) {
    hello h;
    h.client_name = "objwire 0.1";
    h.sender_id = "s-1";
    h.max_frame_bytes = 12345;
    h.codecs = 3;
    byte_buffer b;
    encode_hello(h, b);
    auto back = decode_hello(b.span());
    ASSERT_TRUE(back);
    EXPECT_EQ(*back, h);
}

TEST(Control, ReaderHelloRoundTripsWithTokenAndRole) {
    hello h;
    h.auth_token = "s3cret";
    h.role = peer_role::reader;
    h.read_from = 1234567;
    h.follow = true;
    h.read_sender = "bench-7";
    byte_buffer b;
    encode_hello(h, b);
    auto back = decode_hello(b.span());
    ASSERT_TRUE(back);
    EXPECT_EQ(*back, h);
    // The defaults are not written: a plain sender's hello stays as short as before.
    byte_buffer plain;
    encode_hello(hello{}, plain);
    EXPECT_LT(plain.size(), b.size() - h.auth_token.size() - h.read_sender.size());
}

TEST(Control, HelloWithAnUnknownRoleIsRefused) {
    hello h;
    h.role = peer_role::stats;
    byte_buffer b;
    encode_hello(h, b);
    // The role is the last field written: its value byte is the hello's last byte.
    ASSERT_EQ(b.span().back(), static_cast<std::uint8_t>(peer_role::stats));
    b.span().back() = 9;
    EXPECT_EQ(decode_hello(b.span()).error(), proto_errc::bad_handshake);
}

TEST(Control, WelcomeRoundTripsWithLimits) {
    welcome w;
    w.server_name = "objwired";
    w.limits.table_budget = 65536;
    w.limits.max_depth = 9;
    w.limits.max_string_bytes = 77;
    w.limits.max_elements = 88;
    w.limits.max_frame_bytes = 99999;
    w.sink = "jsonl:/tmp/x.jsonl";
    w.next_sequence = 42;
    byte_buffer b;
    encode_welcome(w, b);
    auto back = decode_welcome(b.span());
    ASSERT_TRUE(back);
    EXPECT_EQ(*back, w);
}

TEST(Control, ReaderWelcomeCarriesJournalOffsets) {
    welcome w;
    w.sink = "journal:/data";
    w.journal_first_offset = 1000;
    w.journal_end_offset = 123456789;
    byte_buffer b;
    encode_welcome(w, b);
    auto back = decode_welcome(b.span());
    ASSERT_TRUE(back);
    EXPECT_EQ(back->journal_first_offset, 1000u);
    EXPECT_EQ(back->journal_end_offset, 123456789u);
    EXPECT_EQ(*back, w);
    w.journal_end_offset = 5;
    EXPECT_FALSE(*back == w);
}

TEST(Control, ReaderStartAndCursorFieldsRoundTrip) {
    hello h;
    h.role = peer_role::reader;
    h.read_at_end = true;
    h.read_last = 25;
    h.read_cursor = "etl.daily";
    h.request = read_request::delete_cursor;
    h.resume_token = "0123456789abcdef";  // field 11: the reader fields come after it
    byte_buffer b;
    encode_hello(h, b);
    auto back = decode_hello(b.span());
    ASSERT_TRUE(back);
    EXPECT_EQ(*back, h);
    // request is the last field written: a value past `set_cursor` is refused.
    ASSERT_EQ(b.span().back(), static_cast<std::uint8_t>(read_request::delete_cursor));
    b.span().back() = 4;
    ASSERT_TRUE(decode_hello(b.span()));
    EXPECT_EQ(decode_hello(b.span())->request, read_request::set_cursor);
    b.span().back() = 5;
    EXPECT_EQ(decode_hello(b.span()).error(), proto_errc::bad_handshake);

    hello since;
    since.role = peer_role::reader;
    since.read_since_ms = 1764583200123;  // field 16
    byte_buffer sb;
    encode_hello(since, sb);
    auto since_back = decode_hello(sb.span());
    ASSERT_TRUE(since_back);
    EXPECT_EQ(since_back->read_since_ms, 1764583200123u);

    welcome w;
    w.read_start = 987654;
    w.read_offsets = offset_unit::block;
    w.resume_token = "token";  // fields 16-18 and 20 side by side
    w.stored_objects = 5;
    w.stored_digest = 6;
    byte_buffer wb;
    encode_welcome(w, wb);
    auto wback = decode_welcome(wb.span());
    ASSERT_TRUE(wback);
    EXPECT_EQ(wback->read_start, 987654u);
    EXPECT_EQ(wback->read_offsets, offset_unit::block);
    EXPECT_EQ(*wback, w);
}

TEST(Control, ReadAckAndCursorListRoundTrip) {
    byte_buffer b;
    encode_read_ack({1ull << 40}, b);
    auto a = decode_read_ack(b.span());
    ASSERT_TRUE(a);
    EXPECT_EQ(a->next_offset, 1ull << 40);

    cursor_list l;
    l.cursors = {{"a", 0}, {"b-2", 77}, {"z", 1ull << 33}};
    byte_buffer lb;
    encode_cursor_list(l, lb);
    auto back = decode_cursor_list(lb.span());
    ASSERT_TRUE(back);
    EXPECT_EQ(*back, l);
    // An offset before any name is malformed.
    const std::uint8_t offset_first[] = {2, 1, 5};
    EXPECT_EQ(decode_cursor_list(offset_first).error(), proto_errc::bad_message);
    byte_buffer empty;
    encode_cursor_list({}, empty);
    ASSERT_TRUE(decode_cursor_list(empty.span()));
    EXPECT_TRUE(decode_cursor_list(empty.span())->cursors.empty());
}

TEST(Control, CursorNamesAreSafeFileNames) {
    EXPECT_TRUE(valid_cursor_name("etl"));
    EXPECT_TRUE(valid_cursor_name("A.b_c-9"));
    EXPECT_TRUE(valid_cursor_name(std::string(128, 'x')));
    EXPECT_FALSE(valid_cursor_name(""));
    EXPECT_FALSE(valid_cursor_name(std::string(129, 'x')));
    EXPECT_FALSE(valid_cursor_name(".hidden"));
    EXPECT_FALSE(valid_cursor_name("../etc"));
    EXPECT_FALSE(valid_cursor_name("a/b"));
    EXPECT_FALSE(valid_cursor_name("sp ace"));
}

TEST(Control, WelcomeAsksForFreshFramesWithField14) {
    welcome w;
    w.fresh_frames = true;
    byte_buffer b;
    encode_welcome(w, b);
    auto back = decode_welcome(b.span());
    ASSERT_TRUE(back);
    EXPECT_TRUE(back->fresh_frames);
    EXPECT_EQ(*back, w);
    // Absent (an older receiver, or one that re-encodes anyway): the sender need not reset.
    byte_buffer none;
    encode_welcome(welcome{}, none);
    EXPECT_EQ(none.size() + 3, b.size());  // key, length, the number 1
    auto old = decode_welcome(none.span());
    ASSERT_TRUE(old);
    EXPECT_FALSE(old->fresh_frames);
    EXPECT_FALSE(*old == w);
}

TEST(Control, WelcomeCarriesTheCreditAsField11) {
    welcome w;
    w.credit_bytes = 64u << 20;
    byte_buffer b;
    encode_welcome(w, b);
    auto back = decode_welcome(b.span());
    ASSERT_TRUE(back);
    EXPECT_EQ(back->credit_bytes, 64u << 20);
    EXPECT_EQ(*back, w);
    // Without a credit the field is not written, and a welcome without it (an older receiver)
    // decodes to 0: no explicit credit.
    byte_buffer none;
    encode_welcome(welcome{}, none);
    EXPECT_EQ(none.size() + 6, b.size());  // key, length and a 4-byte varint
    auto old = decode_welcome(none.span());
    ASSERT_TRUE(old);
    EXPECT_EQ(old->credit_bytes, 0u);
    w.credit_bytes = 1;
    EXPECT_FALSE(*back == w);
}

// Field 7: the connection's credit from now on. An ack without it (an older receiver, or a
// share that did not change) decodes to 0, "unchanged"; with it the bytes are the same ack's
// plus one trailing field, which an older sender skips as it skips every unknown field.
TEST(Control, AckCarriesTheCreditAsField7) {
    ack a{17, 1000, 300, 400, 0, 0, 256u << 10};
    byte_buffer b;
    encode_ack(a, b);
    auto back = decode_ack(b.span());
    ASSERT_TRUE(back);
    EXPECT_EQ(back->credit, 256u << 10);
    EXPECT_EQ(*back, a);

    ack plain = a;
    plain.credit = 0;
    byte_buffer none;
    encode_ack(plain, none);
    EXPECT_EQ(none.size() + 5, b.size());  // key, length and a 3-byte varint
    ASSERT_TRUE(std::equal(none.span().begin(), none.span().end(), b.span().begin()));
    auto old = decode_ack(none.span());
    ASSERT_TRUE(old);
    EXPECT_EQ(old->credit, 0u);
    EXPECT_EQ(*old, plain);
    EXPECT_FALSE(*old == a);
}

TEST(Control, AckAndErrorRoundTrip) {
    ack a{17, 1000, 300, 400};
    byte_buffer b;
    encode_ack(a, b);
    auto back = decode_ack(b.span());
    ASSERT_TRUE(back);
    EXPECT_EQ(*back, a);
    error_message e{static_cast<std::uint32_t>(proto_errc::bad_checksum), "checksum"};
    byte_buffer eb;
    encode_error(e, eb);
    auto eback = decode_error(eb.span());
    ASSERT_TRUE(eback);
    EXPECT_EQ(*eback, e);
}

// Every role reads an error frame through read_error_frame: a code of 0 (success, to the
// caller) or a frame that does not decode still fails, and the text always says something.
TEST(Control, AnErrorFrameAlwaysReadsAsAFailureWithAReason) {
    const auto read = [](const error_message& m) {
        byte_buffer b;
        encode_error(m, b);
        return read_error_frame(b.span());
    };
    const auto refused = read({static_cast<std::uint32_t>(proto_errc::sender_busy), "busy"});
    EXPECT_EQ(refused.code, proto_errc::sender_busy);
    EXPECT_EQ(refused.text, "busy");
    EXPECT_TRUE(refused.well_formed);

    const auto zero = read({0, "all fine?"});
    EXPECT_EQ(zero.code, proto_errc::bad_message);
    EXPECT_EQ(zero.text, "all fine?");

    const auto silent = read({static_cast<std::uint32_t>(proto_errc::not_available), ""});
    EXPECT_EQ(silent.code, proto_errc::not_available);
    EXPECT_EQ(silent.text, "no reason given");

    const std::uint8_t cut[] = {0x0a, 0x05, 'a'};  // field 1 as text, cut short
    const auto bad = read_error_frame(cut);
    EXPECT_EQ(bad.code, proto_errc::bad_message);
    EXPECT_EQ(bad.text, "malformed error frame");
    EXPECT_FALSE(bad.well_formed);
}

// A peer's reason is printed by clients and logged by daemons: its escape sequences, newlines
// and other control characters arrive escaped, never raw.
TEST(Control, AnErrorFramesTextHasItsControlCharactersEscaped) {
    byte_buffer b;
    encode_error({static_cast<std::uint32_t>(proto_errc::unauthorized),
                  "no\x1b[2J\x1b]0;owned\x07\nobjwire: all 10 objects acknowledged\r\\ \x7f\x01 é"},
                 b);
    const auto e = read_error_frame(b.span());
    EXPECT_EQ(e.code, proto_errc::unauthorized);
    EXPECT_EQ(e.text,
              "no\\x1b[2J\\x1b]0;owned\\x07\\x0aobjwire: all 10 objects acknowledged\\x0d\\x5c "
              "\\x7f\\x01 é");
    for (const char c : e.text)
        EXPECT_TRUE(static_cast<unsigned char>(c) >= 0x20 && c != 0x7f) << int(c);
}

// Ownership and reruns (docs/PROTOCOL.md 1.1): the token goes out in the welcome and comes
// back in a reconnect's hello; the stored count and digest ride in the welcome; a mark frame's
// payload is the digest.
TEST(Control, ResumeTokenStoredObjectsAndMarksRoundTrip) {
    hello h;
    h.sender_id = "s";
    h.resume_token = "0123456789abcdef0123456789abcdef";
    byte_buffer hb;
    encode_hello(h, hb);
    auto hback = decode_hello(hb.span());
    ASSERT_TRUE(hback);
    EXPECT_EQ(*hback, h);
    welcome w;
    w.resume_token = h.resume_token;
    w.stored_objects = 279'924;
    w.stored_digest = 0xfedcba9876543210ULL;
    byte_buffer wb;
    encode_welcome(w, wb);
    auto wback = decode_welcome(wb.span());
    ASSERT_TRUE(wback);
    EXPECT_EQ(*wback, w);
    EXPECT_EQ(wback->stored_objects, 279'924u);
    mark m{0x0123456789abcdefULL};
    byte_buffer mb;
    encode_mark(m, mb);
    auto mback = decode_mark(mb.span());
    ASSERT_TRUE(mback);
    EXPECT_EQ(*mback, m);
}

TEST(Control, UnknownFieldsAreSkipped) {
    byte_buffer b;
    encode_ack({5, 6, 7, 8}, b);
    b.put_varint(99);  // a field from a future version
    b.put_varint(3);
    b.append(std::string_view("abc"));
    auto back = decode_ack(b.span());
    ASSERT_TRUE(back);
    EXPECT_EQ(back->sequence, 5u);
}

TEST(Control, BadHandshakesAreRefused) {
    hello h;
    byte_buffer good;
    encode_hello(h, good);
    byte_buffer wrong_magic;
    wrong_magic.append(good.span());
    wrong_magic.data()[0] = 'X';
    EXPECT_EQ(decode_hello(wrong_magic.span()).error(), proto_errc::bad_magic);
    byte_buffer wrong_version;
    wrong_version.append(good.span());
    wrong_version.data()[4] = 9;
    EXPECT_EQ(decode_hello(wrong_version.span()).error(), proto_errc::unsupported_version);
    byte_buffer truncated;
    truncated.append(good.data(), good.size() - 1);
    EXPECT_EQ(decode_hello(truncated.span()).error(), proto_errc::truncated);
    EXPECT_EQ(decode_hello({}).error(), proto_errc::bad_magic);
}

}  // namespace
TEST(Control, SenderListRoundTripsAndAppendsPartByPart) {
    sender_list first{{{"", 2, 8, 9, 3000}, {"a", 4003, 5, 4019, 1700000000123}}};
    sender_list second{{{"b", 1, 7, 7, 1}}};
    byte_buffer one, two;
    encode_sender_list(first, one);
    encode_sender_list(second, two);
    sender_list back;
    ASSERT_EQ(decode_sender_list(one.span(), back), proto_errc::ok);
    ASSERT_EQ(decode_sender_list(two.span(), back), proto_errc::ok);
    ASSERT_EQ(back.senders.size(), 3u);
    EXPECT_EQ(back.senders[0], first.senders[0]);
    EXPECT_EQ(back.senders[1], first.senders[1]);
    EXPECT_EQ(back.senders[2], second.senders[0]);
    byte_buffer empty;
    encode_sender_list({}, empty);
    EXPECT_EQ(decode_sender_list(empty.span(), back), proto_errc::ok);
    EXPECT_EQ(back.senders.size(), 3u);
}

TEST(Control, SenderListRefusesEntriesThatCannotBe) {
    const auto refused = [](const sender_entry& e) {
        byte_buffer b;
        encode_sender_list({{e}}, b);
        sender_list l;
        return decode_sender_list(b.span(), l);
    };
    EXPECT_EQ(refused({"a", 0, 1, 1, 0}), proto_errc::bad_message);  // no objects
    EXPECT_EQ(refused({"a", 2, 9, 8, 0}), proto_errc::bad_message);  // first after last
    EXPECT_EQ(refused({"a", 2, 8, 9, 0}), proto_errc::ok);
    // A field of an entry before any entry's id.
    byte_buffer b;
    encode_sender_list({{{"a", 2, 8, 9, 0}}}, b);
    sender_list l;
    EXPECT_EQ(decode_sender_list(b.span().subspan(3), l), proto_errc::bad_message);
    // A later version's field, even before any id, is skipped (fuzz_read_client found this
    // one read an entry that did not exist yet).
    byte_buffer later;
    const std::uint8_t field_9[] = {9, 1, 1};  // key 9, length 1, value 1
    later.append(field_9);
    later.append(b.span());
    l.senders.clear();
    EXPECT_EQ(decode_sender_list(later.span(), l), proto_errc::ok);
    EXPECT_EQ(l.senders, (std::vector<sender_entry>{{"a", 2, 8, 9, 0}}));
}

TEST(Control, TheRelayPathIsOneField17PerRelayAndBounded) {
    hello h;
    h.sender_id = "app@edge";
    h.relay_path = {"10.0.0.1:7878#0a0b0c0d", "10.0.0.2:7878#01020304"};
    byte_buffer b;
    encode_hello(h, b);
    auto back = decode_hello(b.span());
    ASSERT_TRUE(back);
    EXPECT_EQ(back->relay_path, h.relay_path);

    // A hello without it (an older peer, a client) has passed no relay.
    hello plain;
    byte_buffer pb;
    encode_hello(plain, pb);
    ASSERT_TRUE(decode_hello(pb.span()));
    EXPECT_TRUE(decode_hello(pb.span())->relay_path.empty());

    hello longest;
    longest.relay_path.assign(max_relay_path, "r");
    byte_buffer lb;
    encode_hello(longest, lb);
    ASSERT_TRUE(decode_hello(lb.span()));
    longest.relay_path.push_back("one more");
    lb.clear();
    encode_hello(longest, lb);
    EXPECT_EQ(decode_hello(lb.span()).error(), proto_errc::too_many_elements);
}

}  // namespace objwire
