#include "daemon/serve/fence_log.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <iterator>
#include <map>
#include <vector>

#include "daemon/store/sync_directory.hpp"
#include "proto/crc32c.hpp"

namespace objwire::daemon {
namespace {

// A sender id is hello text (at most journal_max_sender_id bytes): a longer length is damage.
constexpr std::size_t record_overhead = 4 + 16 + 4;

std::error_code last_errno() {
    return {errno, std::generic_category()};
}

std::error_code write_all(int fd, std::span<const std::uint8_t> bytes) {
    while (!bytes.empty()) {
        const auto n = ::write(fd, bytes.data(), bytes.size());
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return last_errno();
        bytes = bytes.subspan(static_cast<std::size_t>(n));
    }
    return {};
}

std::error_code write_synced(const std::filesystem::path& file, std::span<const std::uint8_t> b,
                             int flags, bool sync = true) {
    const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | flags, 0644);
    if (fd < 0) return last_errno();
    auto ec = write_all(fd, b);
    if (!ec && sync && ::fsync(fd) != 0) ec = last_errno();
    ::close(fd);
    return ec;
}

}  // namespace

void encode_fence_record(byte_buffer& out, std::string_view id, const stream_fence& fence) {
    const std::size_t start = out.size();
    out.put_u32(static_cast<std::uint32_t>(id.size()));
    out.append(id);
    out.append(fence.data(), fence.size());
    out.put_u32(crc32c(std::span(out.data() + start, out.size() - start)));
}

std::size_t parse_fence_records(
    std::span<const std::uint8_t> bytes,
    const std::function<void(std::string_view, const stream_fence&)>& on_record) {
    std::size_t at = 0;
    while (bytes.size() - at >= record_overhead) {
        const std::uint32_t len = load_le<std::uint32_t>(bytes.data() + at);
        if (len == 0 || len > journal_max_sender_id) break;
        const std::size_t size = record_overhead + len;
        if (bytes.size() - at < size) break;
        const auto body = bytes.subspan(at, size - 4);
        if (crc32c(body) != load_le<std::uint32_t>(bytes.data() + at + size - 4)) break;
        stream_fence fence;
        std::copy_n(body.data() + 4 + len, fence.size(), fence.begin());
        on_record(std::string_view(reinterpret_cast<const char*>(body.data() + 4), len), fence);
        at += size;
    }
    return at;
}

std::error_code fence_log::recall(sender_registry& senders) {
    std::vector<std::uint8_t> bytes;
    {
        std::ifstream in(file_, std::ios::binary);
        if (in) bytes.assign(std::istreambuf_iterator<char>(in), {});
    }
    std::map<std::string, stream_fence, std::less<>> newest;
    parse_fence_records(bytes, [&](std::string_view id, const stream_fence& f) {
        newest.insert_or_assign(std::string(id), f);
    });
    byte_buffer compact;
    for (const auto& [id, fence] : newest) {
        senders.own(id, fence);
        encode_fence_record(compact, id, fence);
    }
    // Rewritten whole: a torn tail goes, and the file holds one record per id.
    const auto tmp = std::filesystem::path(file_).concat(".tmp");
    if (auto ec = write_synced(tmp, compact.span(), O_TRUNC)) return ec;
    if (::rename(tmp.c_str(), file_.c_str()) != 0) return last_errno();
    return sync_directory(file_.parent_path());
}

std::error_code fence_log::append(std::string_view id, const stream_fence& fence, durability d) {
    byte_buffer record;
    encode_fence_record(record, id, fence);
    return write_synced(file_, record.span(), O_APPEND, d == durability::before_return);
}

}  // namespace objwire::daemon
