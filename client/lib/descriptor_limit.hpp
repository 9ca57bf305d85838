// A process that holds a connection per producer (objwired) or opens a thousand (objwire
// bench --connections 1000) needs more descriptors than the soft limit most systems start a
// shell with (1024); the hard limit is what the administrator allows. Both programs raise
// their soft RLIMIT_NOFILE to the hard limit at start, as a user expects of a server.
#pragma once

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <optional>

namespace objwire::client {

// Descriptors this process may open, before and after raising the soft limit (none:
// unlimited).
struct descriptor_limits {
    std::optional<std::uint64_t> before;
    std::optional<std::uint64_t> after;
};

// The soft RLIMIT_NOFILE now (none: unlimited or unreadable).
inline std::optional<std::uint64_t> descriptor_limit_now() {
    rlimit files{};
    if (::getrlimit(RLIMIT_NOFILE, &files) != 0 || files.rlim_cur == RLIM_INFINITY) return {};
    return files.rlim_cur;
}

// Whether this process (or the system) cannot open one more descriptor now.
inline bool out_of_descriptors_now() {
    const int fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return errno == EMFILE || errno == ENFILE;
    ::close(fd);
    return false;
}

// Raises the soft RLIMIT_NOFILE to the hard limit. A hard limit of "unlimited" cannot be the
// soft one for descriptors (the kernel caps it at fs.nr_open): the soft limit is kept then.
inline descriptor_limits raise_descriptor_limit() {
    const auto figure = [](rlim_t n) {
        return n == RLIM_INFINITY ? std::nullopt : std::optional<std::uint64_t>(n);
    };
    rlimit files{};
    if (::getrlimit(RLIMIT_NOFILE, &files) != 0) return {};
    descriptor_limits out{figure(files.rlim_cur), figure(files.rlim_cur)};
    if (files.rlim_cur == files.rlim_max) return out;
    rlimit raised{files.rlim_max, files.rlim_max};
    if (::setrlimit(RLIMIT_NOFILE, &raised) == 0) out.after = figure(raised.rlim_cur);
    return out;
}

}  // namespace objwire::client
