// Resume end to end: a client whose connection breaks - the daemon killed
// with SIGKILL, its connection cut by a proxy, the daemon stopped with SIGTERM - reconnects,
// resumes after the last frame the daemon stored, and the journal ends up holding every object
// exactly once, in order per sender. Counts are kept small for CI; the full-size run is
// tests/integration/resume_soak.sh (OBJWIRE_RESUME_OBJECTS sets the count here).
#include <gtest/gtest.h>

#include <functional>
#include <random>

#include <objwire/connection.hpp>
#include "daemon_fixture.hpp"
#include "resume_support.hpp"

namespace objwire::test {
namespace {

std::uint64_t objects_from_env(std::uint64_t fallback) {
    const char* v = std::getenv("OBJWIRE_RESUME_OBJECTS");
    return v && *v ? std::stoull(v) : fallback;
}

// Sends `n` events of workload seed `seed` under `id`, counting what it sent in `progress`.
struct streaming_client {
    streaming_client(std::string sender, std::uint64_t s, std::uint64_t count)
        : id(std::move(sender)), seed(s), n(count) {}

    std::string id;
    std::uint64_t seed;
    std::uint64_t n;
    std::atomic<std::uint64_t> progress{0};
    // Resumptions so far, as of the last send() that returned: the stream goes on over a new
    // connection.
    std::atomic<std::uint64_t> reconnects{0};
    std::function<void()> before_close;  // runs after the last send(), before close()
    // The test's brake: send() is not called for object `limit` until the test raises it, so a
    // signal lands at a known point of the stream however fast the client is (a client of
    // ~1 M objects/s overshoots a 10 ms poll by more than a sixth of a 100,000-object stream).
    std::atomic<std::uint64_t> limit{UINT64_MAX};
    std::error_code result;
    std::string error;
    client::connection_stats stats;

    void run(config::client_settings cs) {
        cs.sender_id = id;
        client::connection c(cs, "resume-test");
        if ((result = c.open())) {
            error = c.last_error();
            return;
        }
        auto w = workloads::make("events", seed);
        message m;
        for (std::uint64_t i = 0; i < n; ++i) {
            wait_until([&] { return i < limit.load(); }, std::chrono::seconds(60),
                       std::chrono::milliseconds(1));
            w->next(m);
            if ((result = c.send(m))) {
                error = c.last_error();
                return;
            }
            progress.store(i + 1, std::memory_order_relaxed);
            reconnects.store(c.stats().reconnects, std::memory_order_relaxed);
        }
        if (before_close) before_close();
        result = c.close();
        error = c.last_error();
        stats = c.stats();
    }
};

class ResumeChild : public ::testing::Test {
  protected:
    void SetUp() override {
        dir_ = std::filesystem::temp_directory_path() /
               ("objwire-resume-" + std::to_string(::getpid()) + "-" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name());
        std::filesystem::remove_all(dir_);
        std::filesystem::create_directories(dir_);
    }
    void TearDown() override {
        if (!HasFailure()) std::filesystem::remove_all(dir_);
    }
    std::filesystem::path dir_;
};

// Acceptance: events while the daemon is killed with SIGKILL at 5 random moments and
// restarted (fsync always): every object exactly once, in order.
TEST_F(ResumeChild, SigkillFiveTimesStoresEveryObjectExactlyOnce) {
    const std::uint64_t n = objects_from_env(100'000);
    child_objwired d(dir_ / "data", dir_ / "objwired.log", free_port(),
                     {"OBJWIRE_JOURNAL_FSYNC=always"});
    ASSERT_TRUE(d.start()) << d.log();
    config::client_settings cs;
    cs.to_port = d.port();
    cs.resume_retry_for = std::chrono::seconds(30);
    // A small window keeps what is unacknowledged at each kill small, so the client must
    // resume before it gets from one kill's point to the next (a sixth apart, less a twelfth).
    cs.max_in_flight = 256 * 1024;
    streaming_client client{"soak-1", 7, n};
    // Five moments, each at a random point of its sixth of the stream; the client is held at
    // each until the kill and the restart are done.
    std::mt19937_64 rng(std::random_device{}());
    std::vector<std::uint64_t> at;
    for (std::uint64_t k = 1; k <= 5; ++k)
        at.push_back(n * k / 6 + rng() % std::max<std::uint64_t>(1, n / 12));
    client.limit = at[0];
    std::thread t([&] { client.run(cs); });
    int kills = 0;
    for (std::size_t k = 0; k < at.size(); ++k) {
        if (!eventually([&] { return client.progress.load() >= at[k]; })) break;
        const int status = d.signal_and_wait(SIGKILL);
        EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
        ++kills;
        ASSERT_TRUE(d.start()) << d.log();
        client.limit = k + 1 < at.size() ? at[k + 1] : UINT64_MAX;
    }
    client.limit = UINT64_MAX;
    t.join();
    EXPECT_EQ(kills, 5) << "the stream ended before the fifth kill";
    ASSERT_FALSE(client.result) << client.error;
    EXPECT_EQ(client.stats.objects_acked, n);
    EXPECT_GE(client.stats.reconnects, 5u);
    EXPECT_EQ(d.signal_and_wait(SIGTERM), 0);
    const auto total = expect_exact_streams(dir_ / "data", {{"soak-1", 7}}, {{"soak-1", n}});
    EXPECT_EQ(total, n);
    const auto log = d.log();
    EXPECT_NE(log.find("resumes after frame"), std::string::npos);
    EXPECT_NE(log.find("sender index: 1 sender ids"), std::string::npos) << log;
}

// Acceptance: SIGTERM while 10 clients send; every acknowledged object is in the journal, the
// clients resume on the restarted daemon and finish, and nothing is stored twice.
TEST_F(ResumeChild, SigtermWhileTenClientsSendThenTheyResume) {
    const std::uint64_t n = objects_from_env(100'000) / 10;
    child_objwired d(dir_ / "data", dir_ / "objwired.log", free_port(),
                     {"OBJWIRE_JOURNAL_FSYNC=always"});
    ASSERT_TRUE(d.start()) << d.log();
    config::client_settings cs;
    cs.to_port = d.port();
    cs.max_in_flight = 64 * 1024;  // all ten mid-stream at the SIGTERM
    std::vector<std::unique_ptr<streaming_client>> clients;
    std::map<std::string, std::uint64_t> seeds, counts;
    for (int i = 0; i < 10; ++i) {
        const std::string id = "client-" + std::to_string(i);
        clients.push_back(
            std::make_unique<streaming_client>(id, 100 + static_cast<std::uint64_t>(i), n));
        seeds[id] = 100 + static_cast<std::uint64_t>(i);
        counts[id] = n;
    }
    std::vector<std::thread> threads;
    // Mid-stream for all of them at the SIGTERM: each is held after a third of its stream
    // (a fast client would otherwise finish before the slowest began).
    for (auto& c : clients) {
        c->limit = n / 3;
        threads.emplace_back([&c, cs] { c->run(cs); });
    }
    EXPECT_TRUE(eventually([&] {
        for (auto& c : clients)
            if (c->progress.load() < n / 3) return false;
        return true;
    }));
    std::vector<bool> mid_stream;
    for (auto& c : clients)
        mid_stream.push_back(c->progress.load() < n);
    const int status = d.signal_and_wait(SIGTERM);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << d.log();
    for (auto& c : clients)
        c->limit = UINT64_MAX;  // they go on, find the daemon gone and retry
    // The daemon stays down a while, so the clients' retries meet a closed port: the input.
    pause_as_peer(std::chrono::milliseconds(200));
    ASSERT_TRUE(d.start()) << d.log();
    for (auto& t : threads)
        t.join();
    int resumed = 0;
    for (std::size_t i = 0; i < clients.size(); ++i) {
        const auto& c = clients[i];
        EXPECT_FALSE(c->result) << c->id << ": " << c->error;
        EXPECT_EQ(c->stats.objects_acked, n) << c->id;
        if (mid_stream[i]) {
            EXPECT_GE(c->stats.reconnects, 1u) << c->id;
            ++resumed;
        }
    }
    EXPECT_EQ(resumed, 10);  // all were held mid-stream
    EXPECT_EQ(d.signal_and_wait(SIGTERM), 0);
    EXPECT_EQ(expect_exact_streams(dir_ / "data", seeds, counts), 10 * n);
}

class ResumeInProcess : public daemon_fixture {};

// Acceptance: the client's connection cut mid-stream 10 times: no loss, no duplicate.
TEST_F(ResumeInProcess, ConnectionCutTenTimesLosesAndDuplicatesNothing) {
    const std::uint64_t n = objects_from_env(100'000);
    start();
    cutting_proxy proxy(port());
    auto cs = client_settings();
    cs.to_port = proxy.port();
    cs.max_in_flight = 256 * 1024;  // frames in flight at each cut, resumed before the next
    streaming_client client{"cut-1", 11, n};
    // Each cut must break a connection the client resumed on after the cut before - not the
    // same one again before its pump thread has let go of it, nor the next one during its
    // handshake - and all ten must come before the stream ends: the client waits for the last
    // one before it closes.
    std::atomic<int> cuts{0};
    std::atomic<bool> cutting{true};
    client.before_close = [&] { eventually([&] { return !cutting.load(); }); };
    std::thread t([&] { client.run(cs); });
    std::mt19937_64 rng(std::random_device{}());
    for (int k = 1; k <= 10; ++k) {
        const std::uint64_t at = n * k / 11 + rng() % std::max<std::uint64_t>(1, n / 22);
        if (!eventually([&] {
                return client.progress.load() >= at &&
                       client.reconnects.load() == static_cast<std::uint64_t>(cuts.load()) &&
                       proxy.open() > 0;
            }))
            break;
        cuts += proxy.cut() > 0 ? 1 : 0;
    }
    cutting = false;
    t.join();
    EXPECT_EQ(cuts.load(), 10);
    ASSERT_FALSE(client.result) << client.error;
    EXPECT_EQ(client.stats.objects_acked, n);
    EXPECT_EQ(client.stats.reconnects, 10u);
    EXPECT_GE(proxy.connections(), 11);
    stop();
    EXPECT_EQ(expect_exact_streams(dir_, {{"cut-1", 11}}, {{"cut-1", n}}), n);
}

// A connection that breaks inside close() - after the goodbye was queued, before the daemon's
// goodbye came back - is resumed too: the welcome replays the unacknowledged frames, the
// goodbye follows them, and close() succeeds. (It used to fail with "handshake refused": the
// resumed sender is already closing, which the handshake took for a refusal.)
TEST_F(ResumeInProcess, ConnectionCutWhileClosingIsResumed) {
    const std::uint64_t n = 20'000;
    start();  // fsync interval: acks wait up to 100 ms, so frames are unacknowledged at the cut
    cutting_proxy proxy(port());
    auto cs = client_settings();
    cs.to_port = proxy.port();
    streaming_client client{"close-cut", 13, n};
    std::atomic<bool> at_close{false};
    std::atomic<bool> cut{false};
    client.before_close = [&] {
        at_close = true;
        eventually([&] { return cut.load(); });
    };
    std::thread t([&] { client.run(cs); });
    EXPECT_TRUE(eventually([&] { return at_close.load(); }));
    EXPECT_EQ(proxy.cut(), 1);
    cut = true;
    t.join();
    ASSERT_FALSE(client.result) << client.error;
    EXPECT_EQ(client.stats.objects_acked, n);
    EXPECT_EQ(client.stats.reconnects, 1u);
    stop();
    EXPECT_EQ(expect_exact_streams(dir_, {{"close-cut", 13}}, {{"close-cut", n}}), n);
}

// The retry window counts from the last progress, and a connection with nothing unacknowledged
// is not failing to progress: one idle for longer than the window after its open (say, one of
// a thousand opened before any sends) still has the whole window for its first ack. (It used
// to give up at once: the window had run from the open.)
TEST_F(ResumeInProcess, AnIdleSpellLongerThanTheRetryWindowIsNoFailure) {
    start();
    auto cs = client_settings();
    cs.resume_retry_for = std::chrono::seconds(2);
    client::connection c(cs, "idle");
    ASSERT_FALSE(c.open()) << c.last_error();
    pause_as_peer(std::chrono::milliseconds(2500));  // idle past the window, nothing in flight
    auto w = workloads::make("events", 5);
    message m;
    for (int i = 0; i < 5; ++i) {
        w->next(m);
        ASSERT_FALSE(c.send(m)) << c.last_error();
    }
    ASSERT_FALSE(c.flush()) << c.last_error();
    EXPECT_FALSE(c.close()) << c.last_error();
    EXPECT_EQ(c.stats().objects_acked, 5u);
    EXPECT_EQ(c.stats().reconnects, 0u);
    stop();
    EXPECT_EQ(stored().size(), 5u);
}

// A second, new stream for a sender id whose connection is still open is refused
// (sender_busy) and the first goes on; once the first ended, a new stream takes the id and
// continues after what the first stored. A sender id is never served twice.
TEST_F(ResumeInProcess, ANewStreamForALiveIdIsRefusedAndTakesItOnceFree) {
    start();
    auto cs = client_settings();
    cs.sender_id = "twice";
    auto w = workloads::make("events", 5);
    message m;
    client::connection first(cs, "first");
    ASSERT_FALSE(first.open()) << first.last_error();
    for (int i = 0; i < 1000; ++i) {
        w->next(m);
        ASSERT_FALSE(first.send(m));
    }
    ASSERT_FALSE(first.flush());
    // Left open: the daemon has a live connection for "twice".
    client::connection refused(cs, "second");
    EXPECT_EQ(refused.open(), proto_errc::sender_busy);
    EXPECT_NE(refused.last_error().find("held by a live connection"), std::string::npos)
        << refused.last_error();
    for (int i = 0; i < 1000; ++i) {
        w->next(m);
        ASSERT_FALSE(first.send(m));
    }
    ASSERT_FALSE(first.close()) << first.last_error();
    const std::uint64_t first_frames = first.stats().frames;
    client::connection second(cs, "second");
    ASSERT_FALSE(second.open()) << second.last_error();
    EXPECT_EQ(second.server().next_sequence, first_frames + 1);
    EXPECT_EQ(second.server().stored_objects, 2000u);
    for (int i = 0; i < 1000; ++i) {
        w->next(m);
        ASSERT_FALSE(second.send(m));
    }
    EXPECT_FALSE(second.close()) << second.last_error();
    stop();
    EXPECT_EQ(expect_exact_streams(dir_, {{"twice", 5}}, {{"twice", 3000}}), 3000u);
}

// The index is rebuilt from block headers at start: a restarted daemon welcomes a known
// sender after its last stored frame.
TEST_F(ResumeInProcess, RestartedDaemonKnowsWhereEachSenderStopped) {
    start();
    auto cs = client_settings();
    std::uint64_t frames = 0;
    for (const char* id : {"a", "b"}) {
        cs.sender_id = id;
        client::connection c(cs, "first");
        ASSERT_FALSE(c.open()) << c.last_error();
        auto w = workloads::make("events", 1);
        message msg;
        for (int i = 0; i < 3000; ++i) {
            w->next(msg);
            ASSERT_FALSE(c.send(msg));
        }
        ASSERT_FALSE(c.close()) << c.last_error();
        frames = c.stats().frames;
    }
    stop();
    start();
    cs = client_settings();
    cs.sender_id = "b";
    client::connection again(cs, "again");
    ASSERT_FALSE(again.open()) << again.last_error();
    EXPECT_EQ(again.server().next_sequence, frames + 1);
    cs.sender_id = "new";
    client::connection fresh(cs, "fresh");
    ASSERT_FALSE(fresh.open()) << fresh.last_error();
    EXPECT_EQ(fresh.server().next_sequence, 1u);
    EXPECT_NE(log_text().find("sender index: 2 sender ids"), std::string::npos);
}

}  // namespace
}  // namespace objwire::test
