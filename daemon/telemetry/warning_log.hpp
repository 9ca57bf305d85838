// objwired's warnings about peers, through the rule of daemon/telemetry/warning_limiter.hpp: the
// first 5 of a kind per 10 s in full, then one summary line per kind and interval, logged
// when the interval ends (a timer on the daemon's io_context, armed only while a summary is
// pending). main() makes the one instance and installs it; where none is installed (the
// integration tests' in-process server, the offline tools) every warning is logged in full.
#pragma once

#include <asio/io_context.hpp>
#include <asio/steady_timer.hpp>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>

#include "daemon/telemetry/warning_limiter.hpp"

namespace objwire::daemon {

inline constexpr std::uint32_t warning_burst = 5;
inline constexpr std::chrono::seconds warning_interval{10};

class warning_log {
  public:
    explicit warning_log(asio::io_context& io, std::uint32_t burst = warning_burst,
                         std::chrono::steady_clock::duration interval = warning_interval);
    // Thread-safe: sessions on every io thread call it.
    void warn(warning_kind kind, const std::string& text);
    // The daemon stops: no timer is armed again (it would keep the io_context running), and the
    // summaries pending are logged.
    void stop();

  private:
    void log_due(std::chrono::steady_clock::time_point now);  // with mutex_ held
    void arm();                                               // with mutex_ held

    std::mutex mutex_;
    warning_limiter limiter_;
    asio::steady_timer timer_;
    bool armed_ = false;
    bool stopped_ = false;
};

// The instance warn_peer uses (nullptr: none).
void install_warning_log(warning_log* log);
// A warning about a peer: through the installed warning_log, else logged as it is.
void warn_peer(warning_kind kind, const std::string& text);

}  // namespace objwire::daemon
