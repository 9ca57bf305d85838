// Where each sender's stream stands, for resume (docs/PROTOCOL.md "Resume", docs/JOURNAL.md
// "The sender index"): per sender id, the last frame sequence whose objects are durable, the
// batches of that id still on their way to durability, and the one connection allowed to
// stream for it. Seeded at start from what the sink remembers (the journal's block headers;
// the JSON-lines sink remembers nothing), then updated as batches become durable. Any thread.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace objwire::daemon {

class sender_registry {
  public:
    // At start, before any connection: `last_sequence` of `id` is stored (the larger wins).
    void remember(const std::string& id, std::uint64_t last_sequence);
    // The last durable frame of `id`; 0 for a sender never seen.
    std::uint64_t last_durable(const std::string& id) const;
    std::size_t size() const;

    // A batch of `id` was handed to the sink ...
    void batch_committed(const std::string& id);
    // ... and the sink reported it: durable (its frames up to last_sequence are stored), or
    // failed. Called from the sink's thread.
    void batch_done(const std::string& id, std::uint64_t last_sequence, bool durable);

    // One live connection per sender id. `owner` becomes the id's connection when no other
    // connection holds it and none of its batches is still in flight; then true. Otherwise
    // the holder is asked to stop (`stop` of the holder, called once) and `on_free` is called
    // (from whichever thread frees it, outside the lock) when the id comes free; false.
    bool try_claim(const std::string& id, std::uint64_t owner, std::function<void()> stop,
                   std::function<void()> on_free);
    // The connection `owner` will commit no more batches of `id`.
    void release(const std::string& id, std::uint64_t owner);

  private:
    struct entry {
        std::uint64_t last_durable = 0;
        std::uint64_t in_flight = 0;  // batches committed, not yet reported
        std::uint64_t owner = 0;      // 0: no live connection
        std::function<void()> stop_owner;
        bool stop_asked = false;
        std::vector<std::function<void()>> waiting;  // called when the id comes free
    };
    // The waiters to call (outside the lock) if `e` is free now.
    static std::vector<std::function<void()>> take_waiters_if_free(entry& e);

    mutable std::mutex mutex_;
    std::unordered_map<std::string, entry> entries_;
};

}  // namespace objwire::daemon
