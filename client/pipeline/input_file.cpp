#include "client/pipeline/input_file.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

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

line_blocks::line_blocks(std::size_t block) : block_(block) {}

line_blocks::~line_blocks() {
    if (fd_ > 0) ::close(fd_);
    for (std::size_t i = next_file_; i < next_files_.size(); ++i)
        if (next_files_[i].first > 0) ::close(next_files_[i].first);
    for (int fd : cancel_pipe_)
        if (fd >= 0) ::close(fd);
}

namespace {

// The file's descriptor (0 for stdin, "" or "-"), or -1 with the reason in `error`.
int open_input(const std::string& path, std::string& error) {
    const bool is_stdin = path.empty() || path == "-";
    const int fd = is_stdin ? 0 : ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) error = "cannot open '" + path + "': " + std::strerror(errno);
    return fd;
}

}  // namespace

bool line_blocks::open(const std::string& path, std::string& error) {
    return open(std::vector<std::string>{path}, error);
}

bool line_blocks::open(const std::vector<std::string>& paths, std::string& error) {
    for (const auto& path : paths) {
        const int fd = open_input(path, error);
        if (fd < 0) return false;
        next_files_.emplace_back(fd, path);
    }
    if (next_files_.empty()) next_files_.emplace_back(0, "-");
    next_file_ = 1;
    places_.start(input_name(next_files_[0].second), 1);
    return use(next_files_[0].first, next_files_[0].second, error);
}

bool line_blocks::use(int fd, const std::string& path, std::string& error) {
    path_ = path;
    fd_ = fd;
    struct stat st {};
    regular_ = ::fstat(fd_, &st) == 0 && S_ISREG(st.st_mode);
    if (regular_) {
        ::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
    } else {
        // A larger pipe lets the writer run ahead by a block, not 64 KiB; refused for a
        // terminal or above fs.pipe-max-size, which costs speed only.
        if (S_ISFIFO(st.st_mode)) ::fcntl(fd_, F_SETPIPE_SZ, static_cast<int>(block_));
        if (cancel_pipe_[0] < 0 && ::pipe2(cancel_pipe_, O_CLOEXEC | O_NONBLOCK) != 0) {
            error = std::string("cannot make a pipe: ") + std::strerror(errno);
            return false;
        }
    }
    return true;
}

bool line_blocks::next_file() {
    if (next_file_ >= next_files_.size()) return false;
    // The file's last line ends with it (read_block left room for a block after held_).
    if (in_line_) {
        buf_[held_++] = '\n';
        ++newlines_;
        in_line_ = false;
    }
    if (fd_ > 0) ::close(fd_);
    const auto& [fd, path] = next_files_[next_file_++];
    places_.start(input_name(path), newlines_ + 1);
    return use(fd, path, error_);
}

bool line_blocks::ready() const {
    if (regular_ || eof_) return true;
    pollfd p{fd_, POLLIN, 0};
    return ::poll(&p, 1, 0) > 0;
}

void line_blocks::cancel() {
    if (cancel_pipe_[1] >= 0) {
        const char byte = 0;
        [[maybe_unused]] auto n = ::write(cancel_pipe_[1], &byte, 1);
    }
    cancelled_ = true;  // read() of a file never waits: checked between reads
}

bool line_blocks::next(std::string_view& lines, std::size_t padding) {
    dropped_line_ = false;
    // What was handed out is done with; the unfinished line moves to the front.
    if (given_ > 0) {
        std::memmove(buf_.data(), buf_.data() + given_, held_ - given_);
        held_ -= given_;
        given_ = 0;
    }
    // The unfinished line holds no newline: only bytes read from now on are searched, so a
    // line of many blocks costs one pass. What follows a dropped line was never searched.
    std::size_t searched = held_;
    if (skipping_) {
        if (!skip_to_newline()) return false;
        searched = 0;
    }
    for (;;) {
        if (held_ > 0) {
            const auto* nl =
                static_cast<const char*>(::memrchr(buf_.data() + searched, '\n', held_ - searched));
            searched = held_;
            if (nl != nullptr || eof_) {
                given_ = nl != nullptr ? static_cast<std::size_t>(nl - buf_.data()) + 1 : held_;
                lines = {buf_.data(), given_};
                offset_ += given_;
                return true;
            }
        }
        // All that is held is one unfinished line: past the limit it is dropped, not grown.
        if (max_line_ != 0 && held_ > max_line_) {
            dropped_line_ = skipping_ = true;
            lines = {buf_.data(), 0};  // the buffer's bytes after it stay readable padding
            return true;
        }
        if (!read_block(padding)) return false;
    }
}

bool line_blocks::skip_to_newline() {
    for (;;) {  // each round drops what is held or reads a block; ends at a newline or the end
        const auto* nl = static_cast<const char*>(std::memchr(buf_.data(), '\n', held_));
        if (nl != nullptr) {
            const std::size_t end = static_cast<std::size_t>(nl - buf_.data()) + 1;
            std::memmove(buf_.data(), buf_.data() + end, held_ - end);
            held_ -= end;
            offset_ += end;
            skipping_ = false;
            return true;
        }
        offset_ += held_;
        held_ = 0;
        if (!read_block(0)) return false;
        if (held_ == 0) return false;  // the end of the input inside the dropped line
    }
}

bool line_blocks::read_block(std::size_t padding) {
    for (;;) {  // returns after one read that got bytes or the end, or on a failure
        if (eof_ || cancelled_) return false;
        // Room for a block after what is held (a line longer than a block grows the buffer, to
        // the line limit and a block at most).
        const std::size_t want = held_ + block_ + padding;
        if (buf_.size() < want) {
            std::size_t grown = std::max(want, buf_.size() * 2);
            if (max_line_ != 0)
                grown = std::max(want, std::min(grown, max_line_ + block_ + padding));
            buf_.resize(grown);
        }
        if (!regular_) {
            pollfd p[2] = {{fd_, POLLIN, 0}, {cancel_pipe_[0], POLLIN, 0}};
            if (::poll(p, 2, -1) < 0) {
                if (errno == EINTR) continue;
                error_ = "cannot read '" + input_name(path_) + "': " + std::strerror(errno);
                return false;
            }
            if (p[1].revents != 0) return false;  // cancel()
        }
        ssize_t n = 0;
        do {
            n = ::read(fd_, buf_.data() + held_, block_);
        } while (n < 0 && errno == EINTR);
        if (n < 0 && errno == EAGAIN) continue;
        if (n < 0) {
            error_ = "cannot read '" + input_name(path_) + "': " + std::strerror(errno);
            return false;
        }
        if (n == 0 && next_file()) continue;
        if (!error_.empty()) return false;
        if (n == 0) eof_ = true;
        if (n > 0) in_line_ = buf_[held_ + static_cast<std::size_t>(n) - 1] != '\n';
        // Lines are counted only where they name a place in one of several files.
        if (next_files_.size() > 1)
            newlines_ += static_cast<std::uint64_t>(
                std::count(buf_.data() + held_, buf_.data() + held_ + n, '\n'));
        held_ += static_cast<std::size_t>(n);
        return true;
    }
}

void input_places::start(std::string name, std::uint64_t first_line) {
    std::lock_guard lock(mutex_);
    starts_.emplace_back(std::move(name), first_line);
}

input_places::place input_places::at(std::uint64_t line) const {
    std::lock_guard lock(mutex_);
    for (auto it = starts_.rbegin(); it != starts_.rend(); ++it)
        if (line >= it->second) return {it->first, line - it->second + 1};
    return {starts_.empty() ? std::string() : starts_.front().first, line};
}

std::string input_name(const std::string& path) {
    return path.empty() || path == "-" ? "<stdin>" : path;
}

}  // namespace objwire::client
