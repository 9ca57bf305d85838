// The metrics endpoint: a tiny HTTP/1.0 server on an address of its own ([metrics] listen)
// that answers `GET /metrics` with the Prometheus text, `/healthz` (alive: 200) and `/readyz`
// (200 when ready, else 503), 404 for other paths, 405 for other methods, and closes the
// connection after each answer. A request is bounded in size (max_request_bytes) and time
// (request_deadline), and at most max_clients are served at once. A new connection when all
// are taken sheds the oldest one still sending its request head, so slow or idle connections
// cannot keep a scraper out: a request that is whole is answered at once and never shed.
#pragma once

#include <asio.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
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
    using ready_function = std::function<bool()>;
    // Whether a bearer token may see /metrics (metrics.bearer_token_file); none: anyone may.
    using authorize_function = std::function<bool(std::string_view bearer)>;
    metrics_http(asio::io_context& io, render_function render, ready_function ready,
                 authorize_function authorize = {});

    // Binds "HOST:PORT" (port 0 picks a free one) and starts serving.
    std::error_code start(const std::string& listen);
    asio::ip::tcp::endpoint local_endpoint() const;
    // Stops accepting; answers in progress finish. Any thread, more than once.
    void stop();

  private:
    asio::awaitable<void> accept_loop();
    asio::awaitable<void> serve(std::shared_ptr<asio::ip::tcp::socket> socket);
    // Closes the connection that has waited longest for its request head; false if none.
    bool shed_oldest_reader();

    asio::io_context& io_;
    render_function render_;
    ready_function ready_;
    authorize_function authorize_;
    // Every connection runs on strand_, so the accept loop may close a reader's socket.
    asio::strand<asio::io_context::executor_type> strand_;
    asio::ip::tcp::acceptor acceptor_;
    int clients_ = 0;
    // Connections still reading their request head, by when they came, oldest first
    // (strand_ only).
    std::map<std::uint64_t, std::weak_ptr<asio::ip::tcp::socket>> readers_;
    std::uint64_t next_reader_ = 0;
    asio::ip::tcp::endpoint bound_;  // set once by start()
};

// The HTTP answer to one request's head (request line and headers); pure, for tests.
// `ready` answers /readyz; none: ready. `authorize`, when given, must accept the request's
// "Authorization: Bearer TOKEN" for /metrics (else 401); /healthz and /readyz stay open.
std::string metrics_http_answer(std::string_view request_head,
                                const metrics_http::render_function& render,
                                const metrics_http::ready_function& ready = {},
                                const metrics_http::authorize_function& authorize = {});

}  // namespace objwire::daemon
