// The metrics endpoint: a tiny HTTP/1.0 server on an address of its own ([metrics] listen)
// that answers `GET /metrics` with the Prometheus text, 404 for other paths, 405 for other
// methods, and closes the connection after each answer. A request is bounded in size
// (max_request_bytes) and time (request_deadline), and at most max_clients are served at
// once, so a scraper that misbehaves cannot hold the daemon's memory or sockets.
#pragma once

#include <asio.hpp>
#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <system_error>

namespace objwire::daemon {

class metrics_http : public std::enable_shared_from_this<metrics_http> {
  public:
    static constexpr std::size_t max_request_bytes = 8192;
    static constexpr std::chrono::seconds request_deadline{5};
    static constexpr int max_clients = 16;

    using render_function = std::function<std::string()>;
    metrics_http(asio::io_context& io, render_function render);

    // Binds "HOST:PORT" (port 0 picks a free one) and starts serving.
    std::error_code start(const std::string& listen);
    asio::ip::tcp::endpoint local_endpoint() const;
    // Stops accepting; answers in progress finish. Any thread, more than once.
    void stop();

  private:
    asio::awaitable<void> accept_loop();
    asio::awaitable<void> serve(asio::ip::tcp::socket accepted);

    asio::io_context& io_;
    render_function render_;
    asio::strand<asio::io_context::executor_type> strand_;
    asio::ip::tcp::acceptor acceptor_;
    std::atomic<int> clients_{0};
    asio::ip::tcp::endpoint bound_;  // set once by start()
};

// The HTTP answer to one request's head (request line and headers); pure, for tests.
std::string metrics_http_answer(std::string_view request_head,
                                const metrics_http::render_function& render);

}  // namespace objwire::daemon
