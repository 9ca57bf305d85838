#include "daemon/store/data_dir_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

namespace objwire::daemon {

data_dir_lock::~data_dir_lock() {
    if (fd_ >= 0) ::close(fd_);
}

data_dir_lock::data_dir_lock(data_dir_lock&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}

data_dir_lock& data_dir_lock::operator=(data_dir_lock&& other) noexcept {
    if (this != &other) {
        if (fd_ >= 0) ::close(fd_);
        fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
}

data_dir_lock data_dir_lock::acquire(const std::filesystem::path& dir, std::error_code& ec,
                                     std::string& why) {
    data_dir_lock lock;
    const auto path = dir / data_dir_lock_file;
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        ec = {errno, std::generic_category()};
        why = "cannot open the lock file " + path.string() + ": " + ec.message();
        return lock;
    }
    while (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
        if (errno == EINTR) continue;
        ec = {errno, std::generic_category()};
        if (errno == EWOULDBLOCK) {
            char text[32] = {};
            const ssize_t n = ::pread(fd, text, sizeof text - 1, 0);
            std::string pid = n > 0 ? std::string(text, static_cast<std::size_t>(n)) : "";
            while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' '))
                pid.pop_back();
            why = "the data directory " + dir.string() + " is in use by another objwired (pid " +
                  (pid.empty() ? "unknown" : pid) + "); one daemon per data directory";
            ec = std::make_error_code(std::errc::resource_unavailable_try_again);
        } else {
            why = "cannot lock " + path.string() + ": " + ec.message();
        }
        ::close(fd);
        return lock;
    }
    const std::string pid = std::to_string(::getpid()) + "\n";
    // The pid is for people: a failure to write it does not make the lock less held.
    if (::ftruncate(fd, 0) == 0) {
        [[maybe_unused]] const auto n = ::pwrite(fd, pid.data(), pid.size(), 0);
    }
    lock.fd_ = fd;
    ec.clear();
    return lock;
}

}  // namespace objwire::daemon
