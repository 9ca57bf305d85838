#include "daemon/store/journal_segments.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

namespace objwire::daemon {
namespace {
constexpr std::string_view prefix = "journal-";
constexpr std::string_view suffix = ".owj";
constexpr std::size_t digits = 20;
constexpr std::size_t read_chunk = 1 << 20;
}  // namespace

std::string segment_file_name(std::uint64_t first_offset) {
    char name[64];
    std::snprintf(name, sizeof name, "journal-%020llu.owj",
                  static_cast<unsigned long long>(first_offset));
    return name;
}

std::optional<std::uint64_t> parse_segment_file_name(std::string_view name) {
    if (name.size() != prefix.size() + digits + suffix.size() || !name.starts_with(prefix) ||
        !name.ends_with(suffix))
        return std::nullopt;
    std::uint64_t n = 0;
    for (const char c : name.substr(prefix.size(), digits)) {
        if (c < '0' || c > '9') return std::nullopt;
        const auto d = static_cast<std::uint64_t>(c - '0');
        if (n > (UINT64_MAX - d) / 10) return std::nullopt;
        n = n * 10 + d;
    }
    return n;
}

std::vector<segment_info> list_segments(const std::filesystem::path& dir, std::error_code& ec) {
    std::vector<segment_info> out;
    ec.clear();
    if (!std::filesystem::exists(dir, ec)) return out;
    for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        auto first = parse_segment_file_name(it->path().filename().string());
        if (!first || !it->is_regular_file(ec)) continue;
        const auto bytes = it->file_size(ec);
        if (ec) break;
        out.push_back({it->path(), *first, bytes});
    }
    std::sort(out.begin(), out.end(),
              [](const auto& a, const auto& b) { return a.first_offset < b.first_offset; });
    return out;
}

std::size_t read_at(int fd, std::uint8_t* out, std::size_t n, std::uint64_t at,
                    std::error_code& ec) {
    std::size_t got = 0;
    while (got < n) {
        const ssize_t r = ::pread(fd, out + got, n - got, static_cast<off_t>(at + got));
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
            ec = {errno, std::generic_category()};
            break;
        }
        if (r == 0) break;
        got += static_cast<std::size_t>(r);
    }
    return got;
}

std::error_code write_all_at(int fd, std::span<const std::uint8_t> bytes, std::uint64_t at) {
    while (!bytes.empty()) {
        const ssize_t n = ::pwrite(fd, bytes.data(), bytes.size(), static_cast<off_t>(at));
        if (n < 0) {
            if (errno == EINTR) continue;
            return {errno, std::generic_category()};
        }
        bytes = bytes.subspan(static_cast<std::size_t>(n));
        at += static_cast<std::uint64_t>(n);
    }
    return {};
}

// Reads the file in chunks for the scan (proto/journal_walk.hpp decides), keeping only the
// bytes from where the scan stands on.
std::optional<intact_block> find_intact_block(int fd, std::uint64_t from, std::uint64_t end,
                                              std::uint64_t min_offset, std::error_code& ec) {
    ec.clear();
    journal_resync scan(from, end, min_offset);
    byte_buffer buf;
    std::uint64_t buf_file = from;  // file position of buf[0]
    for (;;) {
        const auto s = scan.next(buf.span().subspan(scan.position() - buf_file));
        if (s.what == journal_resync_status::found) return intact_block{s.position, s.first_offset};
        if (s.what == journal_resync_status::none) return std::nullopt;
        buf.consume_front(scan.position() - buf_file);
        buf_file = scan.position();
        const std::uint64_t held_end = buf_file + buf.size();
        const auto want = static_cast<std::size_t>(
            std::min<std::uint64_t>(buf_file + std::max(read_chunk, s.size), end) - held_end);
        const std::size_t got = read_at(fd, buf.prepare(want), want, held_end, ec);
        buf.commit(got);
        if (ec) return std::nullopt;
        // The file is shorter than it was: the scan ends where it does now.
        if (got < want) scan = journal_resync(scan.position(), held_end + got, min_offset);
    }
}

bool segment_reader::skip_damage() {
    if (fd_ < 0) return false;
    // A block that is whole but numbered past the expected offset is itself where reading
    // goes on: the offsets between are missing, nothing is damaged.
    const std::uint64_t from = error_ == journal_errc::offset_gap ? position_ : position_ + 1;
    const auto found = find_from(from, walker_.next_offset());
    if (!found) return false;
    lost_ = {walker_.next_offset(), found->first_offset, position_, found->position - position_};
    return go_on_at(*found);
}

bool segment_reader::read_from_intact(std::uint64_t from) {
    if (fd_ < 0) return false;
    walker_ = journal_walker();
    error_.clear();
    bad_size_ = 0;
    const auto found = find_from(from, 0);
    return found && go_on_at(*found);
}

std::optional<intact_block> segment_reader::find_from(std::uint64_t from,
                                                      std::uint64_t min_offset) {
    struct stat st {};
    if (::fstat(fd_, &st) != 0) {
        error_ = {errno, std::generic_category()};
        return std::nullopt;
    }
    std::error_code ec;
    auto found =
        find_intact_block(fd_, from, static_cast<std::uint64_t>(st.st_size), min_offset, ec);
    if (ec) error_ = ec;
    return found;
}

bool segment_reader::go_on_at(const intact_block& found) {
    buf_.clear();
    pos_ = 0;
    buf_file_ = found.position;
    eof_ = false;
    if (::lseek(fd_, static_cast<off_t>(found.position), SEEK_SET) < 0) {
        error_ = {errno, std::generic_category()};
        return false;
    }
    walker_.resume_at(found.position, found.first_offset);
    error_.clear();
    bad_size_ = 0;
    return true;
}

segment_reader::~segment_reader() {
    close();
}

void segment_reader::close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
}

std::error_code segment_reader::open(const std::filesystem::path& path,
                                     std::uint64_t first_offset) {
    close();
    buf_.clear();
    pos_ = 0;
    buf_file_ = 0;
    eof_ = false;
    position_ = good_end_ = 0;
    walker_ = journal_walker(first_offset);
    bad_size_ = 0;
    error_.clear();
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) return error_ = {errno, std::generic_category()};
    return {};
}

// Makes at least `need` unparsed bytes available unless the file ends first. Reads in chunks
// of at least read_chunk, after moving the unparsed rest to the front.
bool segment_reader::fill(std::size_t need) {
    if (pos_ > 0) {
        buf_.consume_front(pos_);
        buf_file_ += pos_;
        pos_ = 0;
    }
    while (buf_.size() < need && !eof_) {
        const std::size_t want = std::max(read_chunk, need - buf_.size());
        std::uint8_t* p = buf_.prepare(want);
        const ssize_t n = ::read(fd_, p, want);
        if (n < 0) {
            if (errno == EINTR) continue;
            error_ = {errno, std::generic_category()};
            return false;
        }
        if (n == 0) eof_ = true;
        buf_.commit(static_cast<std::size_t>(n));
    }
    return true;
}

segment_reader::status segment_reader::next(journal_block_view& out) {
    if (fd_ < 0)
        return error_ = std::make_error_code(std::errc::bad_file_descriptor), status::io_error;
    for (;;) {
        const auto s = walker_.next(buf_.span().subspan(pos_), eof_);
        position_ = s.position;
        switch (s.what) {
            case journal_walk::need_more:
                if (!fill(s.size)) return status::io_error;
                continue;
            case journal_walk::end:
            case journal_walk::torn_tail:
                error_ = s.error;
                return status::end;
            case journal_walk::damaged:
            case journal_walk::offset_jump:
                error_ = s.error;
                bad_size_ = s.size;
                return status::bad;
            case journal_walk::block:
                out = s.block;
                pos_ += s.size;
                good_end_ = walker_.position();
                return status::block;
        }
    }
}

}  // namespace objwire::daemon
