// Reading back (docs/PROTOCOL.md, "Reading back"): what senders stored comes back equal, in
// order, from any offset, filtered by sender; the blocks on the wire are the journal's bytes;
// a follower gets what is stored after it connected; a JSON-lines daemon refuses readers.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <thread>

#include <objwire/connection.hpp>
#include <objwire/reader.hpp>
#include "bad_peer.hpp"
#include "client/workloads/workloads.hpp"
#include "daemon/store/cursor_store.hpp"
#include "daemon/store/journal_reader.hpp"
#include "daemon/store/journal_segments.hpp"
#include "daemon_fixture.hpp"
#include "proto/journal_block.hpp"

namespace objwire::test {
namespace {

class Read : public daemon_fixture {
  protected:
    // Sends `msgs` on one connection; returns the sender id it used.
    std::string send_all(const std::vector<message>& msgs) {
        client::connection c(client_settings(), "read-test");
        EXPECT_FALSE(c.open()) << c.last_error();
        for (const auto& m : msgs)
            EXPECT_FALSE(c.send(m)) << c.last_error();
        EXPECT_FALSE(c.close()) << c.last_error();
        EXPECT_EQ(c.stats().objects_acked, msgs.size());
        return c.sender_id();
    }
    client::read_options options(std::uint64_t from = 0, std::string sender = {}) {
        client::read_options o;
        o.from = from;
        o.sender = std::move(sender);
        o.idle_timeout = std::chrono::seconds(20);
        o.follow_idle_timeout = std::chrono::seconds(20);
        return o;
    }
    // Everything a non-following reader gets; it must end with the daemon's goodbye.
    std::vector<client::stored_message> read_all(const client::read_options& o) {
        client::reader r(client_settings(), o);
        std::vector<client::stored_message> out;
        if (r.open()) {
            ADD_FAILURE() << r.last_error();
            return out;
        }
        client::stored_message m;
        while (r.next(m))
            out.push_back(std::move(m));
        EXPECT_FALSE(r.error()) << r.last_error();
        EXPECT_TRUE(r.finished());
        return out;
    }
};

TEST_F(Read, SeveralSendersReadBackEqualInOrder) {
    start();
    const std::map<std::string, std::vector<message>> sent_by_workload = {
        {"person", generate("person", 3000, 1)},
        {"events", generate("events", 2000, 2)},
        {"graph", generate("graph", 50, 3)},
    };
    std::map<std::string, const std::vector<message>*> by_sender;
    std::size_t total = 0;
    for (const auto& [name, msgs] : sent_by_workload) {
        by_sender[send_all(msgs)] = &msgs;
        total += msgs.size();
    }
    ASSERT_EQ(by_sender.size(), 3u) << "each connection has its own sender id";

    const auto got = read_all(options());
    ASSERT_EQ(got.size(), total);
    // Served from the start, whole blocks: the metrics count exactly what was stored.
    EXPECT_EQ(server().metrics().objects_out.load(), total);
    std::map<std::string, std::size_t> next_of;
    for (std::size_t i = 0; i < got.size(); ++i) {
        ASSERT_EQ(got[i].offset, i);
        auto it = by_sender.find(got[i].sender_id);
        ASSERT_NE(it, by_sender.end()) << "unknown sender " << got[i].sender_id;
        const auto k = next_of[got[i].sender_id.str()]++;
        ASSERT_EQ(canonical(got[i].value), canonical((*it->second)[k]))
            << "object " << k << " of " << got[i].sender_id;
    }
    for (const auto& [id, msgs] : by_sender)
        EXPECT_EQ(next_of[id], msgs->size());
}

TEST_F(Read, SenderFilterGivesOnlyThatSendersObjects) {
    start();
    const auto a = generate("person", 2000, 1);
    const auto b = generate("events", 2000, 2);
    const auto id_a = send_all(a);
    const auto id_b = send_all(b);
    const auto id_c = send_all(generate("person", 500, 3));
    const auto got = read_all(options(0, id_b));
    ASSERT_EQ(got.size(), b.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
        ASSERT_EQ(got[i].sender_id, id_b);
        ASSERT_EQ(canonical(got[i].value), canonical(b[i])) << i;
        // Its offsets follow a's objects.
        ASSERT_EQ(got[i].offset, a.size() + i);
    }
    (void)id_a;
    (void)id_c;
}

TEST_F(Read, AnUnknownSenderIsRefusedAsNotFound) {
    start();
    send_all(generate("person", 10, 1));
    client::reader r(client_settings(), options(0, "nobody"));
    EXPECT_EQ(r.open(), proto_errc::not_found);
    EXPECT_NE(r.last_error().find("'nobody'"), std::string::npos) << r.last_error();
}

TEST_F(Read, FromTheEndAndTheLastN) {
    start();
    const auto a = generate("person", 300, 1);
    const auto b = generate("events", 100, 2);
    const auto id_a = send_all(a);
    send_all(b);
    auto o = options();
    o.last = 7;
    auto got = read_all(o);
    ASSERT_EQ(got.size(), 7u);
    EXPECT_EQ(got.front().offset, 393u);
    EXPECT_EQ(canonical(got.back().value), canonical(b.back()));
    // The last N of one sender, the other's blocks after them left out.
    o.sender = id_a;
    got = read_all(o);
    ASSERT_EQ(got.size(), 7u);
    EXPECT_EQ(got.front().offset, 293u);
    EXPECT_EQ(canonical(got.back().value), canonical(a.back()));
    // More than stored: everything.
    o.last = 100000;
    EXPECT_EQ(read_all(o).size(), a.size());
    // The end: nothing stored yet, and the start is the durable end.
    o = options();
    o.at_end = true;
    client::reader r(client_settings(), o);
    ASSERT_FALSE(r.open()) << r.last_error();
    EXPECT_EQ(r.start(), 400u);
    client::stored_message m;
    EXPECT_FALSE(r.next(m));
    EXPECT_TRUE(r.finished());
}

// A cursor reader that goes away without its end leaves the cursor at its last ack (at least
// once); a clean end stores the exact position (exactly once).
TEST_F(Read, ACursorContinuesAtItsLastAck) {
    start();
    const auto msgs = generate("person", 100, 1);
    send_all(msgs);
    auto o = options();
    o.cursor = "etl";
    {
        client::reader r(client_settings(), o);
        ASSERT_FALSE(r.open()) << r.last_error();
        EXPECT_EQ(r.start(), 0u);
        client::stored_message m;
        for (int i = 0; i < 100; ++i)
            ASSERT_TRUE(r.next(m)) << r.last_error();
        ASSERT_FALSE(r.ack(40));
    }  // gone without a goodbye: as if killed
    std::vector<client::stored_message> got;
    {
        // The daemon may not have noticed the first reader is gone: while the name is still
        // held, open again (bounded).
        std::optional<client::reader> r;
        wait_until([&] {
            r.emplace(client_settings(), o);
            return r->open() != proto_errc::sender_busy;
        });
        ASSERT_FALSE(r->error()) << r->last_error();
        EXPECT_EQ(r->start(), 40u);
        client::stored_message m;
        while (r->next(m))
            got.push_back(std::move(m));
        ASSERT_TRUE(r->finished()) << r->last_error();
        ASSERT_FALSE(r->finish_cursor(100)) << r->last_error();
    }
    ASSERT_EQ(got.size(), 60u);
    EXPECT_EQ(got.front().offset, 40u);
    EXPECT_EQ(canonical(got.front().value), canonical(msgs[40]));
    // The clean end stored 100: nothing again, and the list says so.
    client::reader again(client_settings(), o);
    ASSERT_FALSE(again.open()) << again.last_error();
    EXPECT_EQ(again.start(), 100u);
    auto l = o;
    l.request = read_request::list_cursors;
    client::reader lister(client_settings(), l);
    ASSERT_FALSE(lister.open()) << lister.last_error();
    ASSERT_EQ(lister.cursors().cursors.size(), 1u);
    EXPECT_EQ(lister.cursors().cursors[0].name, "etl");
    EXPECT_EQ(lister.cursors().cursors[0].next_offset, 100u);
    // One reader per name.
    client::reader second(client_settings(), o);
    EXPECT_EQ(second.open(), proto_errc::sender_busy);
}

// The daemon releases a finished cursor before its goodbye: a reader that starts the moment
// the previous one ended is never refused as "in use".
TEST_F(Read, ACursorReaderRestartedAtOnceAfterItsEndIsNotRefused) {
    start();
    send_all(generate("events", 200, 7));
    auto o = options();
    o.cursor = "again";
    for (int run = 0; run < 20; ++run) {
        client::reader r(client_settings(), o);
        ASSERT_FALSE(r.open()) << "run " << run << ": " << r.last_error();
        client::stored_message m;
        std::uint64_t next = r.start();
        while (r.next(m))
            next = m.offset + 1;
        ASSERT_FALSE(r.error()) << r.last_error();
        ASSERT_FALSE(r.finish_cursor(next)) << r.last_error();
    }
}

// A consumer acking every object costs the daemon a few cursor writes (each stored with the
// journal's next sync), not one per ack: acks coalesce, in the library and in the daemon, and a
// cursor is written at most once per 100 ms. finish_cursor is answered once the newest is stored,
// and the next reader of the name is admitted at once.
TEST_F(Read, ACursorAckedAtEveryObjectCostsAFewWritesAndIsFreeAtItsEnd) {
    start();
    constexpr std::uint64_t count = 100'000;
    send_all(generate("events", count, 9));
    auto o = options();
    o.cursor = "every";
    auto& metrics = server().metrics();
    const auto acks_before = metrics.cursor_acks.load();
    const auto writes_before = metrics.cursor_writes.load();
    const auto began = std::chrono::steady_clock::now();
    std::uint64_t acks = 0;
    std::uint64_t next = 0;
    {
        client::reader r(client_settings(), o);
        ASSERT_FALSE(r.open()) << r.last_error();
        client::stored_message m;
        while (r.next(m)) {
            next = m.offset + 1;
            ASSERT_FALSE(r.ack(next)) << r.last_error();
            ++acks;
        }
        ASSERT_TRUE(r.finished()) << r.last_error();
        ASSERT_FALSE(r.finish_cursor(next)) << r.last_error();
    }
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                        std::chrono::steady_clock::now() - began)
                        .count();
    const auto received = metrics.cursor_acks.load() - acks_before;
    const auto writes = metrics.cursor_writes.load() - writes_before;
    EXPECT_EQ(acks, count);
    EXPECT_EQ(next, count);
    EXPECT_GE(received, 1u);
    EXPECT_LE(received, acks);
    // One write per 100 ms while acks come, and the newest at the goodbye.
    EXPECT_GE(writes, 1u);
    EXPECT_LE(writes, static_cast<std::uint64_t>(ms) / 100 + 2)
        << writes << " cursor writes for " << acks << " acks in " << ms << " ms";
    EXPECT_LE(writes * 100, acks) << writes << " cursor writes for " << acks << " acks";
    client::reader again(client_settings(), o);
    ASSERT_FALSE(again.open()) << again.last_error();  // not "in use"
    EXPECT_EQ(again.start(), count);
}

// What one cursor consumer over `count` stored objects did, and what the daemon did for it.
struct cursor_run {
    std::uint64_t objects = 0;       // read
    std::uint64_t out_of_order = 0;  // objects whose offset was not the one after the last
    std::uint64_t acks_made = 0;
    std::uint64_t acks_received = 0;  // ack frames the daemon took
    std::uint64_t writes = 0;         // cursor positions written (objwire_cursor_writes_total)
    std::uint64_t fsyncs = 0;         // of cursor files and their directory
    std::uint64_t stored_at = 0;      // the cursor's position once finished
    std::error_code finished;         // what finish_cursor returned
    std::int64_t ms = 0;              // open to the daemon's goodbye
};

// Acks coalesce and ride on the journal's syncs: a consumer acking every one of 1,000,000
// objects costs the daemon the cursor writes and fsyncs one acking every 1,000 does - a few
// per 100 ms of reading, not one per ack - and finish_cursor returns as soon as the newest
// position is stored, whatever was acked before it.
//
// The test checks those counts, which are what keeps the two consumers' times together; the
// times themselves are compared by tests/bench/cursor_ack_bench.cpp (docs/PERFORMANCE.md,
// "Cursor acks"): two runs of 0.3 s each on a machine shared with builds differ by more than
// their acks cost, so a time ratio here would fail on load, not on a regression.
TEST_F(Read, ACursorConsumerAckingEveryObjectOfAMillionCostsWhatOneAckingEvery1000Does) {
    start();
    constexpr std::uint64_t count = 1'000'000;
    {
        client::connection c(client_settings(), "million");
        ASSERT_FALSE(c.open()) << c.last_error();
        for (std::uint64_t sent = 0; sent < count; sent += 50'000) {
            for (const auto& m : generate("events", 50'000, sent))
                ASSERT_FALSE(c.send(m)) << c.last_error();
        }
        ASSERT_FALSE(c.close()) << c.last_error();
        ASSERT_EQ(c.stats().objects_acked, count);
    }
    auto& metrics = server().metrics();
    const auto& cursors = daemon::cursor_store::for_data_dir(dir_);
    const auto consume = [&](const std::string& name, std::uint64_t every) {
        cursor_run run;
        auto o = options();
        o.cursor = name;
        const auto acks_before = metrics.cursor_acks.load();
        const auto writes_before = metrics.cursor_writes.load();
        const auto fsyncs_before = cursors.fsyncs();
        const auto began = std::chrono::steady_clock::now();
        client::reader r(client_settings(), o);
        if (r.open()) {
            run.finished = r.error();
            return run;
        }
        client::stored_message m;
        std::uint64_t next = r.start();
        while (r.next(m)) {
            if (m.offset != next) ++run.out_of_order;
            next = m.offset + 1;
            if (++run.objects % every == 0 && !r.ack(next)) ++run.acks_made;
        }
        run.finished = r.error() ? r.error() : r.finish_cursor(next);
        run.ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                     std::chrono::steady_clock::now() - began)
                     .count();
        run.acks_received = metrics.cursor_acks.load() - acks_before;
        run.writes = metrics.cursor_writes.load() - writes_before;
        run.fsyncs = cursors.fsyncs() - fsyncs_before;
        std::error_code ec;
        run.stored_at = daemon::cursor_store(dir_).get(name, ec).value_or(0);  // the file
        return run;
    };
    const auto check = [&](const cursor_run& run, std::uint64_t every) {
        SCOPED_TRACE("acking every " + std::to_string(every) + " objects, " +
                     std::to_string(run.ms) + " ms");
        EXPECT_FALSE(run.finished) << run.finished.message();
        EXPECT_EQ(run.objects, count);
        EXPECT_EQ(run.out_of_order, 0u);
        EXPECT_EQ(run.acks_made, count / every);
        EXPECT_EQ(run.stored_at, count);
        EXPECT_GE(run.acks_received, 1u);
        EXPECT_LE(run.acks_received, run.acks_made + 1);  // + finish_cursor's
        // At most one write per 100 ms of reading, and the newest at the goodbye.
        const auto per_interval = static_cast<std::uint64_t>(run.ms) / 100 + 2;
        EXPECT_GE(run.writes, 1u);
        EXPECT_LE(run.writes, per_interval);
        // Each write: the file's fsync and the directory's (shared by every cursor a journal
        // sync stores), and the two of the cursor's creation.
        EXPECT_LE(run.fsyncs, 2 * run.writes + 2);
    };
    const auto every_1000 = consume("every-1000", 1000);
    const auto every_object = consume("every-object", 1);
    check(every_1000, 1000);
    check(every_object, 1);
    std::printf(
        "[ counts   ] every 1,000: %lld ms, %llu ack frames, %llu writes, %llu fsyncs; "
        "every object: %lld ms, %llu ack frames, %llu writes, %llu fsyncs\n",
        static_cast<long long>(every_1000.ms),
        static_cast<unsigned long long>(every_1000.acks_received),
        static_cast<unsigned long long>(every_1000.writes),
        static_cast<unsigned long long>(every_1000.fsyncs), static_cast<long long>(every_object.ms),
        static_cast<unsigned long long>(every_object.acks_received),
        static_cast<unsigned long long>(every_object.writes),
        static_cast<unsigned long long>(every_object.fsyncs));
}

// A cursor reader without follow that closes partway frees its name by the time close()
// returns, with its last ack stored: the next reader starts there, never refused as in use.
TEST_F(Read, ACursorReaderClosedPartwayFreesItsNameAtOnce) {
    start();
    send_all(generate("events", 20'000, 10));
    auto o = options();
    o.cursor = "partway";
    std::uint64_t at = 0;
    for (int run = 0; run < 20; ++run) {
        client::reader r(client_settings(), o);
        ASSERT_FALSE(r.open()) << "run " << run << ": " << r.last_error();
        EXPECT_EQ(r.start(), at) << "run " << run;
        client::stored_message m;
        for (int i = 0; i < 100 && r.next(m); ++i)
            at = m.offset + 1;
        ASSERT_FALSE(r.ack(at)) << r.last_error();
        r.close();
        ASSERT_FALSE(r.error()) << "run " << run << ": " << r.last_error();
    }
    EXPECT_EQ(at, 2000u);
}

// Offsets handed out keep their block's one sender id: equal to it, and the same string.
TEST_F(Read, ObjectsOfABlockShareItsSenderId) {
    start();
    const auto id = send_all(generate("events", 500, 8));
    client::reader r(client_settings(), options());
    ASSERT_FALSE(r.open()) << r.last_error();
    client::stored_message a, b;
    ASSERT_TRUE(r.next(a));
    ASSERT_TRUE(r.next(b));
    EXPECT_EQ(a.sender_id, id);
    EXPECT_EQ(&a.sender_id.str(), &b.sender_id.str());
}

TEST_F(Read, FromInTheMiddleOfABlock) {
    start();
    const auto sent = generate("events", 5000, 7);
    send_all(sent);
    // A block holding several messages: start one after its first.
    daemon::journal_reader jr(dir_);
    message m;
    std::uint64_t from = 0;
    while (jr.next(m)) {
        if (jr.block().message_count >= 3 && jr.offset() == jr.block().first_offset) {
            from = jr.offset() + 1;
            break;
        }
    }
    ASSERT_GT(from, 0u) << "no block with 3 messages";
    const auto got = read_all(options(from));
    ASSERT_EQ(got.size(), sent.size() - from);
    for (std::size_t i = 0; i < got.size(); ++i) {
        ASSERT_EQ(got[i].offset, from + i);
        ASSERT_EQ(canonical(got[i].value), canonical(sent[from + i]));
    }
    // Past the end: nothing, and still a clean end.
    EXPECT_TRUE(read_all(options(sent.size() + 10)).empty());
}

TEST_F(Read, BlocksAreServedByteIdenticalToTheJournalFiles) {
    settings_.journal_segment_bytes = 64 * 1024;  // several segments
    start();
    send_all(generate("events", 4000, 5));
    send_all(generate("person", 4000, 6));
    std::error_code ec;
    const auto segments = daemon::list_segments(dir_, ec);
    ASSERT_FALSE(ec);
    ASSERT_GT(segments.size(), 2u);
    std::vector<std::uint8_t> stored;
    for (const auto& s : segments) {
        std::ifstream in(s.path, std::ios::binary);
        stored.insert(stored.end(), std::istreambuf_iterator<char>(in), {});
    }

    raw_peer peer(port(), false);
    hello h;
    h.role = peer_role::reader;
    byte_buffer payload;
    encode_hello(h, payload);
    peer.send_frame(frame_kind::hello, 0, payload.span());
    auto w = peer.read_frame();
    ASSERT_EQ(w.header.kind, frame_kind::welcome);
    auto welcome = decode_welcome(w.payload);
    ASSERT_TRUE(welcome);
    EXPECT_EQ(welcome->journal_first_offset, 0u);
    EXPECT_EQ(welcome->journal_end_offset, 8000u);
    std::vector<std::uint8_t> served;
    std::uint64_t sequence = 0;
    for (int i = 0; i < 100000; ++i) {
        auto f = peer.read_frame();
        if (f.header.kind == frame_kind::goodbye) break;
        ASSERT_EQ(f.header.kind, frame_kind::journal_block);
        ASSERT_EQ(f.header.sequence, ++sequence);
        served.insert(served.end(), f.payload.begin(), f.payload.end());
    }
    EXPECT_EQ(served.size(), stored.size());
    EXPECT_TRUE(served == stored) << "served blocks differ from the segment files";
}

TEST_F(Read, FollowerGetsObjectsStoredAfterItConnected) {
    start();
    const auto before = generate("person", 1000, 1);
    send_all(before);
    auto o = options();
    o.follow = true;
    client::reader r(client_settings(), o);
    ASSERT_FALSE(r.open()) << r.last_error();
    EXPECT_EQ(r.server().journal_end_offset, before.size());
    std::vector<client::stored_message> got;
    client::stored_message m;
    while (got.size() < before.size() && r.next(m))
        got.push_back(std::move(m));
    ASSERT_EQ(got.size(), before.size()) << r.last_error();

    const auto after = generate("events", 3000, 2);
    std::thread sender([&] { send_all(after); });
    while (got.size() < before.size() + after.size() && r.next(m))
        got.push_back(std::move(m));
    sender.join();
    ASSERT_EQ(got.size(), before.size() + after.size()) << r.last_error();
    for (std::size_t i = 0; i < after.size(); ++i) {
        ASSERT_EQ(got[before.size() + i].offset, before.size() + i);
        ASSERT_EQ(canonical(got[before.size() + i].value), canonical(after[i]));
    }
    r.close();
    EXPECT_FALSE(r.error()) << r.last_error();
}

// A reader stores nothing and decodes no stream: it takes no share of limits.table_budget_total
// (followers could otherwise hold every share and leave senders without back-references).
TEST_F(Read, FollowersTakeNoShareOfTheTableBudget) {
    settings_.table_budget = 64 * 1024;
    settings_.table_budget_total = 64 * 1024;  // room for one sender
    start();
    send_all(generate("person", 10, 1));
    std::vector<std::unique_ptr<client::reader>> followers;
    for (int i = 0; i < 3; ++i) {
        auto o = options();
        o.follow = true;
        followers.push_back(std::make_unique<client::reader>(client_settings(), o));
        ASSERT_FALSE(followers.back()->open()) << followers.back()->last_error();
        client::stored_message m;
        for (int k = 0; k < 10; ++k)
            ASSERT_TRUE(followers.back()->next(m)) << followers.back()->last_error();
    }
    EXPECT_EQ(table_budget_in_use(), 0u);
    client::connection c(client_settings());
    ASSERT_FALSE(c.open()) << c.last_error();
    EXPECT_EQ(c.server().limits.table_budget, 64u * 1024);  // the whole share
    EXPECT_EQ(table_budget_in_use(), 64u * 1024);
    ASSERT_FALSE(c.close()) << c.last_error();
    for (auto& f : followers)
        f->close();
}

TEST_F(Read, StoppingTheDaemonEndsAFollower) {
    start();
    send_all(generate("person", 10, 1));
    auto o = options();
    o.follow = true;
    client::reader r(client_settings(), o);
    ASSERT_FALSE(r.open()) << r.last_error();
    client::stored_message m;
    for (int i = 0; i < 10; ++i)
        ASSERT_TRUE(r.next(m)) << r.last_error();
    std::thread reading([&] { EXPECT_FALSE(r.next(m)); });
    stop();  // returns only once every connection, the follower's too, has ended
    reading.join();
    EXPECT_EQ(r.error(), proto_errc::not_available);
    EXPECT_NE(r.last_error().find("shutting down"), std::string::npos) << r.last_error();
}

TEST_F(Read, JsonlSinkRefusesReaders) {
    settings_.sink_kind = "jsonl";
    start();
    send_all(generate("person", 10, 1));
    client::reader r(client_settings(), options());
    EXPECT_TRUE(r.open());
    EXPECT_EQ(r.error(), proto_errc::not_available);
    EXPECT_NE(r.last_error().find("cannot be read back"), std::string::npos) << r.last_error();
}

}  // namespace
}  // namespace objwire::test
