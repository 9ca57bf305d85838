#include "daemon/store/journal_checkpoint.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "daemon/store/sync_directory.hpp"
#include "proto/byte_buffer.hpp"
#include "proto/crc32c.hpp"

namespace objwire::daemon {
namespace {

constexpr std::uint8_t checkpoint_magic[4] = {'O', 'W', 'J', 'C'};
constexpr std::uint32_t checkpoint_version = 1;
constexpr std::size_t checkpoint_size = 36;

std::error_code last_errno() {
    return {errno, std::generic_category()};
}

}  // namespace

checkpoint_writer::~checkpoint_writer() {
    close();
}

void checkpoint_writer::close() {
    if (fd_ >= 0) ::close(fd_);
    if (copy_fd_ >= 0) ::close(copy_fd_);
    fd_ = copy_fd_ = -1;
}

std::error_code checkpoint_writer::open(const std::filesystem::path& dir) {
    close();
    fd_ = ::open((dir / checkpoint_file_name).c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) return last_errno();
    copy_fd_ =
        ::open((dir / checkpoint_copy_file_name).c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    return copy_fd_ < 0 ? last_errno() : std::error_code{};
}

std::error_code checkpoint_writer::write(const sync_checkpoint& c) {
    std::uint8_t b[checkpoint_size];
    std::memcpy(b, checkpoint_magic, 4);
    store_le<std::uint32_t>(b + 4, checkpoint_version);
    store_le<std::uint64_t>(b + 8, c.segment_first);
    store_le<std::uint64_t>(b + 16, c.segment_bytes);
    store_le<std::uint64_t>(b + 24, c.end_offset);
    store_le<std::uint32_t>(b + 32, crc32c({b, 32}));
    for (const int fd : {fd_, copy_fd_}) {
        const ssize_t n = ::pwrite(fd, b, sizeof b, 0);
        if (n < 0) return last_errno();
        if (static_cast<std::size_t>(n) != sizeof b)
            return std::make_error_code(std::errc::io_error);
    }
    return {};
}

std::error_code checkpoint_writer::sync() {
    for (const int fd : {fd_, copy_fd_})
        if (fd >= 0 && ::fdatasync(fd) != 0) return last_errno();
    return {};
}

checkpoint_records read_checkpoints(const std::filesystem::path& dir) {
    checkpoint_records r;
    for (const char* name : {checkpoint_file_name, checkpoint_copy_file_name}) {
        std::error_code ec;
        if (!std::filesystem::exists(dir / name, ec)) {
            r.missing += (r.missing.empty() ? "" : ", ") + std::string(name);
            continue;
        }
        r.any_file = true;
        bool damaged = false;
        const auto c = read_checkpoint(dir, damaged, name);
        if (damaged) r.damaged += (r.damaged.empty() ? "" : ", ") + std::string(name);
        if (c && (!r.best || c->end_offset > r.best->end_offset)) r.best = c;
    }
    return r;
}

std::optional<sync_checkpoint> read_checkpoint(const std::filesystem::path& dir, bool& damaged,
                                               const char* file_name) {
    damaged = false;
    const int fd = ::open((dir / file_name).c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return std::nullopt;
    std::uint8_t b[checkpoint_size + 1];
    const ssize_t n = ::pread(fd, b, sizeof b, 0);
    ::close(fd);
    if (n == 0) return std::nullopt;  // created, never written: nothing was synced yet
    if (n != static_cast<ssize_t>(checkpoint_size) || std::memcmp(b, checkpoint_magic, 4) != 0 ||
        load_le<std::uint32_t>(b + 4) != checkpoint_version ||
        load_le<std::uint32_t>(b + 32) != crc32c({b, 32})) {
        damaged = true;
        return std::nullopt;
    }
    return sync_checkpoint{load_le<std::uint64_t>(b + 8), load_le<std::uint64_t>(b + 16),
                           load_le<std::uint64_t>(b + 24)};
}

std::vector<recorded_gap> read_gap_log(const std::filesystem::path& dir, std::string* refused) {
    std::vector<recorded_gap> out;
    std::ifstream in(dir / gap_log_file_name);
    std::string line;
    for (std::size_t number = 1; std::getline(in, line); ++number) {
        std::istringstream fields(line);
        std::string word;
        recorded_gap g;
        if (!(fields >> word >> g.first >> g.end) || word != "gap" || g.end <= g.first) continue;
        if (g.end > max_journal_offset) {
            // Taken as it is, the journal would number on from near 2^64 and wrap.
            if (refused && refused->empty())
                *refused = (dir / gap_log_file_name).string() + " line " + std::to_string(number) +
                           ": end offset " + std::to_string(g.end) +
                           " is beyond the largest offset a journal gives out (" +
                           std::to_string(max_journal_offset) + ")";
            continue;
        }
        std::getline(fields >> std::ws, g.why);
        out.push_back(std::move(g));
    }
    return out;
}

std::error_code append_gap_log(const std::filesystem::path& dir, const recorded_gap& gap) {
    const auto path = dir / gap_log_file_name;
    const bool existed = std::filesystem::exists(path);
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) return last_errno();
    const std::string line =
        "gap " + std::to_string(gap.first) + " " + std::to_string(gap.end) + " " + gap.why + "\n";
    std::error_code ec;
    const ssize_t n = ::write(fd, line.data(), line.size());
    if (n != static_cast<ssize_t>(line.size()))
        ec = n < 0 ? last_errno() : std::make_error_code(std::errc::io_error);
    if (!ec && ::fsync(fd) != 0) ec = last_errno();
    ::close(fd);
    if (!ec && !existed) ec = sync_directory(dir);
    return ec;
}

}  // namespace objwire::daemon
