// The clock-driven limits of one connection after its hello (docs/SECURITY.md): an idle
// timeout (no complete frame for limits.idle_timeout) and a minimum read rate for a frame in
// progress (limits.min_read_rate over limits.read_rate_window: slowloris). No I/O and no
// timers: the session reports its reads and asks, from a periodic tick, whether to cut.
// Time the daemon itself holds the peer up - reading paused, acknowledgements not yet due -
// never counts against the peer.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace objwire::daemon {

class connection_guard {
  public:
    using clock = std::chrono::steady_clock;
    struct limits {
        std::chrono::milliseconds idle_timeout{0};  // 0: never
        std::uint64_t min_read_rate = 0;            // bytes per second; 0: off
        std::chrono::milliseconds read_rate_window{30000};
    };

    explicit connection_guard(limits l) : limits_(l) {}

    // Starts the clocks (after the hello).
    void start(clock::time_point now);
    // n bytes read; `in_frame`: an incomplete frame is buffered after them; `completed`: the
    // read completed at least one frame.
    void on_read(clock::time_point now, std::size_t n, bool in_frame, bool completed);
    // While the daemon holds the peer up (paused reading, replies waiting for the sink), the
    // clocks stand still: they restart when it ends.
    void hold(clock::time_point now, bool held);

    // Why the connection should be cut now, or "" if it should not.
    std::string check(clock::time_point now);
    // How often check() needs to run to cut within about a quarter of a limit late.
    std::chrono::milliseconds tick() const;

  private:
    limits limits_;
    bool started_ = false;
    bool held_ = false;
    clock::time_point last_frame_{};  // last completed frame (or start, or end of a hold)
    bool in_frame_ = false;
    clock::time_point window_start_{};
    std::uint64_t window_bytes_ = 0;
};

}  // namespace objwire::daemon
