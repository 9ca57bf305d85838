#include "daemon/serve/server.hpp"

#include "daemon/serve/idle_shedding.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <asio/experimental/as_tuple.hpp>
#include <cstdlib>
#include <utility>

#include "client/lib/descriptor_limit.hpp"
#include "daemon/serve/accept_backoff.hpp"
#include "daemon/serve/session.hpp"
#include "daemon/telemetry/process_metrics.hpp"
#include "daemon/telemetry/warning_log.hpp"
#include "proto/errors.hpp"

namespace objwire::daemon {
namespace {
constexpr auto use_tuple = asio::experimental::as_tuple(asio::use_awaitable);
}

server::server(asio::io_context& io, config::daemon_settings settings, role_table roles)
    : io_(io),
      settings_(std::move(settings)),
      roles_(std::move(roles)),
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
    sink_ = open_sink(settings_, ec, readable_);
    if (!sink_) return ec;
    if ((ec = sink_->recall_senders(senders_))) {
        spdlog::error("cannot read the sender index: {}", ec.message());
        return ec;
    }
    if (!sink_->shared()) {
        fences_.emplace(std::filesystem::path(settings_.data_dir) / "stream_fences");
        if ((ec = fences_->recall(senders_))) {
            spdlog::error("cannot read or rewrite '{}': {}", fences_->file().string(),
                          ec.message());
            return ec;
        }
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
    // The spare's accept (refuse_with_spare) must not wait for a peer that went away.
    if (!ec) acceptor_.non_blocking(true, ec);
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
    accept_backoff backoff;
    asio::steady_timer pause(io_);
    while (!stopping_) {
        spare_.take();  // given up for a refusal: back once that socket is closed
        auto [ec, accepted] = co_await acceptor_.async_accept(asio::make_strand(io_), use_tuple);
        if (ec) {
            if (ec == asio::error::operation_aborted || stopping_) break;
            const bool none_waiting = pending_.waiting() == 0;
            const auto d = backoff.on_error(
                ec, accept_backoff::clock::now(),
                {pending_.waiting(), spare_.held(), none_waiting && has_idle_sender()});
            ++counters_.accept_errors;
            if (d.relieve == accept_backoff::relief::shed_waiting) {
                co_await shed_oldest_waiting(pause);
                continue;
            }
            if (d.relieve == accept_backoff::relief::shed_idle && shed_idle_sender()) {
                co_await wait_for_descriptor(pause);
                continue;
            }
            if (d.relieve == accept_backoff::relief::refuse_with_spare) refuse_with_spare();
            if (d.log) {
                const std::string then = accept_backoff::exhausted(ec)
                                             ? "pausing accepting for " +
                                                   std::to_string(d.pause.count()) +
                                                   " ms (connections wait in the listen backlog)"
                                             : std::string("retrying");
                const std::string what = ec.message();
                spdlog::warn("accept failed {} time{} since the last report: {}; {}", d.failures,
                             d.failures == 1 ? "" : "s", what, then);
            }
            pause.expires_after(d.pause);
            co_await pause.async_wait(use_tuple);
            continue;
        }
        if (const auto failures = backoff.on_success(); failures > 0)
            spdlog::info("accepting again after {} failed accepts", failures);
        // The newcomer took the last descriptor: its hello may need one more (a new stream's
        // owner is written to a file), so room is made before it starts, not refused then.
        if (client::out_of_descriptors_now()) {
            if (pending_.waiting() > 0)
                co_await shed_oldest_waiting(pause);
            else if (shed_idle_sender())
                co_await wait_for_descriptor(pause);
        }
        asio::ip::tcp::socket socket(std::move(accepted));
        std::error_code no_peer;
        const auto remote = socket.remote_endpoint(no_peer);
        const std::string address = remote.address().to_string();
        if (!admit_connection(socket, remote, address)) continue;
        socket.set_option(asio::ip::tcp::no_delay(true), ec);
        start_session(std::move(socket), address);
    }
}

bool server::admit_connection(asio::ip::tcp::socket& socket, const asio::ip::tcp::endpoint& remote,
                              const std::string& address) {
    const auto& s = settings();
    std::string detail;
    if (counters_.connections_open >= s.max_connections) {
        warn_peer(warning_kind::refused_at_cap,
                  fmt::format("{}:{}: refused: {} connections open (server.max_connections)",
                              address, remote.port(), s.max_connections));
        detail = fmt::format(
            "{} connections open, the daemon's limit (server.max_connections = {}); retry when "
            "one has closed",
            counters_.connections_open.load(), s.max_connections);
    } else if (!addresses_.try_acquire(address, s.max_connections_per_address)) {
        // Who holds the slots tells the operator what to fix: idle followers, a leaking
        // client, a flood of senders.
        const auto held = addresses_.slots(address);
        warn_peer(warning_kind::refused_at_cap,
                  fmt::format("{}:{}: refused: {} connections open from {} ({}) "
                              "(limits.max_connections_per_address)",
                              address, remote.port(), held.open, address, describe(held)));
        detail = fmt::format(
            "{} connections open from {} ({}), the limit per address "
            "(limits.max_connections_per_address = {}); retry when one has closed",
            held.open, address, describe(held), s.max_connections_per_address);
    } else {
        return true;
    }
    ++counters_.connections_refused;
    refusals_.refuse(std::move(socket), proto_errc::too_many_connections, detail);
    return false;
}

void server::start_session(asio::ip::tcp::socket socket, const std::string& address) {
    auto s = std::make_shared<session>(*this, std::move(socket));
    {
        std::lock_guard lock(sessions_mutex_);
        sessions_.insert(s);
    }
    ++counters_.connections_total;
    ++counters_.connections_open;
    ++metrics_.connections_by_role[static_cast<std::size_t>(connection_role::handshake)];
    wait_for_hello(s, address);
    auto executor = s->run_executor();
    // run() catches what its session throws and always closes the socket (session::end()):
    // this handler only gives the slots back.
    asio::co_spawn(executor, s->run(), [this, s, address](std::exception_ptr e) {
        if (e) spdlog::error("{}: session ended by an exception out of its end", s->peer());
        addresses_.release(address);
        forget(s);
    });
}

void server::wait_for_hello(const std::shared_ptr<session>& s, const std::string& address) {
    const auto& cfg = settings();
    const pending_hellos::caps caps{
        pending_hellos::cap_in_all(cfg.max_pending_hellos, descriptor_limit()),
        cfg.max_pending_hellos_per_address};
    std::vector<pending_hellos::shed> out;
    std::vector<std::pair<std::shared_ptr<session>, std::string>> to_shed;
    {
        std::lock_guard lock(sessions_mutex_);
        const auto id = pending_.accepted(address, caps, out);
        s->waiting_as(id);
        waiting_hello_.emplace(id, s);
        for (auto& one : out) {
            const auto it = waiting_hello_.find(one.id);
            if (it == waiting_hello_.end()) continue;
            if (auto old = it->second.lock())
                to_shed.emplace_back(std::move(old), std::move(one.why));
            waiting_hello_.erase(it);
        }
    }
    for (auto& [old, why] : to_shed) {
        ++counters_.connections_refused;
        old->shed(why);
    }
}

asio::awaitable<void> server::shed_oldest_waiting(asio::steady_timer& pause) {
    shed_oldest_waiting();
    co_await wait_for_descriptor(pause);
}

// The session closes a shed connection on its own strand: wait for that, so that the next
// accept (or the newcomer's hello) finds the descriptor, and one failure sheds one connection.
asio::awaitable<void> server::wait_for_descriptor(asio::steady_timer& pause) {
    const auto until = std::chrono::steady_clock::now() + accept_backoff::shed_wait;
    while (client::out_of_descriptors_now() && std::chrono::steady_clock::now() < until) {
        pause.expires_after(std::chrono::milliseconds(1));
        co_await pause.async_wait(use_tuple);
    }
}

void server::shed_oldest_waiting() {
    const auto limit = descriptor_limit();
    const std::string why = fmt::format(
        "out of file descriptors (the limit, RLIMIT_NOFILE, is {}); the oldest connection "
        "waiting for its hello is closed",
        limit ? std::to_string(*limit) : "unlimited");
    std::shared_ptr<session> old;
    {
        std::lock_guard lock(sessions_mutex_);
        const auto shed = pending_.shed_oldest(why);
        if (!shed) return;
        const auto it = waiting_hello_.find(shed->id);
        if (it == waiting_hello_.end()) return;
        old = it->second.lock();
        waiting_hello_.erase(it);
    }
    if (!old) return;
    ++counters_.connections_refused;
    old->shed(why);
}

namespace {

std::vector<idle_candidate> idle_senders(const std::set<std::shared_ptr<session>>& sessions) {
    std::vector<idle_candidate> out;
    for (const auto& s : sessions)
        if (const auto since = s->idle_since())
            out.push_back({reinterpret_cast<std::uintptr_t>(s.get()), *since});
    return out;
}

}  // namespace

bool server::has_idle_sender() {
    std::lock_guard lock(sessions_mutex_);
    return idlest_sender(idle_senders(sessions_), std::chrono::steady_clock::now(),
                         settings().shed_idle_after)
        .has_value();
}

bool server::shed_idle_sender() {
    const auto min_idle = settings().shed_idle_after;
    std::shared_ptr<session> idlest;
    {
        std::lock_guard lock(sessions_mutex_);
        const auto id =
            idlest_sender(idle_senders(sessions_), std::chrono::steady_clock::now(), min_idle);
        if (!id) return false;
        for (const auto& s : sessions_)
            if (reinterpret_cast<std::uintptr_t>(s.get()) == *id) idlest = s;
    }
    if (!idlest) return false;
    const auto limit = descriptor_limit();
    ++counters_.connections_refused;
    idlest->shed_idle(fmt::format(
        "out of file descriptors (the limit, RLIMIT_NOFILE, is {}) and no connection waits for "
        "its hello: this sender, idle longest (no frame for {} s or more, "
        "limits.shed_idle_after), is closed for a newcomer; reconnect to send more",
        limit ? std::to_string(*limit) : "unlimited",
        std::chrono::duration<double>(min_idle).count()));
    return true;
}

void server::refuse_with_spare() {
    spare_.give_up();
    asio::ip::tcp::socket socket(asio::make_strand(io_));
    std::error_code ec;
    acceptor_.accept(socket, ec);
    if (ec) return;  // taken back before the next accept
    std::error_code no_peer;
    const auto remote = socket.remote_endpoint(no_peer);
    const auto limit = descriptor_limit();
    const std::string figure = limit ? std::to_string(*limit) : "unlimited";
    warn_peer(warning_kind::refused_at_cap,
              fmt::format("{}:{}: refused: out of file descriptors (RLIMIT_NOFILE = {})",
                          remote.address().to_string(), remote.port(), figure));
    ++counters_.connections_refused;
    refusals_.refuse(std::move(socket), proto_errc::too_many_connections,
                     fmt::format("out of file descriptors: every one of the daemon's {} "
                                 "(RLIMIT_NOFILE) is in use; retry when a connection has closed",
                                 figure));
}

void server::hello_done(std::uint64_t pending_id) {
    if (pending_id == 0) return;
    pending_.done(pending_id);
    std::lock_guard lock(sessions_mutex_);
    waiting_hello_.erase(pending_id);
}

void server::forget(const std::shared_ptr<session>& s) {
    --counters_.connections_open;
    --metrics_.connections_by_role[static_cast<std::size_t>(s->role())];
    if (s->role() == connection_role::sender) senders_changed();
    std::lock_guard lock(sessions_mutex_);
    sessions_.erase(s);
    if (sessions_.empty() && on_idle_) asio::post(io_, std::exchange(on_idle_, {}));
}

void server::senders_changed() {
    const auto senders =
        metrics_.connections_by_role[static_cast<std::size_t>(connection_role::sender)].load(
            std::memory_order_relaxed);
    std::lock_guard lock(sessions_mutex_);
    if (!credit_notices_.on_senders(settings().max_buffered_bytes, senders)) return;
    for (const auto& s : sessions_)
        s->notice_credit();
}

void server::when_idle(std::function<void()> fn) {
    std::lock_guard lock(sessions_mutex_);
    if (sessions_.empty())
        asio::post(io_, std::move(fn));
    else
        on_idle_ = std::move(fn);
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

void server::abort() {
    std::lock_guard lock(sessions_mutex_);
    if (!sessions_.empty())
        spdlog::warn("closing {} connections that did not finish in time", sessions_.size());
    for (const auto& s : sessions_)
        s->abort();
}

}  // namespace objwire::daemon
