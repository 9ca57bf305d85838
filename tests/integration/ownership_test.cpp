// Stream ownership (docs/PROTOCOL.md 1.1, "Ownership"): a raw peer that says hello with the id
// of another client's stream - while that client streams, between a cut and its reconnect,
// after it reconnected, across a daemon restart - never makes that client count as stored a
// frame that is not its own. A live stream's id is refused to a new stream (sender_busy); a
// client whose id was taken while it was away is fenced (sender_fenced) and fails.
#include <gtest/gtest.h>

#include <functional>

#include <objwire/connection.hpp>
#include "bad_peer.hpp"
#include "daemon/serve/server.hpp"
#include "daemon/store/sender_registry.hpp"
#include "daemon_fixture.hpp"
#include "proto/encoder.hpp"
#include "resume_support.hpp"

namespace objwire::test {
namespace {

constexpr std::uint64_t owner_seed = 21;

// The stream's owner: sends n events under `id`, held before object `limit` until the test
// raises it, so the attack lands at a known point.
struct owner_client {
    std::string id = "victim";
    std::uint64_t n = 20'000;
    std::atomic<std::uint64_t> progress{0};
    std::atomic<std::uint64_t> limit{UINT64_MAX};
    std::atomic<std::uint64_t> reconnects{0};
    std::error_code result;
    std::string error;
    std::uint64_t acked = 0;

    void run(config::client_settings cs) {
        cs.sender_id = id;
        client::connection c(cs, "owner");
        if ((result = c.open())) {
            error = c.last_error();
            return;
        }
        auto w = workloads::make("events", owner_seed);
        message m;
        for (std::uint64_t i = 0; i < n && !result; ++i) {
            // Held before object `limit` until the test lets it go on (bounded: 30 s).
            wait_until([&] { return i < limit.load(); }, std::chrono::seconds(30),
                       std::chrono::milliseconds(1));
            w->next(m);
            result = c.send(m);
            progress = i + 1;
            reconnects = c.stats().reconnects;
        }
        if (!result) result = c.close();
        error = c.last_error();
        acked = c.stats().objects_acked;
    }
};

// A hand-driven peer that claims `id`: its hello (with `token`, if any), then - if welcomed -
// `frames` data frames of person records numbered from the welcome's next_sequence.
struct intruder_result {
    bool welcomed = false;
    std::optional<proto_errc> refused;
    std::uint64_t acked_through = 0;
};
intruder_result intrude(std::uint16_t port, const std::string& id, int frames,
                        const std::string& token = {}) {
    intruder_result r;
    raw_peer p(port, false);
    hello h;
    h.client_name = "intruder";
    h.sender_id = id;
    h.resume_token = token;
    byte_buffer payload;
    encode_hello(h, payload);
    p.send_frame(frame_kind::hello, 0, payload.span());
    auto f = p.read_frame();
    if (f.header.kind != frame_kind::welcome) {
        if (f.header.kind == frame_kind::error)
            if (auto e = decode_error(f.payload)) r.refused = static_cast<proto_errc>(e->code);
        return r;
    }
    r.welcomed = true;
    auto w = decode_welcome(f.payload);
    EXPECT_TRUE(w.has_value());
    encoder_options eo;
    eo.peer = w->limits;
    stream_encoder enc(eo);
    auto people = workloads::make("person");
    message m;
    for (int i = 0; i < frames; ++i) {
        payload.clear();
        for (int k = 0; k < 10; ++k) {
            people->next(m);
            EXPECT_FALSE(enc.encode(m, payload));
        }
        p.send_frame(frame_kind::data, w->next_sequence + static_cast<std::uint64_t>(i),
                     payload.span());
    }
    p.send_frame(frame_kind::goodbye, 0, {});
    for (;;) {
        auto reply = p.read_frame();
        if (reply.header.kind == frame_kind::ack) {
            if (auto a = decode_ack(reply.payload)) r.acked_through = a->sequence;
        } else if (reply.header.kind != frame_kind::error) {
            break;  // goodbye or closed
        }
    }
    return r;
}

// What the journal holds for the owner's id: its own events, which must be a prefix of its
// stream in order, and objects that are not its own (the intruder's).
struct stored_split {
    std::uint64_t own = 0;
    std::uint64_t foreign = 0;
};
stored_split split_stored(const std::filesystem::path& data, const std::string& id) {
    stored_split s;
    auto w = workloads::make("events", owner_seed);
    message expected, m;
    bool expected_ready = false;
    daemon::journal_reader reader(data);
    while (reader.next(m)) {
        if (reader.sender_id() != id) continue;
        if (!expected_ready) {
            w->next(expected);
            expected_ready = true;
        }
        if (m == expected) {
            ++s.own;
            expected_ready = false;
        } else {
            ++s.foreign;
        }
    }
    EXPECT_FALSE(reader.error()) << reader.error_detail();
    return s;
}

class Ownership : public bad_input_fixture {};

// While the owner streams - on its first connection and again after it resumed on a new one -
// a new stream under its id is refused and a forged token is fenced; the owner is undisturbed.
TEST_F(Ownership, ANewStreamIsRefusedWhileTheOwnerIsLive) {
    start();
    cutting_proxy proxy(port());
    auto cs = client_settings();
    cs.to_port = proxy.port();
    owner_client owner;
    owner.limit = owner.n / 3;
    std::thread t([&] { owner.run(cs); });
    ASSERT_TRUE(eventually([&] { return owner.progress.load() >= owner.n / 3; }));
    auto r = intrude(port(), owner.id, 2);
    EXPECT_FALSE(r.welcomed) << "a new stream took a live sender id";
    EXPECT_EQ(r.refused, proto_errc::sender_busy);
    r = intrude(port(), owner.id, 2, "00112233445566778899aabbccddeeff");
    EXPECT_FALSE(r.welcomed) << "a forged token resumed a live sender id";
    EXPECT_EQ(r.refused, proto_errc::sender_fenced);
    // The owner's connection cut: it resumes with its token, and is the live owner again.
    EXPECT_EQ(proxy.cut(), 1);
    owner.limit = 2 * owner.n / 3;
    ASSERT_TRUE(eventually([&] { return owner.reconnects.load() == 1; }));
    ASSERT_TRUE(eventually([&] { return owner.progress.load() >= 2 * owner.n / 3; }));
    r = intrude(port(), owner.id, 2);
    EXPECT_FALSE(r.welcomed) << "a new stream took a resumed sender id";
    owner.limit = UINT64_MAX;
    t.join();
    EXPECT_FALSE(owner.result) << owner.error;
    EXPECT_EQ(owner.acked, owner.n);
    stop();
    EXPECT_EQ(expect_exact_streams(dir_, {{owner.id, owner_seed}}, {{owner.id, owner.n}}), owner.n);
}

// The owner's connection cut (frames in flight, their acks lost), a new stream takes the id and
// stores two frames before the owner reconnects: the owner is fenced - it fails with
// sender_fenced instead of counting the intruder's frames as its own.
TEST_F(Ownership, AnOwnerWhoseIdWasTakenWhileAwayIsFenced) {
    start();
    cutting_proxy proxy(port());
    auto cs = client_settings();
    cs.to_port = proxy.port();
    owner_client owner;
    owner.limit = owner.n / 2;
    std::thread t([&] { owner.run(cs); });
    ASSERT_TRUE(eventually([&] { return owner.progress.load() >= owner.n / 2; }));
    proxy.refuse(true);  // the owner, which notices the cut at once, stays away meanwhile
    EXPECT_EQ(proxy.cut(), 1);
    ASSERT_TRUE(eventually([&] { return !server().senders().held(owner.id); }));
    intruder_result r;
    ASSERT_TRUE(eventually([&] { return (r = intrude(port(), owner.id, 2)).welcomed; }));
    EXPECT_GT(r.acked_through, 0u);
    proxy.refuse(false);
    owner.limit = UINT64_MAX;
    t.join();
    EXPECT_EQ(owner.result, proto_errc::sender_fenced) << owner.error;
    EXPECT_NE(owner.error.find("taken by another stream"), std::string::npos) << owner.error;
    stop();
    const auto s = split_stored(dir_, owner.id);
    EXPECT_EQ(s.foreign, 20u);  // the intruder's two frames of ten
    EXPECT_LE(owner.acked, s.own) << "the owner counted objects that are not its own";
}

// A new stream's objects went to the journal while the owner was away, then objwired was
// killed (SIGKILL) and restarted: the fence is in the journal, so the owner is still fenced.
TEST(OwnershipChild, TheFenceSurvivesADaemonKill) {
    const auto dir = std::filesystem::temp_directory_path() /
                     ("objwire-ownership-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    child_objwired d(dir / "data", dir / "objwired.log", free_port(),
                     {"OBJWIRE_JOURNAL_FSYNC=always"});
    ASSERT_TRUE(d.start()) << d.log();
    cutting_proxy proxy(d.port());
    config::client_settings cs;
    cs.to_port = proxy.port();
    cs.resume_retry_for = std::chrono::seconds(30);
    owner_client owner;
    owner.limit = owner.n / 2;
    std::thread t([&] { owner.run(cs); });
    ASSERT_TRUE(eventually([&] { return owner.progress.load() >= owner.n / 2; }));
    proxy.refuse(true);  // the owner stays away until objwired has restarted
    EXPECT_EQ(proxy.cut(), 1);
    intruder_result r;
    ASSERT_TRUE(eventually([&] { return (r = intrude(d.port(), owner.id, 2)).welcomed; }));
    EXPECT_GT(r.acked_through, 0u);
    const int status = d.signal_and_wait(SIGKILL);
    EXPECT_TRUE(WIFSIGNALED(status));
    ASSERT_TRUE(d.start()) << d.log();
    proxy.refuse(false);
    owner.limit = UINT64_MAX;
    t.join();
    EXPECT_EQ(owner.result, proto_errc::sender_fenced) << owner.error;
    EXPECT_EQ(d.signal_and_wait(SIGTERM), 0);
    const auto s = split_stored(dir / "data", owner.id);
    EXPECT_EQ(s.foreign, 20u);
    EXPECT_LE(owner.acked, s.own) << "the owner counted objects that are not its own";
    if (!::testing::Test::HasFailure()) std::filesystem::remove_all(dir);
}

// Legitimate: the owner resumes across a kill of objwired with its token (the fence it finds
// in the journal is its own), and a stream that ended lets a new one take its id.
TEST(OwnershipChild, TheOwnerResumesAfterADaemonKillAndAnEndedIdIsFree) {
    const auto dir = std::filesystem::temp_directory_path() /
                     ("objwire-ownership-ok-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    child_objwired d(dir / "data", dir / "objwired.log", free_port(),
                     {"OBJWIRE_JOURNAL_FSYNC=always"});
    ASSERT_TRUE(d.start()) << d.log();
    config::client_settings cs;
    cs.to_port = d.port();
    cs.resume_retry_for = std::chrono::seconds(30);
    owner_client owner;
    owner.limit = owner.n / 2;
    std::thread t([&] { owner.run(cs); });
    ASSERT_TRUE(eventually([&] { return owner.progress.load() >= owner.n / 2; }));
    EXPECT_TRUE(WIFSIGNALED(d.signal_and_wait(SIGKILL)));
    ASSERT_TRUE(d.start()) << d.log();
    owner.limit = UINT64_MAX;
    t.join();
    EXPECT_FALSE(owner.result) << owner.error;
    EXPECT_EQ(owner.acked, owner.n);
    // Ended: the id is free for a new stream, which continues after the owner's frames.
    const auto r = intrude(d.port(), owner.id, 1);
    EXPECT_TRUE(r.welcomed);
    EXPECT_EQ(d.signal_and_wait(SIGTERM), 0);
    const auto s = split_stored(dir / "data", owner.id);
    EXPECT_EQ(s.own, owner.n);
    EXPECT_EQ(s.foreign, 10u);
    if (!::testing::Test::HasFailure()) std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace objwire::test
