// A sender connection's replies, in the order the receiver queued them. The replies to a read
// that stored objects (its ack, and an error or goodbye after it) are held until that read's
// batch is durable; until then they hold the bytes read for it - or what its messages take in
// memory, for a sink that keeps them - against limits.max_buffered_bytes. The writer sends the
// released replies at the front, so acks go out in order and never before their objects are
// stored. No I/O: the session drives it (daemon/serve/session.cpp).
#pragma once

#include <cstdint>
#include <deque>
#include <span>
#include <vector>

#include "proto/byte_buffer.hpp"

namespace objwire::daemon {

class reply_queue {
  public:
    // The id the next reply gets: a batch is committed, naming it, before its reply is queued.
    std::uint64_t next_id() const { return next_id_; }
    // A reply sent as soon as those before it are: the welcome, a refusal, an ack of a read
    // that stored nothing. received_ns: when its read completed a frame (0: no ack in it).
    void push_released(std::span<const std::uint8_t> bytes, std::uint64_t received_ns = 0);
    // A reply held until release(its id), holding `held` bytes until then.
    void push_held(std::span<const std::uint8_t> bytes, std::uint64_t received_ns,
                   std::uint64_t held);
    // The batch named `id` is durable: its reply is released. Returns the bytes it held.
    std::uint64_t release(std::uint64_t id);
    // Reply `id`'s batch will never be stored: it and every reply after it are dropped, never
    // sent (those before it still are, once released). Returns the bytes they held.
    std::uint64_t drop_from(std::uint64_t id);
    // Appends the released replies at the front to `out`, and the received_ns of the acks
    // among them to `acked_ns`; they leave the queue.
    void take_released(byte_buffer& out, std::vector<std::uint64_t>& acked_ns);

    bool empty() const { return replies_.empty(); }
    bool has_released() const { return !replies_.empty() && replies_.front().released; }
    bool all_released() const;
    std::uint64_t held_bytes() const { return held_bytes_; }

  private:
    struct reply {
        std::uint64_t id = 0;
        bool released = false;
        byte_buffer bytes;
        std::uint64_t received_ns = 0;
        std::uint64_t held = 0;
    };
    void push(std::span<const std::uint8_t> bytes, std::uint64_t received_ns, bool released,
              std::uint64_t held);

    std::deque<reply> replies_;
    std::uint64_t next_id_ = 1;
    std::uint64_t held_bytes_ = 0;
};

}  // namespace objwire::daemon
