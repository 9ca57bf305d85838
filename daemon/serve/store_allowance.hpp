// How many bytes a connection may make the daemon store for the bytes it sent
// (docs/SECURITY.md "Amplification"). Two things make few received bytes into many stored ones,
// and each has its ratio:
// - back-references (limits.max_stored_ratio, per byte of data payload decoded): a stored
//   block stands alone, so a reference of a byte or two is stored as the whole value it names:
//   one 4 MiB string referenced four times a frame made 200 frames of 10 bytes store 3.2 GB.
//   Honest streams store about what they decode (a frame stored whole, byte for byte).
// - compression (limits.max_stored_wire_ratio, per byte of data frames as they came off the
//   wire, header and payload compressed as sent): 542 bytes of zstd decode to 16 MiB of null
//   messages (30,954x). Honest streams of objects that repeat reach 9,320x (`person`, 1 MiB
//   frames, zstd-stream): the same bytes, so the bound is a policy, not a proof.
// Each allows its ratio times what was received plus a first 1 MiB, so a short stream whose
// first frames lean on types and strings is never refused, while one frame never stores more
// than a ratio times its size + 1 MiB.
//
// sender_store_quota adds an optional bound per sender id (limits.sender_stored_quota): the
// bytes all connections of one sender id have stored since objwired started. Sender ids are
// the peer's choice, so it bounds a runaway sender, not one that invents ids (the ratios do).
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>

namespace objwire::daemon {

class store_allowance {
  public:
    // Bytes stored per byte received, decoded and on the wire; 0: no limit.
    struct ratios {
        std::uint64_t decoded = 0;  // limits.max_stored_ratio
        std::uint64_t wire = 0;     // limits.max_stored_wire_ratio
    };
    explicit store_allowance(ratios r) : ratios_(r) {}

    // A data frame: its payload decoded (decompressed) and its bytes on the wire (header and
    // payload as sent).
    void received(std::uint64_t decoded, std::uint64_t wire) {
        decoded_ += decoded;
        wire_ += wire;
    }
    // Counts `bytes` more stored; the refusal, naming the figures and the key, when they take
    // the connection past either allowance (empty: within both).
    std::string stored(std::uint64_t bytes) {
        stored_ += bytes;
        if (ratios_.decoded != 0 && stored_ > allowed(ratios_.decoded, decoded_))
            return refusal(decoded_, "received (decoded)", "limits.max_stored_ratio",
                           ratios_.decoded);
        if (ratios_.wire != 0 && stored_ > allowed(ratios_.wire, wire_))
            return refusal(wire_, "received on the wire", "limits.max_stored_wire_ratio",
                           ratios_.wire);
        return {};
    }
    std::uint64_t stored_bytes() const { return stored_; }
    static std::uint64_t allowed(std::uint64_t ratio, std::uint64_t received) {
        return ratio * received + free_bytes;
    }

    static constexpr std::uint64_t free_bytes = std::uint64_t{1} << 20;

  private:
    std::string refusal(std::uint64_t received, const char* how, const char* key,
                        std::uint64_t ratio) const {
        return "storing " + std::to_string(stored_) + " bytes for " + std::to_string(received) +
               " bytes " + how + ": over " + key + " (" + std::to_string(ratio) +
               " bytes stored per byte received, plus the first " + std::to_string(free_bytes) +
               ", so at most " + std::to_string(allowed(ratio, received)) + ")";
    }

    ratios ratios_;
    std::uint64_t decoded_ = 0;
    std::uint64_t wire_ = 0;
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
