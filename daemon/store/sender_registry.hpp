// Where each sender's stream stands, for resume (docs/PROTOCOL.md "Resume", docs/JOURNAL.md
// "The sender index"): per sender id, the last frame sequence whose objects are durable, the
// objects stored so far and the input digest its sender reported for them, the fence of the
// stream that owns the id, the batches of that id still on their way to durability, and the
// one connection allowed to stream for it. Seeded at start from what the sink remembers (the
// journal's block headers and stream records; the JSON-lines sink remembers nothing), then
// updated as batches become durable. Any thread.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "proto/journal_block.hpp"

namespace objwire::daemon {

// What identifies the stream that owns a sender id without revealing its token: the first 16
// bytes of the token's SHA-256 (kept in memory and in the journal's stream records).
using stream_fence = std::array<std::uint8_t, 16>;
stream_fence fence_of(std::string_view resume_token);
// A new resume token: 16 random bytes as 32 lowercase hex digits.
std::string new_resume_token();

// A sender id's stream as far as it is durable.
struct stream_state {
    std::uint64_t last_durable = 0;  // its last durable frame (0: never seen)
    std::uint64_t objects = 0;       // objects stored, over all its connections
    std::uint64_t digest = 0;        // the input digest its sender reported for them (0: none)
};

class sender_registry {
  public:
    // At start, before any connection: a block of `id` covering frames up to `last_sequence`
    // is stored, with its stream record if it has one (the newest block wins).
    void remember(const std::string& id, std::uint64_t last_sequence,
                  const journal_stream_record* record = nullptr);
    // At start, after remember(): `id` is owned by the stream of `fence` (daemon/serve/fence_log).
    void own(const std::string& id, const stream_fence& fence);
    // The last durable frame of `id`; 0 for a sender never seen.
    std::uint64_t last_durable(const std::string& id) const;
    stream_state state(const std::string& id) const;
    std::size_t size() const;

    // A batch of `id` was handed to the sink ...
    void batch_committed(const std::string& id);
    // ... and the sink reported it: durable (its frames up to last_sequence are stored, and
    // with them the stream's first `objects` objects, of input digest `digest`), or failed.
    // Called from the sink's thread.
    void batch_done(const std::string& id, std::uint64_t last_sequence, bool durable,
                    std::uint64_t objects = 0, std::uint64_t digest = 0);

    enum class claim { claimed, waiting, fenced };
    // What a claim did to the id's owner: kept it, gave a new id (no owner known, nothing
    // stored) its first, or replaced another (or an unknown owner of stored objects).
    enum class fence_change { same, new_id, replaced };
    // One live connection per sender id, and only the stream that owns the id may resume it
    // (docs/PROTOCOL.md 1.1, "Ownership"). `resume` is the fence of the token the hello
    // presented (nullopt: a new stream, which would own the id under `fresh`).
    // - fenced: the id is owned by another stream than the one `resume` names.
    // - claimed: `owner` is the id's connection now (no other connection holds it and none of
    //   its batches is still in flight); the id's fence is `resume` or `fresh` (`change`
    //   says how that differs from before).
    // - waiting: `on_free` is called (from whichever thread frees it, outside the lock) when
    //   the id comes free. A resuming stream's holder is asked to stop (`stop` of the
    //   holder, called once: it is this stream's own broken connection); a new stream's is not.
    claim try_claim(const std::string& id, std::uint64_t owner,
                    const std::optional<stream_fence>& resume, const stream_fence& fresh,
                    std::function<void()> stop, std::function<void()> on_free,
                    fence_change* change = nullptr);
    // Whether a connection holds `id` now.
    bool held(const std::string& id) const;
    // The connection `owner` will commit no more batches of `id`.
    void release(const std::string& id, std::uint64_t owner);

  private:
    struct entry {
        stream_state stream;
        std::optional<stream_fence> fence;  // nullopt: no owner known (never claimed here)
        std::uint64_t in_flight = 0;        // batches committed, not yet reported
        std::uint64_t owner = 0;            // 0: no live connection
        std::function<void()> stop_owner;
        bool stop_asked = false;
        std::vector<std::function<void()>> waiting;  // called when the id comes free
    };
    static fence_change fence_change_of(const entry& e, const stream_fence& now);
    // The waiters to call (outside the lock) if `e` is free now.
    static std::vector<std::function<void()>> take_waiters_if_free(entry& e);

    mutable std::mutex mutex_;
    std::unordered_map<std::string, entry> entries_;
};

}  // namespace objwire::daemon
