// A real objwired server running in-process on 127.0.0.1:0 with a fresh data directory, and a
// log capture, so tests can drive it with real sockets and read what it stored and logged.
#pragma once

#include <gtest/gtest.h>

#include <asio.hpp>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "client/workloads/workloads.hpp"
#include "config/settings.hpp"
#include "daemon/roles/standard_roles.hpp"
#include "daemon/serve/server.hpp"
#include "proto/value.hpp"
#include "tests/support/wait_until.hpp"

namespace objwire::test {

// The first n messages of a workload (client/workloads) with a seed: the same every time.
inline std::vector<message> generate(std::string_view workload, std::size_t n,
                                     std::uint64_t seed = 42) {
    auto w = workloads::make(workload, seed);
    std::vector<message> out(n);
    for (auto& m : out)
        w->next(m);
    return out;
}

class daemon_fixture : public ::testing::Test {
  protected:
    void SetUp() override;
    void TearDown() override;
    // Starts the server; tests may change settings_ first.
    void start();
    void stop();

    config::client_settings client_settings() const;
    std::uint16_t port() const { return port_; }
    daemon::server& server() { return *server_; }
    std::uint64_t table_budget_in_use() const { return server_->table_budgets().in_use(); }
    // Every stored object, read back from the configured sink (settings_.sink_kind): the
    // journal with its offline reader, or the JSON-lines file.
    std::vector<message> stored() const;
    std::string log_text() const;
    // Sends `per_sender` records Tagged{sender, i} on each of `senders` connections at once
    // and closes them; returns how many failed (open, send, close, or an object unacknowledged).
    int send_tagged_concurrently(int senders, int per_sender);
    // Checks that stored() holds each sender's Tagged records exactly once and in order,
    // `per_sender` of each.
    void expect_tagged_in_order(int senders, int per_sender) const;

    config::daemon_settings settings_;
    std::filesystem::path dir_;

  private:
    asio::io_context io_;
    std::unique_ptr<daemon::server> server_;
    std::vector<std::thread> threads_;
    std::uint16_t port_ = 0;
    std::shared_ptr<void> log_sink_;
};

}  // namespace objwire::test
