#include "daemon/server.hpp"

#include <spdlog/spdlog.h>

#include <asio/experimental/as_tuple.hpp>

#include "daemon/session.hpp"

namespace objwire::daemon {
namespace {
constexpr auto use_tuple = asio::experimental::as_tuple(asio::use_awaitable);
}

server::server(asio::io_context& io, config::daemon_settings settings)
    : io_(io),
      settings_(std::move(settings)),
      acceptor_(io),
      table_budgets_(settings_.table_budget_total),
      store_quota_(settings_.sender_stored_quota) {}

server::~server() = default;

std::error_code server::start() {
    if (auto access_error = load_access()) return access_error;
    std::error_code ec;
    std::filesystem::create_directories(settings_.data_dir, ec);
    if (ec) {
        spdlog::error("cannot create data directory '{}': {}", settings_.data_dir, ec.message());
        return ec;
    }
    sink_ = open_sink(settings_, ec);
    if (!sink_) return ec;
    if ((ec = sink_->recall_senders(senders_))) {
        spdlog::error("cannot read the sender index: {}", ec.message());
        return ec;
    }
    auto address = asio::ip::make_address(settings_.listen_host, ec);
    if (ec) {
        // A host name: resolve it to its first address.
        asio::ip::tcp::resolver resolver(io_);
        auto results =
            resolver.resolve(settings_.listen_host, std::to_string(settings_.listen_port), ec);
        if (ec || results.empty()) {
            spdlog::error("cannot resolve listen address '{}': {}", settings_.listen_host,
                          ec.message());
            return ec ? ec : std::make_error_code(std::errc::address_not_available);
        }
        address = results.begin()->endpoint().address();
    }
    asio::ip::tcp::endpoint endpoint(address, settings_.listen_port);
    acceptor_.open(endpoint.protocol(), ec);
    if (!ec) acceptor_.set_option(asio::socket_base::reuse_address(true), ec);
    if (!ec) acceptor_.bind(endpoint, ec);
    if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
    if (ec) {
        spdlog::error("cannot listen on {}:{}: {}", settings_.listen_host, settings_.listen_port,
                      ec.message());
        return ec;
    }
    auto bound = acceptor_.local_endpoint();
    spdlog::info("listening on {}:{} (data directory '{}', sink {})", bound.address().to_string(),
                 bound.port(), settings_.data_dir, sink_->describe());
    start_time_seconds_ =
        std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    start_metrics_http(settings_.metrics_listen);
    asio::co_spawn(io_, accept_loop(), asio::detached);
    return {};
}

asio::ip::tcp::endpoint server::local_endpoint() const {
    std::error_code ec;
    return acceptor_.local_endpoint(ec);
}

asio::awaitable<void> server::accept_loop() {
    while (!stopping_) {
        auto [ec, socket] = co_await acceptor_.async_accept(asio::make_strand(io_), use_tuple);
        if (ec) {
            if (ec == asio::error::operation_aborted || stopping_) break;
            spdlog::warn("accept failed: {}", ec.message());
            continue;
        }
        if (counters_.connections_open >= settings().max_connections) {
            ++counters_.connections_refused;
            std::error_code ignored;
            auto ep = socket.remote_endpoint(ignored);
            spdlog::warn("{}:{}: refused: {} connections open (server.max_connections)",
                         ep.address().to_string(), ep.port(), settings().max_connections);
            socket.close(ignored);
            continue;
        }
        std::error_code no_peer;
        const auto remote = socket.remote_endpoint(no_peer);
        const std::string address = remote.address().to_string();
        if (!addresses_.try_acquire(address, settings().max_connections_per_address)) {
            ++counters_.connections_refused;
            spdlog::warn(
                "{}:{}: refused: {} connections open from {} "
                "(limits.max_connections_per_address)",
                address, remote.port(), settings().max_connections_per_address, address);
            std::error_code ignored;
            socket.close(ignored);
            continue;
        }
        socket.set_option(asio::ip::tcp::no_delay(true), ec);
        auto s = std::make_shared<session>(*this, std::move(socket));
        {
            std::lock_guard lock(sessions_mutex_);
            sessions_.insert(s);
        }
        ++counters_.connections_total;
        ++counters_.connections_open;
        auto executor = s->run_executor();
        asio::co_spawn(executor, s->run(), [this, s, address](std::exception_ptr e) {
            if (e) {
                try {
                    std::rethrow_exception(e);
                } catch (const std::exception& ex) {
                    spdlog::error("{}: session ended by exception: {}", s->peer(), ex.what());
                }
            }
            addresses_.release(address);
            forget(s);
        });
    }
}

void server::forget(const std::shared_ptr<session>& s) {
    --counters_.connections_open;
    std::lock_guard lock(sessions_mutex_);
    sessions_.erase(s);
}

void server::stop() {
    if (stopping_.exchange(true)) return;
    asio::post(io_, [this] {
        std::error_code ignored;
        acceptor_.close(ignored);
    });
    stop_metrics_http();
    std::lock_guard lock(sessions_mutex_);
    spdlog::info("stopping: {} connections to finish", sessions_.size());
    for (const auto& s : sessions_)
        s->stop();
}

}  // namespace objwire::daemon
