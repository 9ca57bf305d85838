// objwired's network side: accepts connections on the configured address and runs one session
// coroutine per connection, each on its own strand. stop() is graceful: no new connections,
// every session finishes the frames it already received, acknowledges them and closes.
#pragma once

#include <asio.hpp>
#include <atomic>
#include <memory>
#include <set>
#include <system_error>

#include "config/settings.hpp"
#include "daemon/sink.hpp"
#include "daemon/table_budget_pool.hpp"

namespace objwire::daemon {

class session;

struct server_counters {
    std::atomic<std::uint64_t> connections_total{0};
    std::atomic<std::uint64_t> connections_open{0};
    std::atomic<std::uint64_t> connections_refused{0};
    std::atomic<std::uint64_t> objects_in{0};
    std::atomic<std::uint64_t> frames_in{0};
    std::atomic<std::uint64_t> bytes_in{0};
    std::atomic<std::uint64_t> protocol_errors{0};
};

class server {
  public:
    server(asio::io_context& io, config::daemon_settings settings);
    ~server();

    // Creates the data directory, opens the sink (recovering the journal), binds and starts
    // accepting.
    std::error_code start();
    asio::ip::tcp::endpoint local_endpoint() const;
    // Graceful stop; safe to call from any thread, more than once.
    void stop();

    const config::daemon_settings& settings() const { return settings_; }
    daemon::sink& sink() { return *sink_; }
    server_counters& counters() { return counters_; }
    table_budget_pool& table_budgets() { return table_budgets_; }

  private:
    friend class session;
    asio::awaitable<void> accept_loop();
    void forget(const std::shared_ptr<session>& s);

    asio::io_context& io_;
    config::daemon_settings settings_;
    asio::ip::tcp::acceptor acceptor_;
    std::unique_ptr<daemon::sink> sink_;
    server_counters counters_;
    table_budget_pool table_budgets_;
    std::mutex sessions_mutex_;
    std::set<std::shared_ptr<session>> sessions_;
    std::atomic<bool> stopping_{false};
};

}  // namespace objwire::daemon
