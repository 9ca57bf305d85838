// A second objwired in the test's process, beside daemon_fixture's: its own io_context and
// threads, on 127.0.0.1 as its settings say. A relay in front of the fixture's daemon, for one.
#pragma once

#include <asio.hpp>
#include <memory>
#include <thread>
#include <vector>

#include "config/settings.hpp"
#include "daemon/roles/standard_roles.hpp"
#include "daemon/serve/server.hpp"

namespace objwire::test {

class in_process_daemon {
  public:
    // Started when port() is not 0.
    explicit in_process_daemon(config::daemon_settings settings) {
        server_ =
            std::make_unique<daemon::server>(io_, std::move(settings), daemon::standard_roles());
        if (server_->start()) return;
        port_ = server_->local_endpoint().port();
        for (int i = 0; i < 2; ++i)
            threads_.emplace_back([this] { io_.run(); });
    }
    ~in_process_daemon() { stop(); }
    in_process_daemon(const in_process_daemon&) = delete;
    in_process_daemon& operator=(const in_process_daemon&) = delete;

    void stop() {
        if (!server_) return;
        server_->stop();
        for (auto& t : threads_)
            t.join();
        threads_.clear();
        server_.reset();
    }
    std::uint16_t port() const { return port_; }
    daemon::server& server() { return *server_; }

  private:
    asio::io_context io_;
    std::unique_ptr<daemon::server> server_;
    std::vector<std::thread> threads_;
    std::uint16_t port_ = 0;
};

}  // namespace objwire::test
