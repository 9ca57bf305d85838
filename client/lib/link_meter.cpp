// Kept apart from asio: <linux/tcp.h> has the kernel's full struct tcp_info (delivery rate,
// busy and rwnd-limited times), and it clashes with glibc's <netinet/tcp.h> that asio includes.
#include "client/lib/link_meter.hpp"

#include <linux/tcp.h>
#include <netinet/in.h>
#include <sys/socket.h>

namespace objwire::client {

std::optional<link_sample> link_meter::sample(int fd, std::uint64_t now_ns, bool sender_waited) {
    tcp_info info{};
    socklen_t len = sizeof(info);
    if (::getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &len) != 0) return std::nullopt;
    // Fields the kernel did not fill (an older kernel) read as 0 and are not used.
    return next({.delivery_rate = info.tcpi_delivery_rate,
                 .app_limited = info.tcpi_delivery_rate_app_limited != 0,
                 .busy_us = info.tcpi_busy_time,
                 .rwnd_limited_us = info.tcpi_rwnd_limited,
                 .sndbuf_limited_us = info.tcpi_sndbuf_limited,
                 .bytes_acked = info.tcpi_bytes_acked},
                now_ns, sender_waited);
}

std::optional<link_sample> link_meter::next(const tcp_counters& c, std::uint64_t now_ns,
                                            bool sender_waited) {
    const std::uint64_t busy = c.busy_us - busy_us_;
    const std::uint64_t rwnd = c.rwnd_limited_us - rwnd_us_;
    const std::uint64_t sndbuf = c.sndbuf_limited_us - sndbuf_us_;
    const std::uint64_t since_us =
        read_at_ != 0 && now_ns > read_at_ ? (now_ns - read_at_) / 1000 : 0;
    busy_us_ = c.busy_us;
    rwnd_us_ = c.rwnd_limited_us;
    sndbuf_us_ = c.sndbuf_limited_us;
    read_at_ = now_ns;
    // Held back by the daemon's window for most of the interval: the daemon is the limit.
    const bool receiver_limited = busy > 0 && rwnd * 2 > busy;
    // Data in flight (sending, or held by either window) most of the time: the link was busy.
    const bool link_busy = since_us > 0 && static_cast<double>(busy + rwnd + sndbuf) >=
                                               full_share * static_cast<double>(since_us);
    // The lower bound's window: bytes acknowledged since it opened, once it is long enough.
    std::optional<double> sustained;
    if (acked_at_ == 0 || now_ns < acked_at_) {
        acked_ = c.bytes_acked;
        acked_at_ = now_ns;
    } else if (now_ns - acked_at_ >= bound_window_ns) {
        sustained = 8e9 * static_cast<double>(c.bytes_acked - acked_) /
                    static_cast<double>(now_ns - acked_at_);
        acked_ = c.bytes_acked;
        acked_at_ = now_ns;
    }
    if (c.delivery_rate > 0 && sender_waited && link_busy && !receiver_limited && !c.app_limited)
        return link_sample{.bits_per_second = 8.0 * static_cast<double>(c.delivery_rate)};
    // Something else was the limit (or the kernel gives no rate: we cannot tell).
    if (sustained && *sustained > 0)
        return link_sample{.bits_per_second = *sustained, .lower_bound = true};
    return std::nullopt;
}

}  // namespace objwire::client
