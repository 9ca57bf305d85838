// Per-sender order for readers of a NATS stream (sans-I/O). JetStream stores blocks in the
// order they arrive, and a block republished after an ack timeout or a lost server lands
// after blocks its connection published later - at most a few publish windows later. A
// reader wants each sender's objects in the order sent, so the stream reader passes blocks
// through here: a sender's block is released when it follows the last one released (the
// next frame, or the next part of the same batch), or when it has been held too long (by
// stream messages since, by bytes held, or - while following an idle stream - by the
// caller's clock through flush()); then held blocks of that sender that follow it go too.
// A sender's first block is held the same way unless it starts a stream (frame 1, offset 0).
// Nothing is dropped: a block that arrives after its successors were released (held too
// long) is released at once, out of order, and counted.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace objwire::daemon {

struct ordered_block {
    std::uint64_t stream_sequence = 0;
    std::string sender;
    std::uint64_t first_sequence = 0;  // the sender's frame range
    std::uint64_t last_sequence = 0;
    std::uint64_t first_offset = 0;  // objects its connection published before it
    std::uint64_t objects = 0;
    std::vector<std::uint8_t> bytes;
};

class block_reorder {
  public:
    block_reorder(std::uint64_t hold_messages, std::size_t hold_bytes)
        : hold_messages_(hold_messages), hold_bytes_(hold_bytes) {}

    // A block in stream order; appends what may be served now to `out`, in order.
    void add(ordered_block b, std::vector<ordered_block>& out);
    // Releases everything held, each sender's blocks in order (end of the stream, or held
    // too long while nothing else arrives).
    void flush(std::vector<ordered_block>& out);
    bool holding() const { return held_bytes_ > 0 || held_count_ > 0; }
    std::uint64_t released_late() const { return late_; }

  private:
    using key = std::tuple<std::uint64_t, std::uint64_t>;  // first_sequence, first_offset
    struct sender_state {
        bool started = false;  // a block of it was released
        std::uint64_t first = 0, last = 0, next_offset = 0;
        std::map<key, ordered_block> held;
    };
    bool follows(const sender_state& s, const ordered_block& b) const;
    void release(sender_state& s, ordered_block&& b, std::vector<ordered_block>& out);
    void drain(sender_state& s, std::vector<ordered_block>& out);
    void release_first_held(sender_state& s, std::vector<ordered_block>& out);
    void age(std::uint64_t now, std::vector<ordered_block>& out);

    std::uint64_t hold_messages_;
    std::size_t hold_bytes_;
    std::unordered_map<std::string, sender_state> senders_;
    // Held blocks by arrival: (stream sequence, sender, key); stale entries are skipped.
    std::deque<std::tuple<std::uint64_t, std::string, key>> arrivals_;
    std::size_t held_bytes_ = 0;
    std::size_t held_count_ = 0;
    std::uint64_t late_ = 0;
};

}  // namespace objwire::daemon
