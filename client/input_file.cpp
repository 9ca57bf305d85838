#include "client/input_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace objwire::client {

long read_some(int fd, std::string& out, std::size_t max) {
    const std::size_t at = out.size();
    out.resize(at + max);
    ssize_t n = 0;
    do {
        n = ::read(fd, out.data() + at, max);
    } while (n < 0 && errno == EINTR);
    out.resize(at + static_cast<std::size_t>(n > 0 ? n : 0));
    return static_cast<long>(n);
}

bool read_input(const std::string& path, std::string& out, std::string& error) {
    const bool is_stdin = path.empty() || path == "-";
    const int fd = is_stdin ? 0 : ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        error = "cannot open '" + path + "': " + std::strerror(errno);
        return false;
    }
    constexpr std::size_t block = 1 << 20;
    long n = 0;
    while ((n = read_some(fd, out, block)) > 0) {
    }
    if (n < 0) error = "cannot read '" + input_name(path) + "': " + std::strerror(errno);
    if (!is_stdin) ::close(fd);
    return n == 0;
}

input_text::~input_text() {
    if (map_ != nullptr) ::munmap(map_, size_);
}

bool input_text::open(const std::string& path, std::string& error) {
    if (path.empty() || path == "-") return read_input(path, copy_, error);
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        error = "cannot open '" + path + "': " + std::strerror(errno);
        return false;
    }
    struct stat st {};
    void* map = MAP_FAILED;
    if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
        map = ::mmap(nullptr, static_cast<std::size_t>(st.st_size), PROT_READ,
                     MAP_PRIVATE | MAP_POPULATE, fd, 0);
    }
    ::close(fd);
    if (map == MAP_FAILED) return read_input(path, copy_, error);  // empty, a FIFO, /proc...
    map_ = map;
    size_ = static_cast<std::size_t>(st.st_size);
    ::madvise(map_, size_, MADV_SEQUENTIAL);
    return true;
}

std::string_view input_text::view() const {
    if (map_ != nullptr) return {static_cast<const char*>(map_), size_};
    return copy_;
}

std::string input_name(const std::string& path) {
    return path.empty() || path == "-" ? "<stdin>" : path;
}

}  // namespace objwire::client
