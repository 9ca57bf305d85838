#include "daemon/jsonl_sink.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

namespace objwire::daemon {

jsonl_sink::jsonl_sink(std::filesystem::path file) : path_(std::move(file)) {
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd_ < 0) open_error_ = std::error_code(errno, std::generic_category());
}

jsonl_sink::~jsonl_sink() {
    if (fd_ >= 0) ::close(fd_);
}

std::error_code jsonl_sink::write(std::string_view lines) {
    std::lock_guard lock(mutex_);
    if (fd_ < 0) return open_error_;
    while (!lines.empty()) {
        ssize_t n = ::write(fd_, lines.data(), lines.size());
        if (n < 0) {
            if (errno == EINTR) continue;
            return {errno, std::generic_category()};
        }
        lines.remove_prefix(static_cast<std::size_t>(n));
    }
    return {};
}

}  // namespace objwire::daemon
