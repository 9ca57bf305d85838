// Kept apart from asio: <linux/tcp.h> has the kernel's full struct tcp_info (delivery rate,
// busy and rwnd-limited times), and it clashes with glibc's <netinet/tcp.h> that asio includes.
#include "client/link_meter.hpp"

#include <linux/tcp.h>
#include <netinet/in.h>
#include <sys/socket.h>

namespace objwire::client {

std::optional<link_sample> link_meter::sample(int fd, std::uint64_t now_ns) {
    tcp_info info{};
    socklen_t len = sizeof(info);
    if (::getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &len) != 0) return std::nullopt;
    // Fields the kernel did not fill (an older kernel) read as 0 and are not used.
    const std::uint64_t busy = info.tcpi_busy_time - busy_us_;
    const std::uint64_t rwnd = info.tcpi_rwnd_limited - rwnd_us_;
    const std::uint64_t acked = info.tcpi_bytes_acked - acked_;
    const std::uint64_t elapsed_ns = now_ns - acked_at_;
    const bool first = acked_at_ == 0;
    busy_us_ = info.tcpi_busy_time;
    rwnd_us_ = info.tcpi_rwnd_limited;
    acked_ = info.tcpi_bytes_acked;
    acked_at_ = now_ns;
    // Held back by the daemon's window for most of the interval: the daemon is the limit.
    const bool receiver_limited = busy > 0 && rwnd * 2 > busy;
    link_sample s;
    s.lower_bound = receiver_limited || info.tcpi_delivery_rate_app_limited;
    if (info.tcpi_delivery_rate > 0) {
        s.bits_per_second = 8.0 * static_cast<double>(info.tcpi_delivery_rate);
    } else if (!first && elapsed_ns > 0 && acked > 0) {
        s.bits_per_second = 8e9 * static_cast<double>(acked) / static_cast<double>(elapsed_ns);
        s.lower_bound = true;  // we cannot tell whether we kept the link busy
    } else {
        return std::nullopt;
    }
    return s;
}

}  // namespace objwire::client
