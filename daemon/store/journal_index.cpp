#include "daemon/store/journal_index.hpp"

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cerrno>
#include <map>

#include "proto/journal_block.hpp"

namespace objwire::daemon {
namespace {

// Small blocks are read a chunk at a time; after a large block only a header's worth is read,
// so a journal of large blocks costs a few KiB per block.
constexpr std::size_t chunk_bytes = 64 * 1024;
constexpr std::size_t header_bytes =
    journal_block_header_size + journal_max_sender_id + journal_stream_record_size;
static_assert(chunk_bytes >= header_bytes);

class segment_scan {
  public:
    segment_scan(int fd, std::uint64_t file_size) : fd_(fd), size_(file_size) {}

    // The header and sender id of the block at `pos`, read into the chunk if not there yet.
    // Null at the end of the file or on a failed read (error() then says why).
    const std::uint8_t* at(std::uint64_t pos, std::size_t need, std::uint64_t& read) {
        if (pos >= chunk_pos_ && pos + need <= chunk_pos_ + chunk_len_)
            return chunk_.data() + (pos - chunk_pos_);
        // Jumped past the chunk: blocks are large, a header is all that is worth reading.
        const bool jumped = chunk_len_ > 0 && pos > chunk_pos_ + chunk_len_;
        const auto want = static_cast<std::size_t>(
            std::min<std::uint64_t>(jumped ? header_bytes : chunk_bytes, size_ - pos));
        if (want < need) return nullptr;
        std::size_t got = 0;
        while (got < want) {
            const ssize_t n =
                ::pread(fd_, chunk_.data() + got, want - got, static_cast<off_t>(pos + got));
            if (n < 0 && errno == EINTR) continue;
            if (n < 0) {
                error_ = {errno, std::generic_category()};
                return nullptr;
            }
            if (n == 0) break;
            got += static_cast<std::size_t>(n);
        }
        read += got;
        chunk_pos_ = pos;
        chunk_len_ = got;
        return got >= need ? chunk_.data() : nullptr;
    }
    std::error_code error() const { return error_; }

  private:
    int fd_;
    std::uint64_t size_;
    std::vector<std::uint8_t> chunk_ = std::vector<std::uint8_t>(chunk_bytes);
    std::uint64_t chunk_pos_ = 0;
    std::size_t chunk_len_ = 0;
    std::error_code error_;
};

}  // namespace

namespace {

// One segment's blocks from `pos` on, the block there starting at `expected`; false when the
// file could not be opened because it is gone (deleted by retention meanwhile).
std::error_code scan_one(const segment_info& seg, std::uint64_t pos, std::uint64_t expected,
                         std::uint64_t end_offset,
                         const std::function<void(const sender_index_entry&)>& found,
                         journal_index_scan& stats) {
    const int fd = ::open(seg.path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT) return {};  // deleted by retention meanwhile
        return {errno, std::generic_category()};
    }
    ++stats.segments;
    const auto size = static_cast<std::uint64_t>(::lseek(fd, 0, SEEK_END));
    segment_scan scan(fd, size);
    while (pos < size && expected < end_offset) {
        const std::uint8_t* h = scan.at(pos, journal_block_header_size, stats.bytes_read);
        if (!h) break;
        // The header's rules (proto/journal_block.hpp), the payload unread and unverified.
        // A block running past the file's end is a torn tail unless an intact block
        // follows it (a damaged length field), as in every other walk.
        const auto head = parse_journal_block_head({h, journal_block_header_size});
        if (head.state != journal_block_parse::status::block || pos + head.size > size) {
            // Damage costs the damaged block only (docs/JOURNAL.md 4): go on at the next
            // intact block, as recovery and readers do.
            std::error_code ec;
            const auto next = find_intact_block(fd, pos + 1, size, expected, ec);
            if (!next) {
                spdlog::warn("journal: {}: sender index stops at position {}: not a whole block",
                             seg.path.string(), pos);
                break;
            }
            pos = next->position;
            expected = next->first_offset;
            continue;
        }
        const auto& bh = head.header;
        if (bh.first_offset >= end_offset) break;
        expected = bh.first_offset + bh.message_count;
        sender_index_entry e;
        e.first_offset = bh.first_offset;
        e.count = bh.message_count;
        e.time_ms = bh.time_ms;
        e.last_sequence = bh.last_sequence;
        e.segment_first = seg.first_offset;
        e.position = pos;
        e.size = head.size;
        const std::size_t sender_len = head.sender_len;
        const std::size_t record_len = head.record_len;
        journal_stream_record record;
        if (sender_len + record_len > 0) {
            h = scan.at(pos, journal_block_header_size + sender_len + record_len, stats.bytes_read);
            if (!h) break;
            e.sender_id = {reinterpret_cast<const char*>(h + journal_block_header_size),
                           sender_len};
            if (record_len) {
                record = parse_journal_stream_record(
                    {h + journal_block_header_size + sender_len, record_len});
                e.record = &record;
            }
        }
        found(e);
        ++stats.blocks;
        pos += head.size;
    }
    auto ec = scan.error();
    ::close(fd);
    return ec;
}

}  // namespace

std::error_code scan_sender_index(const std::vector<segment_info>& segments,
                                  const std::function<void(const sender_index_entry&)>& found,
                                  journal_index_scan& stats, std::uint64_t end_offset) {
    for (const auto& seg : segments) {
        if (seg.first_offset >= end_offset) break;
        if (auto ec = scan_one(seg, 0, seg.first_offset, end_offset, found, stats)) return ec;
    }
    return {};
}

std::error_code scan_segment_headers(const segment_info& segment, std::uint64_t position,
                                     std::uint64_t first_offset, std::uint64_t end_offset,
                                     const std::function<void(const sender_index_entry&)>& found,
                                     journal_index_scan& stats) {
    return scan_one(segment, position, first_offset, end_offset, found, stats);
}

std::error_code list_senders(const std::vector<segment_info>& segments, std::uint64_t end_offset,
                             sender_list& out, journal_index_scan& stats) {
    std::map<std::string, sender_entry, std::less<>> by_id;
    auto ec = scan_sender_index(
        segments,
        [&](const sender_index_entry& e) {
            if (e.count == 0) return;  // not a block: recovery would have cut it
            auto it = by_id.find(e.sender_id);
            if (it == by_id.end()) {
                it = by_id.emplace(std::string(e.sender_id), sender_entry{}).first;
                it->second.id = it->first;
                it->second.first_offset = e.first_offset;
            }
            auto& s = it->second;
            s.objects += e.count;
            s.last_offset = e.first_offset + e.count - 1;
            s.last_time_ms = e.time_ms;
        },
        stats, end_offset);
    if (ec) return ec;
    out.senders.clear();
    out.senders.reserve(by_id.size());
    for (auto& [id, entry] : by_id)
        out.senders.push_back(std::move(entry));
    return {};
}

}  // namespace objwire::daemon
