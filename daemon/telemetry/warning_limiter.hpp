// The rule that keeps a flood of peer warnings from flooding the log: per kind of warning
// (a bad hello, a refusal at a connection cap, ...), the first few of an interval are logged
// in full and the rest only counted, then summarised once when the interval ends ("... and
// 295 more 'bad hello' warnings in the last 10 s"). No clock and no I/O of its own: the
// caller passes the time, so unit tests drive it with a fake clock
// (daemon/telemetry/warning_log.hpp is the driver that logs and wakes up for the summaries).
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace objwire::daemon {

// What a peer did that earns a warning. Kinds a flood of connections can repeat.
enum class warning_kind : std::uint8_t {
    bad_hello,          // the first bytes were not an objwire hello
    bad_frame,          // a frame after the hello broke the protocol or a limit
    refused_at_cap,     // server.max_connections or limits.max_connections_per_address
    handshake_timeout,  // no hello (or no TLS handshake) within limits.handshake_timeout
    refused_access,     // a wrong or missing token, TLS required or failed
};
inline constexpr std::size_t warning_kinds = 5;

// "bad hello": how a summary names the kind.
std::string_view warning_name(warning_kind kind);

class warning_limiter {
  public:
    using clock = std::chrono::steady_clock;

    struct summary {
        warning_kind kind;
        std::uint64_t suppressed = 0;  // not logged in full
        clock::duration interval{};
        // "... and 295 more 'bad hello' warnings in the last 10 s"
        std::string text() const;
    };

    // `burst` warnings of a kind are logged in full per `interval` (burst 0: all of them).
    warning_limiter(std::uint32_t burst, clock::duration interval);

    // Whether this warning is logged in full; if not, it is counted for the summary.
    bool admit(warning_kind kind, clock::time_point now);
    // The summaries of every interval over by `now` that held warnings not logged in full.
    std::vector<summary> due(clock::time_point now);
    // When the next summary falls due, if any is pending.
    std::optional<clock::time_point> next_due() const;
    // Every pending summary at once, intervals over or not (when the daemon stops); an
    // unfinished interval's summary covers the time since it began.
    std::vector<summary> flush(clock::time_point now);

  private:
    // One interval of one kind; it starts with the kind's first warning after the last ended.
    struct window {
        bool open = false;
        clock::time_point start{};
        std::uint32_t logged = 0;
        std::uint64_t suppressed = 0;
    };
    void close_if_over(std::size_t index, clock::time_point now, std::vector<summary>& out);

    std::uint32_t burst_;
    clock::duration interval_;
    std::array<window, warning_kinds> windows_{};
    std::vector<summary> pending_;  // intervals closed by admit(), not yet returned by due()
};

}  // namespace objwire::daemon
