// The owners of sender ids, kept durably where no stored block says them yet: a stream that
// claims an id under a new fence (a rerun that stores nothing new, a new stream before its
// first block) is written here before its welcome, so a daemon restarted before that stream
// stores anything still knows the id's owner and lets it resume (docs/PROTOCOL.md 1.1,
// "Ownership"; docs/JOURNAL.md, "The sender index"). The format is sans-I/O (encode, parse);
// the file is `<data_dir>/stream_fences`, appended per claim - fsynced before the welcome
// unless the claim gave a new id its first owner - and rewritten compact at start.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>

#include "daemon/store/sender_registry.hpp"
#include "proto/byte_buffer.hpp"

namespace objwire::daemon {

// One record: u32 LE length of the id, the id, the 16-byte fence, CRC-32C (u32 LE) of all
// before it. A later record of an id replaces an earlier one.
void encode_fence_record(byte_buffer& out, std::string_view id, const stream_fence& fence);

// Calls on_record(id, fence) for each whole, intact record from the start of `bytes`; returns
// the bytes they take. A torn or damaged record ends the walk (what follows it is not trusted).
std::size_t parse_fence_records(
    std::span<const std::uint8_t> bytes,
    const std::function<void(std::string_view, const stream_fence&)>& on_record);

class fence_log {
  public:
    explicit fence_log(std::filesystem::path file) : file_(std::move(file)) {}
    // Gives every id's newest fence to `senders` (it overrides the journal's: a claim is
    // written here before any block of it), then rewrites the file with those only.
    std::error_code recall(sender_registry& senders);
    // before_return: the record is on disk when append returns (fsynced); with_later_syncs: it
    // is written, and on disk with the next before_return append or the system's writeback.
    enum class durability { before_return, with_later_syncs };
    // Appends `id`'s new fence.
    std::error_code append(std::string_view id, const stream_fence& fence,
                           durability d = durability::before_return);
    const std::filesystem::path& file() const { return file_; }

  private:
    std::filesystem::path file_;
};

}  // namespace objwire::daemon
