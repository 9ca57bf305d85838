// SIGHUP in a running server: the plan (daemon/serve/reload_plan.hpp) applied to a new settings
// snapshot, each changed key logged, the metrics endpoint moved when its address changed.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "daemon/serve/metrics_text.hpp"
#include "daemon/serve/reload_plan.hpp"
#include "daemon/serve/server.hpp"
#include "daemon/serve/session.hpp"
#include "daemon/telemetry/metrics_http.hpp"

namespace objwire::daemon {
namespace {

std::string key_names(const std::vector<config::key_change>& changes) {
    std::vector<std::string_view> names;
    for (const auto& c : changes)
        names.push_back(c.key);
    return fmt::format("{}", fmt::join(names, ", "));
}

void log_plan(const reload_plan& plan) {
    for (const auto& c : plan.need_restart)
        spdlog::warn(
            "reload: {} changed ({} -> {}) but cannot change while running: "
            "restart objwired to apply it",
            c.key, c.was, c.now);
    for (const auto& c : plan.applied)
        spdlog::info("reload: {} = {} (was {})", c.key, c.now, c.was);
    if (plan.applied.empty() && plan.need_restart.empty()) {
        spdlog::info("reload: no setting changed");
        return;
    }
    spdlog::info(
        "reload: {}{}{}",
        plan.applied.empty() ? std::string("nothing applied")
                             : "applied " + key_names(plan.applied),
        plan.need_restart.empty() ? "" : "; needs a restart: ", key_names(plan.need_restart));
}

}  // namespace

void server::reload(const config::daemon_settings& next) {
    std::string old_metrics;
    std::string new_metrics;
    bool bearer_changed = false;
    {
        std::lock_guard lock(reload_mutex_);
        const config::daemon_settings& current = settings();
        // The lines below are written at the more verbose of the two levels.
        const auto old_level = spdlog::level::from_str(current.log_level);
        const auto new_level = spdlog::level::from_str(next.log_level);
        if (new_level < old_level) spdlog::set_level(new_level);
        auto plan = plan_reload(current, next);
        log_plan(plan);
        old_metrics = current.metrics_listen;
        new_metrics = plan.effective.metrics_listen;
        // A new bearer token file (or its removal) restarts the endpoint as a move does.
        bearer_changed =
            current.metrics_bearer_token_file != plan.effective.metrics_bearer_token_file;
        // A snapshot is kept for the server's lifetime (sessions hold references to the one
        // they started with), so only one that changes something is kept: reloading an
        // unchanged file costs nothing, however often.
        if (!plan.applied.empty()) {
            reloaded_.push_back(
                std::make_unique<const config::daemon_settings>(std::move(plan.effective)));
            live_settings_.store(reloaded_.back().get());
        }
        ++metrics_.reloads;
        if (new_level > old_level) spdlog::set_level(new_level);
    }
    reload_users(next);
    if ((old_metrics != new_metrics || bearer_changed) && !stopping_) {
        stop_metrics_http();
        start_metrics_http(new_metrics);
    }
}

void server::reload_users(const config::daemon_settings& next) {
    std::string why;
    auto users = load_users(next, why);
    if (!users) {
        spdlog::error("reload: users unchanged: {}", why);
        ++metrics_.reload_failures;
        return;
    }
    spdlog::info("reload: {} users", users->size());
    apply_users(std::make_shared<const user_directory>(std::move(*users)));
}

void server::apply_users(std::shared_ptr<const user_directory> next) {
    {
        std::lock_guard lock(users_mutex_);
        users_ = next;
    }
    std::vector<std::shared_ptr<session>> open;
    {
        std::lock_guard lock(sessions_mutex_);
        open.assign(sessions_.begin(), sessions_.end());
    }
    for (const auto& s : open)
        s->reconsider(next, anonymous_);
}

void server::start_metrics_http(const std::string& listen) {
    if (listen.empty()) {
        spdlog::info("metrics endpoint off (metrics.listen = \"\"); objwire stats still works");
        return;
    }
    metrics_http::authorize_function authorize;
    if (const auto& file = settings().metrics_bearer_token_file; !file.empty()) {
        std::string why;
        const auto token = access_token::load(file, why, "metrics.bearer_token_file");
        if (!token) {
            // Off rather than open: the operator asked for the metrics to be private.
            spdlog::error("metrics endpoint off: {}; fix it and reload (SIGHUP)", why);
            return;
        }
        authorize = [token = *token](std::string_view bearer) { return token.matches(bearer); };
    }
    auto http = std::make_shared<metrics_http>(
        io_, [this] { return render_prometheus(*this); },
        [this] { return !stopping_ && sink_ != nullptr; }, std::move(authorize));
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
