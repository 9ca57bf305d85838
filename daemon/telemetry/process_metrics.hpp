// The standard process_* metrics of Prometheus client libraries (CPU, memory, file
// descriptors), read from /proc/self at each scrape, and objwire_build_info: what any
// dashboard of a Linux service expects to find.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace objwire::daemon {

class metric_writer;

struct process_figures {
    double cpu_seconds = 0;                // user + system
    std::uint64_t resident_bytes = 0;      // RSS
    std::uint64_t virtual_bytes = 0;       // VSZ
    std::uint64_t open_fds = 0;            // entries of /proc/self/fd
    std::optional<std::uint64_t> max_fds;  // RLIMIT_NOFILE soft; none when unlimited
};

// RLIMIT_NOFILE soft, now; none when unlimited (or unreadable).
std::optional<std::uint64_t> descriptor_limit();

// Reads the figures of this process; a part that cannot be read stays 0.
process_figures read_process_figures();

// Pages of /proc/self/statm ("VSZ RSS ...") into bytes; nothing when the text is not statm's.
std::optional<process_figures> parse_statm(std::string_view text, std::uint64_t page_bytes);

// Writes the process_* families and objwire_build_info.
void write_process_metrics(metric_writer& x, const process_figures& p, double start_time_seconds);

}  // namespace objwire::daemon
