// The connection's linger timer and its use from several threads: a producer that sends one
// object and makes no further send, flush, poll or close call has it written when its batch
// has waited batch.linger and acknowledged soon after; four threads sending on one connection
// deliver every object once, each thread's in its order.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <memory>
#include <thread>
#include <vector>

#include <objwire/connection.hpp>
#include "client/lib/linger_service.hpp"
#include "client/workloads/workloads.hpp"
#include "daemon_fixture.hpp"

namespace objwire::test {
namespace {

class LingerThread : public daemon_fixture {};

// Bounded: a deadline, watching the acknowledged count (a metric) - nothing but stats() is
// called meanwhile, and stats() only reads.
bool acked_within(const client::connection& c, std::uint64_t objects,
                  std::chrono::steady_clock::time_point deadline) {
    while (c.stats().objects_acked < objects) {
        if (std::chrono::steady_clock::now() >= deadline) return false;
        std::this_thread::yield();
    }
    return true;
}

TEST_F(LingerThread, AQuietProducersObjectIsAcknowledgedWithinLingerWithNoFurtherCall) {
    start();
    auto settings = client_settings();
    settings.batch_linger = std::chrono::milliseconds(50);
    client::connection c(settings);
    ASSERT_FALSE(c.open()) << c.last_error();
    auto w = workloads::make("person");
    message m;
    w->next(m);
    const auto sent_at = std::chrono::steady_clock::now();
    ASSERT_FALSE(c.send(m)) << c.last_error();
    // Linger plus a generous bound for the round trip and the daemon's fsync.
    ASSERT_TRUE(acked_within(c, 1, sent_at + settings.batch_linger + std::chrono::seconds(3)))
        << "acknowledged " << c.stats().objects_acked << " of 1";
    EXPECT_EQ(c.stats().frames, 1u);
    ASSERT_FALSE(c.close()) << c.last_error();
    stop();
    ASSERT_EQ(stored().size(), 1u);
}

// The linger thread ends a connection whose daemon went away and stays away past
// resume.retry_for while the caller makes no call; is_open() says so as it happens. It reads the
// connection's phase, an atomic the linger thread writes: under ThreadSanitizer
// (scripts/tsan.sh) this is where a plain flag read without the mutex was a data race.
TEST_F(LingerThread, IsOpenTurnsFalseWhenTheLingerThreadGivesUp) {
    start();
    auto settings = client_settings();
    settings.resume_retry_for = std::chrono::milliseconds(300);
    client::connection c(settings);
    ASSERT_FALSE(c.open()) << c.last_error();
    stop();
    auto w = workloads::make("person");
    message m;
    w->next(m);
    ASSERT_FALSE(c.send(m)) << c.last_error();  // queued: the linger thread writes it
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (c.is_open() && std::chrono::steady_clock::now() < deadline)
        std::this_thread::yield();
    EXPECT_FALSE(c.is_open());
    EXPECT_TRUE(c.close());
    EXPECT_NE(c.last_error().find("resume.retry_for"), std::string::npos) << c.last_error();
}

TEST_F(LingerThread, FourThreadsOnOneConnectionDeliverEveryObjectOnceInOrder) {
    start();
    constexpr int threads = 4, per_thread = 3'000;
    client::connection c(client_settings(), "shared-producer");
    ASSERT_FALSE(c.open()) << c.last_error();
    std::atomic<int> failures{0};
    std::vector<std::thread> senders;
    for (int s = 0; s < threads; ++s)
        senders.emplace_back([&, s] {
            auto type = make_record_type("Tagged", {"sender", "i"});
            for (int i = 0; i < per_thread; ++i)
                if (c.send({make_record(type, {s, i}), {}})) return void(++failures);
        });
    for (auto& t : senders)
        t.join();
    EXPECT_EQ(failures.load(), 0) << c.last_error();
    ASSERT_FALSE(c.close()) << c.last_error();
    EXPECT_EQ(c.stats().objects_acked, static_cast<std::uint64_t>(threads * per_thread));
    stop();
    expect_tagged_in_order(threads, per_thread);
}

// A later success clears the message of an earlier refusal.
TEST_F(LingerThread, LastErrorIsClearedByALaterSuccess) {
    settings_.max_string_bytes = 64;
    start();
    client::connection c(client_settings());
    ASSERT_FALSE(c.open()) << c.last_error();
    auto type = make_record_type("Text", {"s"});
    EXPECT_TRUE(c.send({make_record(type, {std::string(1000, 'x')}), {}}));
    EXPECT_NE(c.last_error(), "");
    ASSERT_FALSE(c.send({make_record(type, {std::string("ok")}), {}})) << c.last_error();
    EXPECT_EQ(c.last_error(), "");
    ASSERT_FALSE(c.close()) << c.last_error();
}

std::size_t threads_of_this_process() {
    std::size_t n = 0;
    for ([[maybe_unused]] const auto& t : std::filesystem::directory_iterator("/proc/self/task"))
        ++n;
    return n;
}

long voluntary_switches() {
    rusage u{};
    ::getrusage(RUSAGE_SELF, &u);
    return u.ru_nvcsw;
}

// Linger waiting for acks sleeps until they come (or the caller calls in): it has no timer
// slice of its own, and no thread per connection - the process's linger service watches the
// sockets. 100 connections whose acks are held back (the journal syncs once an hour) and which
// the caller leaves alone hold no thread each and make next to no context switches in a
// second; with a 20 ms slice each they made 5,000, and with a thread each they held 100.
// Counted in threads and switches, not time: bounded whatever the machine's speed.
TEST_F(LingerThread, ConnectionsWaitingForAcksHoldNoThreadAndDoNotWakeOnATimer) {
    constexpr int connections = 100;
    settings_.journal_fsync_interval = std::chrono::hours(1);
    settings_.max_connections_per_address = connections;
    start();
    auto w = workloads::make("events", 3);
    message m;
    {  // the journal's first sync comes at once; after this one the next is an hour away
        client::connection first(client_settings());
        w->next(m);
        ASSERT_FALSE(first.open() || first.send(m) || first.close()) << first.last_error();
    }
    const std::size_t threads_before = threads_of_this_process();
    std::vector<std::unique_ptr<client::connection>> open;
    for (int i = 0; i < connections; ++i) {
        open.push_back(std::make_unique<client::connection>(client_settings()));
        ASSERT_FALSE(open.back()->open()) << open.back()->last_error();
        w->next(m);
        ASSERT_FALSE(open.back()->send(m)) << open.back()->last_error();
    }
    // Every batch written by linger, none acknowledged: each connection now waits.
    ASSERT_TRUE(wait_until([&] {
        for (const auto& c : open)
            if (c->stats().frames != 1) return false;
        return true;
    }));
    for (const auto& c : open)
        ASSERT_EQ(c->stats().objects_acked, 0u);
    // The service's thread, and the threads that wrote the batches until they have ended.
    EXPECT_TRUE(wait_until([&] { return threads_of_this_process() <= threads_before + 1; }))
        << threads_of_this_process() - threads_before << " more threads for " << connections
        << " connections waiting for acks";
    const long before = voluntary_switches();
    pause_as_peer(std::chrono::seconds(1));  // the callers stay away for a second
    const long switches = voluntary_switches() - before;
    EXPECT_LT(switches, 1000) << "context switches in a second of waiting";
    for (const auto& c : open) {  // the goodbye has the daemon sync: every ack comes
        EXPECT_FALSE(c->close()) << c->last_error();
        EXPECT_EQ(c->stats().objects_acked, 1u);
    }
    stop();
    EXPECT_EQ(stored().size(), static_cast<std::size_t>(connections + 1));
}

// The linger service is shared by every connection of the process and ends with the last one:
// connections opened, left quiet until linger has written and acknowledged their object, and
// closed, from 16 threads at once, deliver every object, and leave the service with no client.
// Under ThreadSanitizer (scripts/tsan.sh) this is where enrolling and withdrawing race the
// service's thread starting and ending.
TEST_F(LingerThread, ConnectionsComingAndGoingOnManyThreadsShareTheService) {
    constexpr int threads = 16, rounds = 8;
    start();
    std::atomic<int> failures{0};
    std::vector<std::thread> workers;
    for (int t = 0; t < threads; ++t)
        workers.emplace_back([&] {
            auto w = workloads::make("person", 7);
            message m;
            for (int r = 0; r < rounds; ++r) {
                client::connection c(client_settings());
                w->next(m);
                const bool ok =
                    !c.open() && !c.send(m) &&
                    acked_within(c, 1,
                                 std::chrono::steady_clock::now() + std::chrono::seconds(20)) &&
                    !c.close();
                if (!ok) ++failures;
            }
        });
    for (auto& w : workers)
        w.join();
    EXPECT_EQ(failures.load(), 0);
    EXPECT_EQ(client::linger_service::instance().clients(), 0u);
    stop();
    EXPECT_EQ(stored().size(), static_cast<std::size_t>(threads * rounds));
}

}  // namespace
}  // namespace objwire::test
