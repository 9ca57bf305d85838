// What SIGHUP changes in a running server: the keys that are read when they are used (log
// level, limits and budgets of new connections, connection cap, shutdown grace, the metrics
// endpoint) take the reloaded value; the rest (listen address, data directory, sink, journal,
// TLS, auth, the total table budget that sized the pool) need a restart and are named in the
// log. docs/OPERATIONS.md lists both.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <map>

#include "daemon/serve/metrics_text.hpp"
#include "daemon/serve/server.hpp"
#include "daemon/telemetry/metrics_http.hpp"

namespace objwire::daemon {
namespace {

// Keys that take effect live; a prefix ending in '.' stands for its whole table.
constexpr std::string_view live_keys[] = {"server.log_level", "server.max_connections",
                                          "server.shutdown_grace", "limits.", "metrics."};
// Inside a live table, those that are fixed at start.
constexpr std::string_view fixed_keys[] = {"limits.table_budget_total"};

bool changes_live(std::string_view key) {
    if (std::ranges::find(fixed_keys, key) != std::end(fixed_keys)) return false;
    return std::ranges::any_of(live_keys, [&](std::string_view k) {
        return k.ends_with('.') ? key.starts_with(k) : key == k;
    });
}

// Every key's value as to_toml() writes it ("listen = \"127.0.0.1:7878\"  # set"), by full
// dotted key: comparing two of these finds the changed keys without naming each field.
std::map<std::string, std::string> values_of(const config::daemon_settings& s) {
    std::map<std::string, std::string> out;
    const std::string text = config::to_toml(s);
    std::string section;
    std::size_t at = 0;
    while (at < text.size()) {
        auto end = text.find('\n', at);
        if (end == std::string::npos) end = text.size();
        std::string_view line(text.data() + at, end - at);
        at = end + 1;
        if (line.starts_with('[') && line.ends_with(']')) {
            section = line.substr(1, line.size() - 2);
            continue;
        }
        const auto eq = line.find(" = ");
        if (eq == std::string_view::npos || line.starts_with('#')) continue;
        auto value = line.substr(eq + 3);
        value = value.substr(0, value.rfind("  # "));
        while (!value.empty() && value.back() == ' ')
            value.remove_suffix(1);
        out[section + "." + std::string(line.substr(0, eq))] = std::string(value);
    }
    return out;
}

// A TOML value as an override takes it: strings unquoted and unescaped, the rest as written.
std::string override_text(std::string_view toml) {
    if (toml.size() < 2 || toml.front() != '"' || toml.back() != '"') return std::string(toml);
    std::string out;
    for (std::size_t i = 1; i + 1 < toml.size(); ++i) {
        if (toml[i] == '\\' && i + 2 < toml.size()) ++i;
        out.push_back(toml[i]);
    }
    return out;
}

}  // namespace

void server::reload(const config::daemon_settings& next) {
    std::string old_metrics;
    std::string new_metrics;
    {
        std::lock_guard lock(reload_mutex_);
        const config::daemon_settings& current = settings();
        const auto now = values_of(current);
        auto effective = std::make_unique<config::daemon_settings>(current);
        std::vector<std::string> applied;
        std::vector<std::string> need_restart;
        // The lines below are written at the more verbose of the two levels.
        const auto old_level = spdlog::level::from_str(current.log_level);
        const auto new_level = spdlog::level::from_str(next.log_level);
        if (new_level < old_level) spdlog::set_level(new_level);
        for (const auto& [key, value] : values_of(next)) {
            const auto it = now.find(key);
            const std::string was = it == now.end() ? "(unset)" : it->second;
            if (was == value) continue;
            if (!changes_live(key)) {
                spdlog::warn(
                    "reload: {} changed ({} -> {}) but cannot change while running: "
                    "restart objwired to apply it",
                    key, was, value);
                need_restart.push_back(key);
                continue;
            }
            if (auto e = config::apply_daemon_override(*effective, key, override_text(value),
                                                       "reload")) {
                spdlog::error("reload: {} not applied: {}", key, e->message);
                continue;
            }
            spdlog::info("reload: {} = {} (was {})", key, value, was);
            applied.push_back(key);
        }
        old_metrics = current.metrics_listen;
        new_metrics = effective->metrics_listen;
        // A snapshot is kept for the server's lifetime (sessions hold references to the one
        // they started with), so only one that changes something is kept: reloading an
        // unchanged file costs nothing, however often.
        if (!applied.empty()) {
            reloaded_.push_back(std::move(effective));
            live_settings_.store(reloaded_.back().get());
        }
        ++metrics_.reloads;
        if (applied.empty() && need_restart.empty())
            spdlog::info("reload: no setting changed");
        else
            spdlog::info("reload: {}{}{}",
                         applied.empty() ? std::string("nothing applied")
                                         : fmt::format("applied {}", fmt::join(applied, ", ")),
                         need_restart.empty() ? "" : "; needs a restart: ",
                         fmt::format("{}", fmt::join(need_restart, ", ")));
        if (new_level > old_level) spdlog::set_level(new_level);
    }
    if (old_metrics != new_metrics && !stopping_) {
        stop_metrics_http();
        start_metrics_http(new_metrics);
    }
}

void server::start_metrics_http(const std::string& listen) {
    if (listen.empty()) {
        spdlog::info("metrics endpoint off (metrics.listen = \"\"); objwire stats still works");
        return;
    }
    auto http = std::make_shared<metrics_http>(io_, [this] { return render_prometheus(*this); });
    if (auto ec = http->start(listen)) {
        spdlog::error(
            "metrics endpoint off: objects are still received; fix metrics.listen "
            "and reload (SIGHUP)");
        return;
    }
    std::lock_guard lock(reload_mutex_);
    metrics_http_ = std::move(http);
}

void server::stop_metrics_http() {
    std::shared_ptr<metrics_http> http;
    {
        std::lock_guard lock(reload_mutex_);
        http.swap(metrics_http_);
    }
    if (http) http->stop();
}

asio::ip::tcp::endpoint server::metrics_endpoint() const {
    std::lock_guard lock(reload_mutex_);
    return metrics_http_ ? metrics_http_->local_endpoint() : asio::ip::tcp::endpoint{};
}

}  // namespace objwire::daemon
