// The connection's linger timer and its use from several threads: a producer that sends one
// object and makes no further send, flush, poll or close call has it written when its batch
// has waited batch.linger and acknowledged soon after; four threads sending on one connection
// deliver every object once, each thread's in its order.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include <objwire/connection.hpp>
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

}  // namespace
}  // namespace objwire::test
