#include "daemon/telemetry/process_metrics.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <charconv>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <objwire/version.hpp>
#include "client/lib/descriptor_limit.hpp"
#include "daemon/telemetry/metric_writer.hpp"
#include "proto/control.hpp"

namespace objwire::daemon {
namespace {

bool next_number(std::string_view& text, std::uint64_t& out) {
    while (!text.empty() && text.front() == ' ')
        text.remove_prefix(1);
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
    if (ec != std::errc() || end == text.data()) return false;
    text.remove_prefix(static_cast<std::size_t>(end - text.data()));
    return true;
}

}  // namespace

std::optional<process_figures> parse_statm(std::string_view text, std::uint64_t page_bytes) {
    std::uint64_t vsz = 0;
    std::uint64_t rss = 0;
    if (!next_number(text, vsz) || !next_number(text, rss)) return std::nullopt;
    process_figures p;
    p.virtual_bytes = vsz * page_bytes;
    p.resident_bytes = rss * page_bytes;
    return p;
}

std::optional<std::uint64_t> descriptor_limit() {
    return client::descriptor_limit_now();
}

process_figures read_process_figures() {
    process_figures p;
    std::ifstream statm("/proc/self/statm");
    const std::string text((std::istreambuf_iterator<char>(statm)), {});
    if (auto m = parse_statm(text, static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE)))) p = *m;
    rusage usage{};
    if (::getrusage(RUSAGE_SELF, &usage) == 0) {
        const auto secs = [](const timeval& t) {
            return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
        };
        p.cpu_seconds = secs(usage.ru_utime) + secs(usage.ru_stime);
    }
    std::error_code ec;
    for (auto it = std::filesystem::directory_iterator("/proc/self/fd", ec);
         !ec && it != std::filesystem::directory_iterator(); it.increment(ec))
        ++p.open_fds;
    p.max_fds = descriptor_limit();
    return p;
}

void write_process_metrics(metric_writer& x, const process_figures& p, double start_time_seconds) {
    x.one("process_cpu_seconds_total", metric_type::counter,
          "User and system CPU time spent, in seconds.", p.cpu_seconds);
    x.one("process_resident_memory_bytes", metric_type::gauge, "Resident memory size in bytes.",
          p.resident_bytes);
    x.one("process_virtual_memory_bytes", metric_type::gauge, "Virtual memory size in bytes.",
          p.virtual_bytes);
    x.one("process_open_fds", metric_type::gauge, "Open file descriptors.", p.open_fds);
    if (p.max_fds)
        x.one("process_max_fds", metric_type::gauge, "The most open file descriptors allowed.",
              *p.max_fds);
    x.one("process_start_time_seconds", metric_type::gauge,
          "When the process started, in Unix seconds.", start_time_seconds);
    x.family("objwire_build_info", metric_type::gauge,
             "Always 1: the version of the running objwired.");
    x.sample("objwire_build_info", 1,
             {{"version", objwire::version}, {"protocol", std::to_string(protocol_version)}});
}

}  // namespace objwire::daemon
