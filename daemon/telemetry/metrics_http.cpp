#include "daemon/telemetry/metrics_http.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <asio/experimental/as_tuple.hpp>
#include <cctype>

#include "config/settings.hpp"

namespace objwire::daemon {
namespace {

constexpr auto use_tuple = asio::experimental::as_tuple(asio::use_awaitable);

std::string response(std::string_view status, std::string_view content_type,
                     std::string_view body) {
    return fmt::format(
        "HTTP/1.0 {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{}",
        status, content_type, body.size(), body);
}

bool same_ignoring_case(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) ==
                      std::tolower(static_cast<unsigned char>(y));
           });
}

// The token of the head's "Authorization: Bearer TOKEN" header, or "".
std::string_view bearer_of(std::string_view head) {
    std::size_t at = head.find('\n');
    while (at != std::string_view::npos && at + 1 < head.size()) {
        const auto end = head.find('\n', at + 1);
        auto line = head.substr(at + 1, end == std::string_view::npos ? end : end - at - 1);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        const auto colon = line.find(':');
        if (colon != std::string_view::npos &&
            same_ignoring_case(line.substr(0, colon), "authorization")) {
            auto value = line.substr(colon + 1);
            while (!value.empty() && value.front() == ' ')
                value.remove_prefix(1);
            if (value.size() > 7 && same_ignoring_case(value.substr(0, 7), "bearer "))
                return value.substr(7);
            return {};
        }
        at = end;
    }
    return {};
}

constexpr const char* unauthorized_body =
    "/metrics needs 'Authorization: Bearer TOKEN' (metrics.bearer_token_file)\n";

}  // namespace

std::string metrics_http_answer(std::string_view head, const metrics_http::render_function& render,
                                const metrics_http::ready_function& ready,
                                const metrics_http::authorize_function& authorize) {
    const auto line_end = head.find("\r\n");
    const std::string_view line = head.substr(0, line_end);
    const auto sp1 = line.find(' ');
    const auto sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
    if (sp1 == std::string_view::npos || sp2 == std::string_view::npos)
        return response("400 Bad Request", "text/plain", "bad request line\n");
    const auto method = line.substr(0, sp1);
    auto target = line.substr(sp1 + 1, sp2 - sp1 - 1);
    target = target.substr(0, target.find('?'));  // scrapers may add parameters
    if (method != "GET" && method != "HEAD")
        return response("405 Method Not Allowed", "text/plain", "only GET\n");
    std::string text;
    if (target == "/metrics" && authorize && !authorize(bearer_of(head)))
        return fmt::format(
            "HTTP/1.0 401 Unauthorized\r\nWWW-Authenticate: Bearer\r\nContent-Type: text/plain\r\n"
            "Content-Length: {}\r\nConnection: close\r\n\r\n{}",
            std::string_view(unauthorized_body).size(), unauthorized_body);
    if (target == "/metrics")
        text = response("200 OK", "text/plain; version=0.0.4; charset=utf-8", render());
    else if (target == "/healthz")
        text = response("200 OK", "text/plain", "alive\n");
    else if (target == "/readyz")
        text = !ready || ready() ? response("200 OK", "text/plain", "ready\n")
                                 : response("503 Service Unavailable", "text/plain",
                                            "not ready: not listening or the store is closed\n");
    else
        return response("404 Not Found", "text/plain",
                        "metrics are at /metrics; /healthz, /readyz\n");
    if (method == "HEAD") text.resize(text.find("\r\n\r\n") + 4);
    return text;
}

metrics_http::metrics_http(asio::io_context& io, render_function render, ready_function ready,
                           authorize_function authorize)
    : io_(io),
      render_(std::move(render)),
      ready_(std::move(ready)),
      authorize_(std::move(authorize)),
      strand_(asio::make_strand(io)),
      acceptor_(strand_) {}

std::error_code metrics_http::start(const std::string& listen) {
    auto hp = config::parse_host_port(listen);
    if (!hp) {
        spdlog::error("metrics.listen '{}': {}", listen, hp.error().message);
        return std::make_error_code(std::errc::invalid_argument);
    }
    std::error_code ec;
    asio::ip::tcp::resolver resolver(io_);
    auto results = resolver.resolve(hp->host, std::to_string(hp->port), ec);
    if (ec || results.empty()) {
        spdlog::error("metrics: cannot resolve '{}': {}", hp->host, ec.message());
        return ec ? ec : std::make_error_code(std::errc::address_not_available);
    }
    const asio::ip::tcp::endpoint endpoint = results.begin()->endpoint();
    acceptor_.open(endpoint.protocol(), ec);
    if (!ec) acceptor_.set_option(asio::socket_base::reuse_address(true), ec);
    if (!ec) acceptor_.bind(endpoint, ec);
    if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
    if (ec) {
        spdlog::error("metrics: cannot listen on {}: {}", listen, ec.message());
        std::error_code ignored;
        acceptor_.close(ignored);
        return ec;
    }
    bound_ = acceptor_.local_endpoint();
    spdlog::info("metrics on http://{}:{}/metrics", bound_.address().to_string(), bound_.port());
    asio::co_spawn(strand_, accept_loop(), asio::detached);
    return {};
}

asio::ip::tcp::endpoint metrics_http::local_endpoint() const {
    return bound_;
}

void metrics_http::stop() {
    asio::post(strand_, [self = shared_from_this()] {
        std::error_code ignored;
        self->acceptor_.close(ignored);
    });
}

asio::awaitable<void> metrics_http::accept_loop() {
    auto self = shared_from_this();
    for (;;) {
        auto [ec, socket] = co_await acceptor_.async_accept(strand_, use_tuple);
        if (ec) {
            if (ec == asio::error::operation_aborted || !acceptor_.is_open()) co_return;
            spdlog::warn("metrics: accept failed: {}", ec.message());
            continue;
        }
        if (clients_ >= max_clients && !shed_oldest_reader()) {
            std::error_code ignored;
            socket.close(ignored);
            continue;
        }
        ++clients_;
        asio::co_spawn(strand_, serve(std::make_shared<asio::ip::tcp::socket>(std::move(socket))),
                       [self](std::exception_ptr) { --self->clients_; });
    }
}

bool metrics_http::shed_oldest_reader() {
    while (!readers_.empty()) {
        auto oldest = readers_.begin()->second.lock();
        readers_.erase(readers_.begin());
        if (!oldest || !oldest->is_open()) continue;
        std::error_code ignored;
        oldest->close(ignored);  // its serve() ends and gives its slot back
        return true;
    }
    return false;
}

// Reads the request head (up to the empty line) within the deadline and the size bound,
// answers, closes. Shared with the deadline's handler, which may be queued when this ends.
asio::awaitable<void> metrics_http::serve(std::shared_ptr<asio::ip::tcp::socket> socket) {
    auto self = shared_from_this();
    asio::steady_timer deadline(strand_);
    deadline.expires_after(request_deadline);
    deadline.async_wait([socket](std::error_code ec) {
        if (ec) return;
        std::error_code ignored;
        socket->close(ignored);
    });
    const auto reader = next_reader_++;
    readers_.emplace(reader, socket);
    std::string request;
    char block[1024];
    auto head_complete = [&] {
        return request.find("\r\n\r\n") != std::string::npos ||
               request.find("\n\n") != std::string::npos;
    };
    while (!head_complete() && request.size() < max_request_bytes) {
        auto [ec, n] = co_await socket->async_read_some(asio::buffer(block), use_tuple);
        if (ec) break;
        request.append(block, n);
    }
    readers_.erase(reader);  // not there once shed
    std::string reply;
    if (head_complete())
        reply = metrics_http_answer(request, render_, ready_, authorize_);
    else if (request.size() >= max_request_bytes)
        reply = response("431 Request Header Fields Too Large", "text/plain", "too large\n");
    if (!reply.empty() && socket->is_open())
        co_await asio::async_write(*socket, asio::buffer(reply), use_tuple);
    deadline.cancel();
    std::error_code ignored;
    socket->shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
    socket->close(ignored);
}

}  // namespace objwire::daemon
