// How many bytes a connection may make the daemon store for the bytes it sent
// (limits.max_stored_ratio, docs/SECURITY.md "Amplification"). A stored block stands alone, so
// a back-reference or a kept object, a byte or two on the wire, is stored as the whole value
// it names: one 4 MiB string referenced four times a frame made 200 frames of 10 bytes store
// 3.2 GB. Received bytes are counted as the decoder reads them (decompressed: compression is
// bounded on its own, limits.max_decompression_ratio), and the first 1 MiB counts as sent, so a
// short stream of small frames is never refused. Honest streams store about what they send:
// a frame stored whole is stored byte for byte, and one encoded again for the journal only
// repeats the strings and types earlier frames defined.
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

    void received(std::uint64_t bytes) { received_ += bytes; }
    // Counts `bytes` more stored; the refusal, naming the figures and the key, when they take
    // the connection past its allowance (empty: within it).
    std::string stored(std::uint64_t bytes) {
        stored_ += bytes;
        if (ratio_ == 0 || stored_ <= allowed()) return {};
        return "storing " + std::to_string(stored_) + " bytes for " + std::to_string(received_) +
               " bytes received: over limits.max_stored_ratio (" + std::to_string(ratio_) +
               " bytes stored per byte received, the first " + std::to_string(free_bytes) +
               " counted as received, so at most " + std::to_string(allowed()) + ")";
    }
    std::uint64_t stored_bytes() const { return stored_; }
    std::uint64_t allowed() const {
        return ratio_ * (received_ > free_bytes ? received_ : free_bytes);
    }

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
