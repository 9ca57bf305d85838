// objwired under systemd (daemon/ops/objwired.service, Type=notify): tells the service manager
// when it is ready, reloading and stopping, and pings the watchdog. Each call is a no-op when
// NOTIFY_SOCKET is unset, so the daemon runs the same by hand, in tests and in containers.
#pragma once

#include <asio.hpp>
#include <chrono>
#include <string_view>

namespace objwire::daemon::service {

// READY=1, with a STATUS= line for `systemctl status`.
void notify_ready(std::string_view status);
// RELOADING=1 with MONOTONIC_USEC (systemd 253+ wants it to match the reload to its READY).
void notify_reloading();
// STOPPING=1: shutting down, draining connections.
void notify_stopping();

// Sends WATCHDOG=1 at half of WATCHDOG_USEC from a timer on the daemon's io_context, so a
// stuck event loop stops the pings and systemd restarts the service. Off when systemd did
// not set WatchdogSec.
class watchdog {
  public:
    explicit watchdog(asio::io_context& io);
    void stop();
    // The ping interval; zero when off.
    std::chrono::microseconds interval() const { return interval_; }

  private:
    void arm();

    asio::steady_timer timer_;
    std::chrono::microseconds interval_{0};
};

}  // namespace objwire::daemon::service
