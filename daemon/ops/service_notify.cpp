#include "daemon/ops/service_notify.hpp"

#include <spdlog/spdlog.h>
#include <systemd/sd-daemon.h>

#include <cstring>
#include <ctime>
#include <string>

namespace objwire::daemon::service {
namespace {

void notify(const std::string& state) {
    // unset_environment = 0: a reload and the stop notify through the same socket later.
    const int rc = sd_notify(0, state.c_str());
    if (rc < 0) spdlog::warn("sd_notify({}) failed: {}", state, std::strerror(-rc));
}

std::uint64_t monotonic_usec() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<std::uint64_t>(ts.tv_sec) * 1000000u +
           static_cast<std::uint64_t>(ts.tv_nsec) / 1000u;
}

}  // namespace

void notify_ready(std::string_view status) {
    notify("READY=1\nSTATUS=" + std::string(status));
}

void notify_reloading() {
    notify("RELOADING=1\nMONOTONIC_USEC=" + std::to_string(monotonic_usec()));
}

void notify_stopping() {
    notify("STOPPING=1\nSTATUS=draining connections");
}

watchdog::watchdog(asio::io_context& io) : timer_(io) {
    std::uint64_t usec = 0;
    if (sd_watchdog_enabled(0, &usec) > 0 && usec > 0) {
        interval_ = std::chrono::microseconds(usec / 2);
        spdlog::info("systemd watchdog: pinging every {} ms", interval_.count() / 1000);
        arm();
    }
}

void watchdog::arm() {
    timer_.expires_after(interval_);
    timer_.async_wait([this](std::error_code ec) {
        if (ec) return;
        notify("WATCHDOG=1");
        arm();
    });
}

void watchdog::stop() {
    interval_ = std::chrono::microseconds(0);
    timer_.cancel();
}

}  // namespace objwire::daemon::service
