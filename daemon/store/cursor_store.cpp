#include "daemon/store/cursor_store.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <map>
#include <memory>

#include <spdlog/spdlog.h>

#include "daemon/store/sync_directory.hpp"
#include "proto/crc32c.hpp"
#include "proto/errors.hpp"

namespace objwire::daemon {
namespace {

std::error_code last_errno() {
    return {errno, std::generic_category()};
}

class cursor_file_category final : public std::error_category {
  public:
    const char* name() const noexcept override { return "objwire.cursor_file"; }
    std::string message(int ev) const override {
        switch (static_cast<cursor_file_errc>(ev)) {
            case cursor_file_errc::bad_checksum:
                return "the cursor file is damaged (its CRC-32C does not match its offset); "
                       "delete the cursor to start it again";
            case cursor_file_errc::malformed:
                return "the cursor file is damaged (not \"owc1 <offset> <crc32c>\" nor an "
                       "offset in decimal)";
        }
        return "objwire.cursor_file error " + std::to_string(ev);
    }
};

constexpr std::string_view file_tag = "owc1 ";

std::uint32_t checksum_of(std::string_view text) {
    return crc32c({reinterpret_cast<const std::uint8_t*>(text.data()), text.size()});
}

std::optional<std::uint64_t> parse_number(std::string_view text, int base = 10) {
    std::uint64_t v = 0;
    const char* end = text.data() + text.size();
    auto [p, ec] = std::from_chars(text.data(), end, v, base);
    if (ec != std::errc() || p == text.data() || p != end) return std::nullopt;
    return v;
}

// "owc1 <offset> <CRC-32C of what precedes the last space, 8 hex digits>\n"; a file of an
// earlier version holds the offset and a newline only, and is read as it is.
std::optional<std::uint64_t> parse_position(std::string_view text, std::error_code& ec) {
    if (text.empty() || text.back() != '\n') {
        ec = cursor_file_errc::malformed;
        return std::nullopt;
    }
    text.remove_suffix(1);
    if (!text.starts_with(file_tag)) {
        auto v = parse_number(text);
        if (!v) ec = cursor_file_errc::malformed;
        return v;
    }
    const auto space = text.rfind(' ');
    const auto sum = parse_number(text.substr(space + 1), 16);
    const auto v = parse_number(text.substr(file_tag.size(), space - file_tag.size()));
    if (space == file_tag.size() - 1 || !sum || !v || text.size() - space != 9) {
        ec = cursor_file_errc::malformed;
        return std::nullopt;
    }
    if (*sum != checksum_of(text.substr(0, space))) {
        ec = cursor_file_errc::bad_checksum;
        return std::nullopt;
    }
    return v;
}

std::string file_text(std::uint64_t next_offset) {
    const std::string body = std::string(file_tag) + std::to_string(next_offset);
    char sum[9];
    std::snprintf(sum, sizeof sum, "%08x", checksum_of(body));
    return body + " " + sum + "\n";
}

std::error_code write_file_synced(const std::filesystem::path& path, const std::string& text) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return last_errno();
    std::error_code ec;
    std::size_t done = 0;
    while (!ec && done < text.size()) {
        const auto n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno != EINTR) ec = last_errno();
        if (n > 0) done += static_cast<std::size_t>(n);
    }
    if (!ec && ::fsync(fd) != 0) ec = last_errno();
    if (::close(fd) != 0 && !ec) ec = last_errno();
    return ec;
}

}  // namespace

std::error_code make_error_code(cursor_file_errc e) noexcept {
    static const cursor_file_category category;
    return {static_cast<int>(e), category};
}

cursor_store& cursor_store::for_data_dir(const std::filesystem::path& data_dir) {
    static std::mutex m;
    static std::map<std::filesystem::path, std::unique_ptr<cursor_store>> stores;
    std::lock_guard lock(m);
    auto& s = stores[data_dir];
    if (!s) s = std::make_unique<cursor_store>(data_dir);
    return *s;
}

cursor_store::cursor_store(std::filesystem::path data_dir)
    : dir_(std::move(data_dir) / "cursors") {}

std::optional<std::uint64_t> cursor_store::get(const std::string& name, std::error_code& ec) const {
    {
        std::lock_guard lock(positions_mutex_);
        if (const auto it = staged_.find(name); it != staged_.end()) {
            ec.clear();
            return it->second;
        }
    }
    return read_file(name, ec);
}

std::optional<std::uint64_t> cursor_store::read_file(const std::string& name,
                                                     std::error_code& ec) const {
    ec.clear();
    const int fd = ::open(file_of(name).c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (errno != ENOENT) ec = last_errno();
        return std::nullopt;
    }
    std::string text(64, '\0');
    const auto n = ::read(fd, text.data(), text.size());
    ::close(fd);
    if (n < 0) {
        ec = last_errno();
        return std::nullopt;
    }
    text.resize(static_cast<std::size_t>(n));
    return parse_position(text, ec);
}

std::error_code cursor_store::replace_file(const std::string& name, std::uint64_t next_offset) {
    std::error_code ec;
    std::filesystem::create_directories(dir_, ec);
    if (ec) return ec;
    const auto tmp = dir_ / ("." + name + ".tmp");
    ++fsyncs_;
    if ((ec = write_file_synced(tmp, file_text(next_offset)))) return ec;
    if (::rename(tmp.c_str(), file_of(name).c_str()) != 0) return last_errno();
    return {};
}

std::error_code cursor_store::sync_dir() {
    ++fsyncs_;
    return sync_directory(dir_);
}

void cursor_store::note_position(const std::string& name, std::uint64_t next_offset) {
    positions_[name] = {name, next_offset, ++moves_};
}

std::error_code cursor_store::save(const std::string& name, std::uint64_t next_offset) {
    std::lock_guard files(files_mutex_);
    if (auto ec = replace_file(name, next_offset)) return ec;
    {
        std::lock_guard lock(positions_mutex_);
        staged_.erase(name);  // older: the file written now supersedes it
        note_position(name, next_offset);
    }
    return sync_dir();
}

void cursor_store::stage(const std::string& name, std::uint64_t next_offset) {
    std::lock_guard lock(positions_mutex_);
    staged_[name] = next_offset;
    note_position(name, next_offset);
}

std::error_code cursor_store::persist(const std::string& name) {
    std::lock_guard files(files_mutex_);
    std::optional<std::uint64_t> at;
    {
        std::lock_guard lock(positions_mutex_);
        if (const auto it = staged_.find(name); it != staged_.end()) at = it->second;
    }
    if (!at) return {};
    auto ec = replace_file(name, *at);
    if (!ec) ec = sync_dir();
    if (!ec) unstage({{name, *at}});
    return ec;
}

void cursor_store::flush() {
    std::lock_guard files(files_mutex_);
    std::map<std::string, std::uint64_t> taken;
    {
        std::lock_guard lock(positions_mutex_);
        taken = staged_;  // they stay staged, and get() says so, until stored
    }
    if (taken.empty()) return;
    for (const auto& [name, at] : taken) {
        if (auto ec = replace_file(name, at))
            spdlog::error("cannot store cursor '{}' at {} in {}: {}", name, at, dir_.string(),
                          ec.message());
    }
    if (auto ec = sync_dir()) {
        spdlog::error("cannot sync {}: {}", dir_.string(), ec.message());
        return;
    }
    unstage(taken);
}

void cursor_store::unstage(const std::map<std::string, std::uint64_t>& stored) {
    std::lock_guard lock(positions_mutex_);
    for (const auto& [name, at] : stored) {
        // A newer position staged meanwhile waits for the next flush.
        if (const auto it = staged_.find(name); it != staged_.end() && it->second == at)
            staged_.erase(it);
    }
}

std::error_code cursor_store::set(const std::string& name, std::uint64_t next_offset,
                                  std::uint64_t durable_end) {
    if (next_offset > durable_end) return proto_errc::past_end;
    if (!claim(name)) return proto_errc::sender_busy;
    const auto ec = save(name, next_offset);
    release(name);
    return ec;
}

std::error_code cursor_store::remove(const std::string& name) {
    std::lock_guard files(files_mutex_);
    {
        std::lock_guard lock(positions_mutex_);
        staged_.erase(name);
    }
    if (::unlink(file_of(name).c_str()) != 0)
        return errno == ENOENT ? std::error_code(proto_errc::not_found) : last_errno();
    {
        std::lock_guard lock(positions_mutex_);
        positions_.erase(name);
    }
    return sync_dir();
}

std::vector<cursor_entry> cursor_store::list(std::error_code& ec, std::string& damaged) const {
    auto out = list_files(ec, damaged);
    std::lock_guard lock(positions_mutex_);
    for (auto& c : out) {
        if (const auto it = staged_.find(c.name); it != staged_.end()) c.next_offset = it->second;
    }
    return out;
}

std::vector<cursor_entry> cursor_store::list_files(std::error_code& ec,
                                                   std::string& damaged) const {
    std::vector<cursor_entry> out;
    ec.clear();
    damaged.clear();
    if (!std::filesystem::exists(dir_, ec)) return out;
    for (std::filesystem::directory_iterator it(dir_, ec), end; !ec && it != end;
         it.increment(ec)) {
        const auto name = it->path().filename().string();
        if (!valid_cursor_name(name)) continue;  // a leftover temporary file
        std::error_code one;
        if (auto at = read_file(name, one)) {
            out.push_back({name, *at});
        } else if (one) {
            damaged += (damaged.empty() ? "cursor '" : "; cursor '") + name + "': " + one.message();
        }
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    return out;
}

std::vector<cursor_position> cursor_store::positions() const {
    // The first call reads the files under the lock (once), so a save or remove meanwhile
    // waits and lands after it.
    std::lock_guard lock(positions_mutex_);
    if (!positions_loaded_) {
        std::error_code ec;
        std::string damaged;
        const auto found = list_files(ec, damaged);  // damaged ones are reported where read
        for (const auto& c : found)
            positions_.try_emplace(c.name, cursor_position{c.name, c.next_offset, 0});
        positions_loaded_ = !ec;
    }
    std::vector<cursor_position> out;
    out.reserve(positions_.size());
    for (const auto& [name, p] : positions_)
        out.push_back(p);
    return out;
}

bool cursor_store::claim(const std::string& name) {
    std::lock_guard lock(mutex_);
    return in_use_.insert(name).second;
}

void cursor_store::release(const std::string& name) {
    std::lock_guard lock(mutex_);
    in_use_.erase(name);
}

bool cursor_store::in_use(const std::string& name) const {
    std::lock_guard lock(mutex_);
    return in_use_.count(name) != 0;
}

}  // namespace objwire::daemon
