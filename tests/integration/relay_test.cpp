// A relay chain: client -> daemon A (sink.kind = "forward") -> daemon B (journal). B's journal
// holds every object exactly once, in order; A acknowledges only what B acknowledged.
#include <gtest/gtest.h>

#include <thread>

#include <objwire/connection.hpp>
#include "client/workloads/workloads.hpp"
#include "daemon/store/journal_reader.hpp"
#include "daemon_fixture.hpp"
#include "in_process_daemon.hpp"

namespace objwire::test {
namespace {

// The relay, daemon A (in_process_daemon), forwards to the fixture's daemon (B).
class Relay : public daemon_fixture {
  protected:
    config::daemon_settings relay_settings() const {
        config::daemon_settings a;
        a.listen_host = "127.0.0.1";
        a.listen_port = 0;
        a.data_dir = (dir_ / "relay").string();
        a.metrics_listen = "";
        a.sink_kind = "forward";
        a.forward_to = "127.0.0.1:" + std::to_string(port());
        return a;
    }
};

TEST_F(Relay, EventsThroughTwoDaemonsArriveExactlyOnceInOrder) {
    start();  // B
    in_process_daemon a(relay_settings());
    ASSERT_NE(a.port(), 0);
    const auto sent = generate("events", 20'000, 7);
    auto cs = client_settings();
    cs.to_port = a.port();
    cs.sender_id = "relay-test";
    client::connection c(cs, "relay-test");
    ASSERT_FALSE(c.open()) << c.last_error();
    EXPECT_EQ(c.server().sink, "forward:127.0.0.1:" + std::to_string(port()));
    for (const auto& m : sent)
        ASSERT_FALSE(c.send(m)) << c.last_error();
    ASSERT_FALSE(c.close()) << c.last_error();
    EXPECT_EQ(c.stats().objects_acked, sent.size());
    a.stop();
    stop();

    daemon::journal_reader r(dir_);
    message m;
    std::size_t i = 0;
    while (r.next(m)) {
        ASSERT_LT(i, sent.size()) << "more objects in B's journal than were sent";
        ASSERT_EQ(m, sent[i]) << "object " << i;
        EXPECT_EQ(r.sender_id(), "relay-test@127.0.0.1:0");
        ++i;
    }
    EXPECT_FALSE(r.error()) << r.error_detail();
    EXPECT_EQ(i, sent.size());
}

TEST_F(Relay, NothingIsAcknowledgedWhenTheNextHopIsDown) {
    start();
    const auto b_port = port();
    stop();  // B is gone: A cannot forward
    auto a_settings = relay_settings();
    a_settings.forward_to = "127.0.0.1:" + std::to_string(b_port);
    in_process_daemon a(a_settings);
    ASSERT_NE(a.port(), 0);
    auto cs = client_settings();
    cs.to_port = a.port();
    cs.resume_retry_for = std::chrono::milliseconds(0);  // the client must not retry here
    client::connection c(cs, "relay-test");
    ASSERT_FALSE(c.open()) << c.last_error();
    for (const auto& m : generate("person", 1'000, 1))
        if (c.send(m)) break;
    EXPECT_TRUE(c.close());
    EXPECT_EQ(c.stats().objects_acked, 0u);
    EXPECT_NE(log_text().find("forward to 127.0.0.1:" + std::to_string(b_port)), std::string::npos)
        << log_text();
}

}  // namespace
}  // namespace objwire::test
