#include "daemon/sinks/hop_health.hpp"

#include <utility>

#include <objwire/connection.hpp>

#include "proto/errors.hpp"

namespace objwire::daemon {

bool hop_unreachable(std::error_code ec) {
    using client::client_errc;
    // The transport, or the hop turning this relay away at the hello whatever the stream.
    for (const std::error_code hop_level :
         {make_error_code(client_errc::connect_failed),
          make_error_code(client_errc::connection_lost), make_error_code(client_errc::timed_out),
          make_error_code(proto_errc::not_available),
          make_error_code(proto_errc::too_many_connections),
          make_error_code(proto_errc::unauthorized), make_error_code(proto_errc::bad_magic),
          make_error_code(proto_errc::unsupported_version),
          make_error_code(proto_errc::bad_handshake)})
        if (ec == hop_level) return true;
    return false;
}

hop_health::admission hop_health::admit(clock::time_point now) {
    if (!down_) return {};
    if (now >= next_try_) {
        // This stream tries the hop; the next one waits another pause unless it succeeds.
        next_try_ = now + pause_.current();
        return {};
    }
    ++unlogged_refusals_;
    const auto retry_after = std::chrono::ceil<std::chrono::milliseconds>(next_try_ - now);
    return {false,
            "next hop " + hop_ + " is unavailable: " + why_ + " (" + std::to_string(run_) +
                " attempts failed); retry after " + std::to_string(retry_after.count()) + " ms",
            retry_after};
}

void hop_health::on_failure(const std::string& why, clock::time_point now) {
    down_ = true;
    why_ = why;
    ++run_;
    ++unlogged_failures_;
    next_try_ = now + pause_.next();
}

std::uint64_t hop_health::on_success() {
    down_ = false;
    pause_.reset();
    unlogged_failures_ = unlogged_refusals_ = 0;
    log_.reset();
    return std::exchange(run_, 0);
}

std::optional<std::string> hop_health::take_log(clock::time_point now) {
    if (!down_ || (unlogged_failures_ == 0 && unlogged_refusals_ == 0)) return std::nullopt;
    const bool since_last_line = log_.logged();
    if (!log_.take(now)) return std::nullopt;
    std::string line =
        "forward to " + hop_ + ": " + why_ + "; " + std::to_string(unlogged_failures_) +
        " connect attempts failed and " + std::to_string(unlogged_refusals_) +
        " new streams refused " + (since_last_line ? "since the last line" : "so far") +
        "; next attempt in at most " + std::to_string(pause_.current().count()) + " ms";
    unlogged_failures_ = unlogged_refusals_ = 0;
    return line;
}

}  // namespace objwire::daemon
