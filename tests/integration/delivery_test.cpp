// Objects sent through a real daemon arrive in its sink exactly once, in order, intact.
#include <gtest/gtest.h>

#include <objwire/connection.hpp>
#include "client/workloads/workloads.hpp"
#include "daemon_fixture.hpp"

namespace objwire::test {
namespace {

class Delivery : public daemon_fixture {};

TEST_F(Delivery, TenThousandPersonsStoredExactlyOnceInOrder) {
    start();
    auto sent = generate("person", 10'000);
    client::connection c(client_settings(), "delivery-test");
    ASSERT_FALSE(c.open()) << c.last_error();
    for (const auto& m : sent)
        ASSERT_FALSE(c.send(m)) << c.last_error();
    ASSERT_FALSE(c.close()) << c.last_error();
    EXPECT_EQ(c.stats().objects_acked, 10'000u);
    // Names and the type travel once: the whole stream is under 12 bytes an object.
    EXPECT_LT(static_cast<double>(c.stats().wire_bytes_out) / 10'000, 12.0);
    stop();
    EXPECT_EQ(stored(), sent);
}

// A producer that goes quiet after one object and polls for acks: the batch is written once
// it has waited batch.linger (by linger or by poll(), whichever comes first), once.
TEST_F(Delivery, AnIdleProducersLastObjectLeavesOnPoll) {
    start();
    auto settings = client_settings();
    settings.batch_linger = std::chrono::milliseconds(5);
    client::connection c(settings);
    ASSERT_FALSE(c.open()) << c.last_error();
    const auto sent = generate("person", 1);
    ASSERT_FALSE(c.send(sent[0])) << c.last_error();
    for (int i = 0; i < 1000 && c.stats().objects_acked == 0; ++i)  // bounded: 10 s
        ASSERT_FALSE(c.poll(std::chrono::milliseconds(10))) << c.last_error();
    EXPECT_EQ(c.stats().objects_acked, 1u);
    EXPECT_EQ(c.stats().frames, 1u);
    ASSERT_FALSE(c.close()) << c.last_error();
    stop();
    EXPECT_EQ(stored(), sent);
}

TEST_F(Delivery, GraphsKeepIdentityThroughTheDaemon) {
    start();
    auto sent = generate("graph", 20);
    client::connection c(client_settings());
    ASSERT_FALSE(c.open()) << c.last_error();
    for (const auto& m : sent)
        ASSERT_FALSE(c.send(m)) << c.last_error();
    ASSERT_FALSE(c.close()) << c.last_error();
    stop();
    auto got = stored();
    ASSERT_EQ(got.size(), sent.size());
    for (std::size_t i = 0; i < got.size(); ++i)
        EXPECT_EQ(got[i], canonical(sent[i]));
}

TEST_F(Delivery, ManyConcurrentSendersEachDeliverEverything) {
    start();
    EXPECT_EQ(send_tagged_concurrently(8, 2'000), 0);
    stop();
    expect_tagged_in_order(8, 2'000);  // per sender, every object exactly once and in order
}

TEST_F(Delivery, TableBudgetsOfAllConnectionsStayUnderTheDaemonWideCap) {
    settings_.table_budget = 64 * 1024;
    settings_.table_budget_total = 65 * 1024;
    start();
    auto first = std::make_unique<client::connection>(client_settings());
    auto second = std::make_unique<client::connection>(client_settings());
    client::connection third(client_settings());
    ASSERT_FALSE(first->open());
    ASSERT_FALSE(second->open());
    ASSERT_FALSE(third.open());
    EXPECT_EQ(first->server().limits.table_budget, 64u * 1024);
    // 1 KiB left, under a quarter of the total: a reduced grant, at most what is left.
    EXPECT_EQ(second->server().limits.table_budget, 1024u);
    EXPECT_EQ(third.server().limits.table_budget, 0u);  // works, without references
    auto sent = generate("person", 500);
    for (const auto& m : sent)
        ASSERT_FALSE(third.send(m)) << third.last_error();
    ASSERT_FALSE(third.close()) << third.last_error();
    EXPECT_EQ(third.stats().objects_acked, 500u);
    EXPECT_EQ(third.table().inserts, 0u);  // every string and type spelled out each time
    EXPECT_EQ(third.table().hits, 0u);
    // A closed connection gives its share back (when its session ends, just after the goodbye).
    ASSERT_FALSE(first->close());
    first.reset();
    wait_until([&] { return table_budget_in_use() == 1024; });
    EXPECT_EQ(table_budget_in_use(), 1024u);
    ASSERT_FALSE(second->close());
    second.reset();
    wait_until([&] { return table_budget_in_use() == 0; });
    client::connection fourth(client_settings());
    ASSERT_FALSE(fourth.open());
    EXPECT_EQ(fourth.server().limits.table_budget, 64u * 1024);
    ASSERT_FALSE(fourth.close());
}

TEST_F(Delivery, StopFinishesReceivedFramesAndLogsIt) {
    start();
    client::connection c(client_settings());
    ASSERT_FALSE(c.open()) << c.last_error();
    for (const auto& m : generate("person", 1'000))
        ASSERT_FALSE(c.send(m));
    ASSERT_FALSE(c.flush());
    // Wait for the ack of what was flushed, then stop the daemon under the open connection.
    stop();
    EXPECT_EQ(stored().size(), 1'000u);
    EXPECT_NE(log_text().find("stopping: 1 connections to finish"), std::string::npos)
        << log_text();
}

}  // namespace
}  // namespace objwire::test
