// How many bytes a connection may make the daemon store for the bytes it sent on the wire
// (limits.max_stored_ratio, docs/SECURITY.md "Amplification"). Two things make few wire bytes
// into many stored ones: compression (zstd turns 16 MiB of null messages into 542 bytes, and
// the journal stores what they decode to) and back-references (a stored block stands alone, so
// a reference of a byte or two is stored as the whole value it names: one 4 MiB string
// referenced four times a frame made 200 frames of 10 bytes store 3.2 GB). Both are charged
// alike: received bytes are the frames' bytes as they came off the wire (header and payload,
// compressed or not), stored bytes what the sink took. A connection may store the ratio times
// what it sent plus a first 1 MiB, so a short stream whose first frames lean on types and
// strings is never refused, while one frame can never store more than ratio x its size + 1 MiB.
// Honest streams store about what they send times their compression ratio (about 2 for zstd
// on encoded objects, docs/COMPRESSION.md).
//
// sender_store_quota adds an optional bound per sender id (limits.sender_stored_quota): the
// bytes all connections of one sender id have stored since objwired started. Sender ids are
// the peer's choice, so it bounds a runaway sender, not one that invents ids (the ratio does).
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>

namespace objwire::daemon {

class store_allowance {
  public:
    // ratio 0: no limit.
    explicit store_allowance(std::uint64_t ratio) : ratio_(ratio) {}

    // A frame of `bytes` on the wire (header and payload as sent).
    void received(std::uint64_t bytes) { received_ += bytes; }
    // Counts `bytes` more stored; the refusal, naming the figures and the key, when they take
    // the connection past its allowance (empty: within it).
    std::string stored(std::uint64_t bytes) {
        stored_ += bytes;
        if (ratio_ == 0 || stored_ <= allowed()) return {};
        return "storing " + std::to_string(stored_) + " bytes for " + std::to_string(received_) +
               " bytes received on the wire: over limits.max_stored_ratio (" +
               std::to_string(ratio_) + " bytes stored per byte received, plus the first " +
               std::to_string(free_bytes) + ", so at most " + std::to_string(allowed()) + ")";
    }
    std::uint64_t stored_bytes() const { return stored_; }
    std::uint64_t allowed() const { return ratio_ * received_ + free_bytes; }

    static constexpr std::uint64_t free_bytes = std::uint64_t{1} << 20;

  private:
    std::uint64_t ratio_;
    std::uint64_t received_ = 0;
    std::uint64_t stored_ = 0;
};

class sender_store_quota {
  public:
    // quota 0: no quota.
    explicit sender_store_quota(std::uint64_t quota) : quota_(quota) {}

    // Counts `bytes` more stored for `sender_id`; the refusal when that passes the quota.
    // Anonymous senders (empty id) have only the per-connection bound.
    std::string stored(const std::string& sender_id, std::uint64_t bytes) {
        if (quota_ == 0 || sender_id.empty()) return {};
        std::uint64_t total;
        {
            std::lock_guard lock(mutex_);
            total = stored_[sender_id] += bytes;
        }
        if (total <= quota_) return {};
        return "sender id '" + sender_id + "' has stored " + std::to_string(total) +
               " bytes since objwired started: over limits.sender_stored_quota (" +
               std::to_string(quota_) + " bytes)";
    }

  private:
    std::uint64_t quota_;
    std::mutex mutex_;
    std::unordered_map<std::string, std::uint64_t> stored_;
};

}  // namespace objwire::daemon
