// stream_decoder::check_payload, the checking mode a receiver uses for frames stored whole:
// for valid payloads of every workload and for a bounded set of corrupted ones it must return
// what decode_payload returns (error, message count) and leave the table exactly as
// decode_payload leaves it, so the frames after it decode alike. And the receiver checks fresh
// frames instead of delivering them when its driver asks.
#include <gtest/gtest.h>

#include <algorithm>

#include "client/workloads/workloads.hpp"
#include "proto/columns.hpp"
#include "proto/frame.hpp"
#include "proto/journal_block.hpp"
#include "proto/wire.hpp"
#include "test_support.hpp"

namespace objwire {
namespace {

using bytes_t = std::vector<std::uint8_t>;

struct outcome {
    std::error_code error;
    std::uint64_t messages = 0;
    std::vector<message> decoded;  // build mode only
};

outcome build(stream_decoder& dec, const bytes_t& payload) {
    outcome o;
    o.error = dec.decode_payload(payload, [&](message&& m) { o.decoded.push_back(std::move(m)); });
    o.messages = o.decoded.size();
    return o;
}

outcome check(stream_decoder& dec, const bytes_t& payload) {
    outcome o;
    o.error = dec.check_payload(payload, o.messages);
    return o;
}

// The whole table account, not just its size: every use and insert is mirrored.
void expect_same_table(const stream_decoder& a, const stream_decoder& b) {
    const auto& x = a.table();
    const auto& y = b.table();
    EXPECT_EQ(x.bytes, y.bytes);
    EXPECT_EQ(x.entries, y.entries);
    EXPECT_EQ(x.peak_bytes, y.peak_bytes);
    EXPECT_EQ(x.hits, y.hits);
    EXPECT_EQ(x.misses, y.misses);
    EXPECT_EQ(x.inserts, y.inserts);
    EXPECT_EQ(x.evictions, y.evictions);
    EXPECT_EQ(x.resets, y.resets);
    EXPECT_EQ(a.reference_bytes(), b.reference_bytes());
    EXPECT_EQ(a.messages(), b.messages());
}

// `payload` through a copy of `built` in build mode and a copy in check mode; then `next`
// decoded (built) by both must come out the same. Returns the error of `payload`.
std::error_code expect_equivalent(const stream_decoder& before, const bytes_t& payload,
                                  const bytes_t& next) {
    stream_decoder built = before;
    stream_decoder checked = before;
    const auto b = build(built, payload);
    const auto c = check(checked, payload);
    EXPECT_EQ(b.error, c.error);
    // A frame that fails part-way delivered its first messages; a checked one counted them.
    EXPECT_EQ(b.messages, c.messages);
    expect_same_table(built, checked);
    const auto b2 = build(built, next);
    const auto c2 = build(checked, next);
    EXPECT_EQ(b2.error, c2.error);
    EXPECT_EQ(b2.decoded, c2.decoded);
    expect_same_table(built, checked);
    return b.error;
}

// A workload's messages, plus messages whose objects are defined, referenced and kept.
std::vector<message> messages_of(std::string_view workload, int n) {
    auto w = workloads::make(workload);
    std::vector<message> out(static_cast<std::size_t>(n));
    for (auto& m : out)
        w->next(m);
    return out;
}

std::vector<message> with_objects(int n) {
    std::vector<message> out;
    for (int i = 0; i < n; ++i) {
        const auto p = test::person(i % 3).root;
        // Two references to one object, and an object that refers to another (kept: the
        // first; the second holds a reference, so it travels every time).
        message a{list{object_ref{0}, object_ref{0}, object_ref{1}},
                  {p, list{object_ref{0}, "x", std::int64_t{i}}}};
        a.shared_keys = {std::uint64_t(10 + i % 3), 20};
        out.push_back(std::move(a));
        // A kept object defined once and referenced by id after, and one that is not kept.
        message b{map{{"k", object_ref{0}}, {"b", bytes{{1, 2, 3}}}, {"o", object_ref{1}}},
                  {test::person(i % 2).root, test::person(i).root}};
        b.shared_keys = {std::uint64_t(1 + i % 2), 0};
        out.push_back(std::move(b));
    }
    return out;
}

// Encodes `msgs` into payloads of about `frame_bytes` with one encoder, the table carried
// from payload to payload as a sender carries it.
std::vector<bytes_t> payloads(const std::vector<message>& msgs, std::size_t frame_bytes,
                              encoder_options opts = {}) {
    stream_encoder enc(opts);
    std::vector<bytes_t> out;
    byte_buffer buf;
    for (const auto& m : msgs) {
        EXPECT_FALSE(enc.encode(m, buf));
        if (buf.size() >= frame_bytes) {
            out.emplace_back(buf.data(), buf.data() + buf.size());
            buf.clear();
        }
    }
    if (!buf.empty()) out.emplace_back(buf.data(), buf.data() + buf.size());
    return out;
}

// A stream of payloads decoded in build mode and in check mode side by side (each frame also
// after the other mode's table): same errors, counts and tables throughout.
void expect_stream_equivalent(const std::vector<bytes_t>& frames, decoder_limits limits = {}) {
    stream_decoder dec(limits);
    for (std::size_t i = 0; i < frames.size(); ++i) {
        const bytes_t next = i + 1 < frames.size() ? frames[i + 1] : bytes_t{};
        const auto ec = expect_equivalent(dec, frames[i], next);
        build(dec, frames[i]);
        if (ec) return;  // poisoned: every later frame fails alike, tested above once
    }
}

TEST(Check, EveryWorkloadChecksAsItDecodes) {
    for (const auto name : workloads::names()) {
        SCOPED_TRACE(std::string(name));
        const auto frames = payloads(messages_of(name, 400), 300);
        ASSERT_GT(frames.size(), 2u);
        expect_stream_equivalent(frames);
        // A checked stream ends with the decoded stream's count of messages.
        stream_decoder checked({});
        std::uint64_t total = 0;
        for (const auto& f : frames) {
            std::uint64_t n = 0;
            ASSERT_FALSE(checked.check_payload(f, n));
            total += n;
        }
        EXPECT_EQ(total, 400u);
        EXPECT_EQ(checked.messages(), 400u);
    }
}

TEST(Check, ObjectsKeptObjectsLazyValuesAndResetsCheckAsTheyDecode) {
    auto msgs = with_objects(60);
    const auto blobs = messages_of("blobs", 40);
    msgs.insert(msgs.end(), blobs.begin(), blobs.end());
    encoder_options packed;
    packed.lazy.min_bytes = 64;  // blobs' big values travel as lazy values
    expect_stream_equivalent(payloads(msgs, 1024, packed));
    // Frames that start with a reset op, as fresh frames do.
    stream_encoder enc({});
    std::vector<bytes_t> fresh;
    for (int f = 0; f < 6; ++f) {
        byte_buffer buf;
        enc.reset(buf);
        for (int i = 0; i < 20; ++i)
            EXPECT_FALSE(enc.encode(msgs[static_cast<std::size_t>(f * 20 + i)], buf));
        fresh.emplace_back(buf.data(), buf.data() + buf.size());
    }
    expect_stream_equivalent(fresh);
}

// Limits well below what the payloads need: each limit's error comes from both modes alike.
TEST(Check, TightLimitsFailAlike) {
    auto msgs = messages_of("events", 200);
    const auto graph = messages_of("graph", 100);
    msgs.insert(msgs.end(), graph.begin(), graph.end());
    const auto more = with_objects(30);
    msgs.insert(msgs.end(), more.begin(), more.end());
    const auto frames = payloads(msgs, 2048);
    std::vector<decoder_limits> tight(6);
    tight[0].table_budget = 256;
    tight[1].max_depth = 2;
    tight[2].max_elements = 3;
    tight[3].max_string_bytes = 8;
    tight[4].max_reference_bytes = 64;
    tight[5].table_budget = 2048;  // evictions, then references to evicted entries
    for (std::size_t i = 0; i < tight.size(); ++i) {
        SCOPED_TRACE(i);
        expect_stream_equivalent(frames, tight[i]);
    }
}

// Every byte value at every position of small payloads, and every truncation: whatever the
// bytes say, check mode returns build mode's error and leaves build mode's table.
TEST(Check, CorruptedPayloadsFailAlike) {
    std::vector<std::vector<message>> sources;
    for (const auto name : workloads::names())
        sources.push_back(messages_of(name, 12));
    sources.push_back(with_objects(3));
    std::uint64_t failed = 0;
    std::uint64_t tried = 0;
    for (const auto& msgs : sources) {
        // A first frame fills the table; the second, corrupted, refers to it.
        const auto frames = payloads(msgs, 1);
        ASSERT_GE(frames.size(), 3u);
        stream_decoder before({});
        ASSERT_FALSE(build(before, frames[0]).error);
        bytes_t target = frames[1];
        if (target.size() > 160) target.resize(160);  // bounded: 160 * 256 variants at most
        const bytes_t& next = frames[2];
        for (std::size_t pos = 0; pos < target.size(); ++pos) {
            for (int v = 0; v < 256; ++v) {
                if (v == target[pos]) continue;
                bytes_t bad = target;
                bad[pos] = static_cast<std::uint8_t>(v);
                failed += expect_equivalent(before, bad, next) ? 1 : 0;
                ++tried;
                if (::testing::Test::HasFailure()) return;
            }
        }
        for (std::size_t len = 0; len < frames[1].size(); ++len) {
            const bytes_t cut(frames[1].begin(), frames[1].begin() + static_cast<long>(len));
            expect_equivalent(before, cut, next);
            if (::testing::Test::HasFailure()) return;
        }
    }
    // The set is not all trivially good or all refused before the first message.
    EXPECT_GT(failed, tried / 10);
    EXPECT_LT(failed, tried);
}

TEST(Check, ColumnPayloadsCheckAsTheyDecode) {
    auto msgs = messages_of("events", 200);
    const auto more = with_objects(20);
    msgs.insert(msgs.end(), more.begin(), more.end());
    stream_encoder enc({});
    std::vector<bytes_t> frames;
    for (std::size_t from = 0; from < msgs.size(); from += 37) {
        byte_buffer main;
        column_sections sections;
        for (std::size_t i = from; i < std::min(msgs.size(), from + 37); ++i)
            EXPECT_FALSE(enc.encode(msgs[i], main, sections));
        byte_buffer out;
        sections.write_payload(main.span(), out);
        frames.emplace_back(out.data(), out.data() + out.size());
    }
    ASSERT_TRUE(has_columns(frames[0]));
    expect_stream_equivalent(frames);
    // A corrupted section byte, anywhere in the second frame.
    stream_decoder before({});
    ASSERT_FALSE(build(before, frames[0]).error);
    for (std::size_t pos = 0; pos < frames[1].size(); pos += 7) {
        bytes_t bad = frames[1];
        bad[pos] ^= 0x5A;
        expect_equivalent(before, bad, frames[2]);
        if (::testing::Test::HasFailure()) return;
    }
}

// A record's fields skip decode_value's depth check (decode_fields makes it once for all)
// and go straight to the dispatch on their tag: every tag byte as a field, after the fields
// before it, with each of a few tails, in records of a kept type (integer history) and of an
// inline type (none), at depths that allow and refuse the fields - each fails or passes in
// check mode as it does when decoded.
TEST(Check, EveryTagAsARecordFieldChecksAsItDecodes) {
    const auto frames = payloads(messages_of("events", 20), 1);
    // A type of three fields "a", "b", "c", as a new type or an inline one.
    auto record_of = [](std::uint8_t kind) {
        return bytes_t{
            kind, wire::tag_string, 1, 'T', 3, wire::tag_string, 1, 'a', wire::tag_string, 1,
            'b',  wire::tag_string, 1, 'c'};
    };
    const std::vector<bytes_t> tails = {
        {},
        {0x00, 0x00},
        {0x05, 0x02, 'h', 'i', 0xC1},
        {0x03, 0x80, 0x01, 0x21},
        {0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0xC0, 0xC0},
        {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02, 0x00},
    };
    std::vector<decoder_limits> limits(4);
    limits[1].max_depth = 0;
    limits[2].max_depth = 1;  // the root record, but not its fields
    limits[3].max_string_bytes = 1;
    std::uint64_t failed = 0;
    std::uint64_t tried = 0;
    for (std::size_t l = 0; l < limits.size(); ++l) {
        // The tighter limits refuse the events frame: their table starts empty.
        stream_decoder before(limits[l]);
        if (l == 0) {
            ASSERT_FALSE(build(before, frames[0]).error);
        }
        for (const std::uint8_t kind : {wire::tag_record_new, wire::tag_record_inline}) {
            for (int first = 0; first < 2; ++first) {
                for (int tag = 0; tag < 256; ++tag) {
                    for (const auto& tail : tails) {
                        SCOPED_TRACE(::testing::Message()
                                     << "limits " << l << " kind " << int(kind) << " tag " << tag);
                        bytes_t p = record_of(kind);
                        if (first == 1) p.push_back(0xC5);  // the tag as the second field
                        p.push_back(static_cast<std::uint8_t>(tag));
                        p.insert(p.end(), tail.begin(), tail.end());
                        failed += expect_equivalent(before, p, frames[1]) ? 1 : 0;
                        ++tried;
                        if (::testing::Test::HasFailure()) return;
                    }
                }
            }
        }
    }
    EXPECT_GT(failed, tried / 10);
    EXPECT_LT(failed, tried);
}

// ---- the receiver ------------------------------------------------------------------------

receiver::options checking_receiver(bool check) {
    receiver::options o;
    o.sink = "memory";
    o.fresh_frames = true;
    o.check_fresh_frames = check;
    return o;
}

// A sender and a receiver in memory; every frame the receiver finishes is recorded.
struct frame_seen {
    bool checked = false;
    bool fresh = false;
    std::uint64_t messages = 0;
    std::vector<message> delivered;
    bytes_t payload;
};

struct checking_link {
    sender s;
    receiver r;
    std::vector<frame_seen> frames;
    std::vector<message> pending;

    checking_link(sender::options so, receiver::options ro) : s(std::move(so)), r(std::move(ro)) {}

    // Bytes from the sender to the receiver and the replies back, until neither has any.
    void pump(std::vector<std::uint8_t> extra = {}) {
        for (int round = 0; round < 1000; ++round) {
            auto out = s.output();
            bytes_t bytes(out.begin(), out.end());
            s.consume_output();
            bytes.insert(bytes.end(), extra.begin(), extra.end());
            extra.clear();
            if (bytes.empty() && r.output().empty()) return;
            test::feed(
                r, bytes, [&](message&& m) { pending.push_back(std::move(m)); },
                [&](std::uint64_t n_messages) {
                    const auto p = r.frame_payload();
                    frames.push_back({r.frame_checked(), r.frame_fresh(), n_messages,
                                      std::move(pending), bytes_t(p.begin(), p.end())});
                    pending.clear();
                });
            test::answer(r, s);
        }
        ADD_FAILURE() << "the link did not settle";
    }

    // Each message added and moved across, then the goodbye.
    void send_all(const std::vector<message>& msgs) {
        for (const auto& m : msgs) {
            EXPECT_FALSE(s.add(m));
            pump();
        }
        s.finish();
        pump();
    }
};

sender::options small_frames() {
    sender::options o;
    o.greeting.client_name = "test";
    o.batch_max_bytes = 2048;
    return o;
}

TEST(CheckingReceiver, FreshFramesAreCheckedAndCountedNotDelivered) {
    checking_link l(small_frames(), checking_receiver(true));
    l.pump();
    ASSERT_TRUE(l.s.peer().fresh_frames);
    const auto msgs = messages_of("events", 2000);
    l.send_all(msgs);
    ASSERT_GT(l.frames.size(), 5u);
    std::size_t at = 0;
    for (const auto& f : l.frames) {
        EXPECT_TRUE(f.fresh);
        EXPECT_TRUE(f.checked);
        EXPECT_TRUE(f.delivered.empty());
        // Stored whole, the payload decodes alone to the frame's messages.
        stream_decoder alone({});
        std::vector<message> got;
        ASSERT_FALSE(alone.decode_payload(f.payload, [&](message&& m) { got.push_back(m); }));
        ASSERT_EQ(got.size(), f.messages);
        for (const auto& m : got)
            EXPECT_EQ(m, msgs[at++]);
    }
    EXPECT_EQ(at, msgs.size());
    EXPECT_EQ(l.r.messages(), msgs.size());
    EXPECT_EQ(l.s.messages_acked(), msgs.size());
}

// A receiver that does not store frames whole, and frames that are not fresh, are delivered.
TEST(CheckingReceiver, OtherFramesAreDeliveredAsBefore) {
    for (const bool check : {false, true}) {
        SCOPED_TRACE(check);
        auto ro = checking_receiver(check);
        ro.fresh_frames = false;  // the sender carries its table across frames
        checking_link l(small_frames(), ro);
        l.pump();
        const auto msgs = messages_of("person", 3000);
        l.send_all(msgs);
        ASSERT_GT(l.frames.size(), 3u);
        std::size_t at = 0;
        for (const auto& f : l.frames) {
            // Only a frame that starts from an empty table (the first) may be checked.
            EXPECT_EQ(f.checked, check && f.fresh);
            if (f.checked) {
                EXPECT_TRUE(f.delivered.empty());
                at += f.messages;
                continue;
            }
            ASSERT_EQ(f.delivered.size(), f.messages);
            for (const auto& m : f.delivered)
                EXPECT_EQ(m, msgs[at++]);
        }
        EXPECT_EQ(at, msgs.size());
        EXPECT_TRUE(std::any_of(l.frames.begin(), l.frames.end(),
                                [](const frame_seen& f) { return !f.fresh; }));
    }
}

// ---- fresh frames under a smaller table than the stored payload's reader ----------------

// The rule: the reader's budget itself, or a smaller one that evicted nothing.
TEST(ReadsBackAlike, OnlyTheSameBudgetOrASmallerOneThatEvictedNothing) {
    constexpr std::uint64_t journal = 4u << 20;
    EXPECT_TRUE(reads_back_alike(journal, journal, 0));
    EXPECT_TRUE(reads_back_alike(journal, journal, 7));  // the reader evicts alike
    EXPECT_TRUE(reads_back_alike(64 * 1024, journal, 0));
    EXPECT_FALSE(reads_back_alike(64 * 1024, journal, 1));
    EXPECT_FALSE(reads_back_alike(2 * journal, journal, 0));  // may hold more than the reader
}

// The messages of `payload` decoded alone by a decoder with `limits`; empty on an error.
std::vector<message> decoded_alone(const bytes_t& payload, decoder_limits limits) {
    stream_decoder dec(limits);
    const auto o = build(dec, payload);
    return o.error ? std::vector<message>{} : o.decoded;
}

decoder_limits table_of(std::uint64_t bytes) {
    decoder_limits l;
    l.table_budget = bytes;
    return l;
}

// A sender asking for a 64 KiB table still gets fresh frames; frames that evict nothing under
// it are stored whole, and each payload decodes under the journal's 4 MiB exactly as sent.
TEST(CheckingReceiver, ASmallerTableStoresWholeTheFramesThatEvictNothing) {
    auto so = small_frames();
    so.greeting.table_budget = 64 * 1024;
    checking_link l(so, checking_receiver(true));
    l.pump();
    EXPECT_TRUE(l.s.peer().fresh_frames);
    EXPECT_EQ(l.s.peer().limits.table_budget, 64u * 1024);
    const auto msgs = messages_of("events", 2000);
    l.send_all(msgs);
    ASSERT_GT(l.frames.size(), 5u);
    EXPECT_EQ(l.r.table().evictions, 0u);
    std::size_t at = 0;
    for (const auto& f : l.frames) {
        EXPECT_TRUE(f.checked);
        EXPECT_TRUE(f.delivered.empty());
        const auto journal = decoded_alone(f.payload, journal_block_limits());
        EXPECT_EQ(journal, decoded_alone(f.payload, table_of(64 * 1024)));
        ASSERT_EQ(journal.size(), f.messages);
        for (const auto& m : journal)
            EXPECT_EQ(m, msgs[at++]);
    }
    EXPECT_EQ(at, msgs.size());
    EXPECT_EQ(l.s.messages_acked(), msgs.size());
}

// Under a 4 KiB table the fresh frames of `events` evict: read under the journal's budget
// their ids would mean other entries, so they are decoded again and delivered, as sent, and
// the table's account (acks, metrics) is the one a decoding receiver keeps.
TEST(CheckingReceiver, AFrameThatEvictsUnderASmallerTableIsDeliveredAsSent) {
    auto so = small_frames();
    so.greeting.table_budget = 4096;
    const auto msgs = messages_of("events", 500);
    checking_link decoding(so, checking_receiver(false));
    decoding.pump();
    decoding.send_all(msgs);
    checking_link l(so, checking_receiver(true));
    l.pump();
    EXPECT_TRUE(l.s.peer().fresh_frames);
    l.send_all(msgs);
    ASSERT_EQ(l.frames.size(), decoding.frames.size());
    std::size_t at = 0;
    std::size_t redecoded = 0;
    std::size_t misread = 0;
    for (const auto& f : l.frames) {
        EXPECT_TRUE(f.fresh);
        if (f.checked) {
            EXPECT_EQ(decoded_alone(f.payload, journal_block_limits()).size(), f.messages);
            at += f.messages;
            continue;
        }
        ++redecoded;
        ASSERT_EQ(f.delivered.size(), f.messages);
        misread += decoded_alone(f.payload, journal_block_limits()) != f.delivered ? 1 : 0;
        for (const auto& m : f.delivered)
            EXPECT_EQ(m, msgs[at++]);
    }
    EXPECT_EQ(at, msgs.size());
    EXPECT_GT(redecoded, l.frames.size() / 2);
    EXPECT_GT(misread, 0u);  // what storing them whole would have got wrong
    const auto& a = l.r.table();
    const auto& b = decoding.r.table();
    EXPECT_GT(a.evictions, 0u);
    EXPECT_EQ(a.evictions, b.evictions);
    EXPECT_EQ(a.inserts, b.inserts);
    EXPECT_EQ(a.hits, b.hits);
    EXPECT_EQ(a.misses, b.misses);
    EXPECT_EQ(a.resets, b.resets);
    EXPECT_EQ(a.bytes, b.bytes);
    EXPECT_EQ(a.peak_bytes, b.peak_bytes);
    EXPECT_EQ(l.r.messages(), msgs.size());
    EXPECT_EQ(l.s.messages_acked(), msgs.size());
}

// Frames of `events` up to 64 KiB into a receiver granting a 64 KiB table (the pool's share)
// and storing for a 4 MiB reader: how many were checked (stored whole) of how many.
struct granted_run {
    std::size_t frames = 0;
    std::size_t checked = 0;
    std::uint64_t wire_bytes = 0;
    table_stats sender;  // the two halves' accounts
    table_stats receiver;
};
granted_run send_granted_64k(std::uint64_t asked, const std::vector<message>& msgs) {
    auto so = small_frames();
    so.batch_max_bytes = 64 * 1024;
    so.greeting.table_budget = asked;
    auto ro = checking_receiver(true);
    ro.limits.table_budget = 64 * 1024;
    ro.stored_table_budget = 4u << 20;
    checking_link l(so, ro);
    l.pump();
    EXPECT_TRUE(l.s.peer().fresh_frames);
    l.send_all(msgs);
    granted_run run;
    std::size_t at = 0;
    for (const auto& f : l.frames) {
        ++run.frames;
        run.wire_bytes += f.payload.size();
        run.checked += f.checked ? 1 : 0;
        const auto got = f.checked ? decoded_alone(f.payload, journal_block_limits()) : f.delivered;
        for (const auto& m : got) {
            if (at == msgs.size()) {
                ADD_FAILURE() << "more messages than sent";
                return run;
            }
            EXPECT_EQ(m, msgs[at++]);
        }
    }
    EXPECT_EQ(at, msgs.size());
    run.sender = l.s.table();
    run.receiver = l.r.table();
    return run;
}

// Granted a smaller table than it asked for, a sender that is asked for fresh frames resets
// between messages rather than evict, so every frame is stored whole; one that got what it
// asked for evicts as before, and its evicting frames are encoded again.
TEST(CheckingReceiver, ASenderGrantedLessThanItAskedResetsRatherThanEvict) {
    const auto msgs = messages_of("events", 20000);
    const auto granted_less = send_granted_64k(0, msgs);  // 0: the protocol's default, 4 MiB
    const auto as_asked = send_granted_64k(64 * 1024, msgs);
    EXPECT_GT(granted_less.frames, 10u);
    EXPECT_EQ(granted_less.checked, granted_less.frames);
    EXPECT_LT(as_asked.checked, as_asked.frames);
    // The sender counts what the receiver saw, not the tries it encoded again after a reset.
    for (const auto* run : {&granted_less, &as_asked}) {
        EXPECT_EQ(run->sender.evictions, run->receiver.evictions);
        EXPECT_EQ(run->sender.inserts, run->receiver.inserts);
        EXPECT_EQ(run->sender.resets, run->receiver.resets);
    }
    EXPECT_EQ(granted_less.sender.evictions, 0u);
    // What the resets cost on the wire: strings defined again after each.
    EXPECT_LT(granted_less.wire_bytes, as_asked.wire_bytes * 105 / 100);
}

// A connection's first frame has no reset op: decoded again, it starts from an empty table
// all the same, not from the one its check left.
TEST(CheckingReceiver, AFirstFrameThatEvictsIsDecodedAgainFromAnEmptyTable) {
    constexpr std::uint64_t budget = 4096;
    encoder_options eo;
    eo.peer = table_of(budget);
    const auto msgs = messages_of("events", 60);
    const auto frames = payloads(msgs, 1 << 20, eo);
    ASSERT_EQ(frames.size(), 1u);
    ASSERT_NE(frames[0].front(), wire::tag_reset);
    for (const bool check : {false, true}) {
        SCOPED_TRACE(check);
        auto so = small_frames();
        so.greeting.table_budget = budget;
        checking_link l(so, checking_receiver(check));
        l.pump();
        ASSERT_EQ(l.r.current(), receiver::state::streaming);
        byte_buffer fb;
        append_frame(fb, frame_kind::data, 1, frames[0]);
        l.pump({fb.data(), fb.data() + fb.size()});
        ASSERT_EQ(l.r.error(), std::error_code{}) << l.r.error_detail();
        ASSERT_EQ(l.frames.size(), 1u);
        EXPECT_TRUE(l.frames[0].fresh);
        EXPECT_FALSE(l.frames[0].checked);
        EXPECT_EQ(l.frames[0].delivered, msgs);
        EXPECT_GT(l.r.table().evictions, 0u);
        EXPECT_EQ(l.r.table().resets, 0u);  // counted once, as the decoding receiver does
    }
}

// A fresh frame that is bad fails the checking receiver with the error (and detail) the
// decoding one sends.
TEST(CheckingReceiver, ABadFreshFrameFailsAsBefore) {
    // Fresh payloads (a reset op first, after the table the first frame filled), each broken
    // at one place.
    auto good = payloads(messages_of("events", 30), 1 << 20);
    ASSERT_EQ(good.size(), 1u);
    good[0].insert(good[0].begin(), wire::tag_reset);
    std::vector<bytes_t> bad;
    for (std::size_t pos = 1; pos < good[0].size(); pos += good[0].size() / 23) {
        bytes_t b = good[0];
        b[pos] = static_cast<std::uint8_t>(b[pos] + 0x41);
        bad.push_back(std::move(b));
    }
    bad.push_back({wire::tag_reset, wire::tag_string_ref, 5});          // unknown reference
    bad.push_back({wire::tag_reset, wire::tag_string, 2, 0xC0, 0x80});  // overlong UTF-8
    std::size_t refused = 0;
    for (const auto& payload : bad) {
        std::string detail[2];
        std::error_code error[2];
        std::uint64_t messages[2] = {0, 0};
        for (const bool check : {false, true}) {
            checking_link l(small_frames(), checking_receiver(check));
            l.pump();
            ASSERT_EQ(l.r.current(), receiver::state::streaming);
            ASSERT_FALSE(l.s.add(test::person(1)));
            l.s.seal();
            l.pump();
            byte_buffer fb;
            append_frame(fb, frame_kind::data, l.r.frames() + 1, payload);
            l.pump({fb.data(), fb.data() + fb.size()});
            error[check] = l.r.error();
            detail[check] = l.r.error_detail();
            messages[check] = l.r.messages();
        }
        EXPECT_EQ(error[0], error[1]);
        EXPECT_EQ(detail[0], detail[1]);
        EXPECT_EQ(messages[0], messages[1]);
        refused += error[0] ? 1 : 0;
    }
    EXPECT_GE(refused, 5u);  // most changes break the frame; every one failed alike
}

}  // namespace
}  // namespace objwire
