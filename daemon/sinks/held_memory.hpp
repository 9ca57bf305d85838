// What a relay's queued messages cost in memory, and how a connection is charged for them
// (docs/OPERATIONS.md section 4; docs/SECURITY.md, "Promises held against any peer"). The
// forward sink keeps decoded messages until its next hop acknowledges them, and a decoded
// message costs far more than its wire bytes: a one-byte null message is a message node of
// about a hundred bytes. So a connection is charged, against limits.max_buffered_bytes, the
// larger of the bytes it sent and the memory its queued messages take; a frame whose messages
// alone cost more is refused; and a read takes no more bytes than could decode within what is
// left. No I/O: the session (daemon/serve/session_limits.cpp) applies it, unit tests hold it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

#include "proto/value.hpp"

namespace objwire::daemon {

// The memory of the messages of one open batch, by the figures of the table's accounting rule
// (proto/reference_table.hpp: a value node, its heap blocks): each message's slot in the
// batch's deque, the values and containers it owns, and each record type once per batch -
// messages share their types, and a batch keeps them alive.
class message_memory {
  public:
    // A message's slot in a std::deque<message>: the message, and its share of the deque's
    // 512-byte chunks and chunk map.
    static constexpr std::uint64_t message_slot = sizeof(message) + 16;

    // Adds m; its cost (with the types it is the first of this batch to hold).
    std::uint64_t add(const message& m);
    std::uint64_t bytes() const { return bytes_; }
    // The batch's messages so far are whole frames; rollback() forgets those added since.
    void mark();
    void rollback();
    void clear();

  private:
    std::uint64_t value_cost(const value& v);

    std::uint64_t bytes_ = 0;
    std::unordered_set<const record_type*> types_;
    std::vector<const record_type*> type_order_;  // as first held, so rollback() can forget
    std::uint64_t mark_bytes_ = 0;
    std::size_t mark_types_ = 0;
};

// How a connection whose sink keeps decoded messages is charged (the relay).
struct memory_charge {
    // The most one wire byte decodes to without references: a null message, one byte, takes a
    // message slot. References expand further but are bounded per frame apart
    // (limits.max_reference_bytes) and per connection (limits.max_stored_ratio).
    static constexpr std::uint64_t max_per_wire_byte = message_memory::message_slot;
    // A read never takes fewer bytes than this while reading goes on: each step makes progress.
    static constexpr std::size_t min_read = 4096;

    // What a read holds until its batch is durable: its wire bytes (the credit's unit) or the
    // memory its queued messages take, whichever is larger.
    static std::uint64_t charge(std::uint64_t wire_bytes, std::uint64_t memory) {
        return wire_bytes > memory ? wire_bytes : memory;
    }
    // How many of the `offered` bytes the next read may take while `held` is charged against
    // `cap`: no more than could decode within what is left of the cap, and at least min_read
    // (hold_reading() waits while held passes the cap). So before a read what is held is
    // within the cap, and one read adds at most what is left of it, min_read decoded, and the
    // frame it completes (itself within the cap, or refused).
    static std::size_t read_limit(std::size_t offered, std::uint64_t held, std::uint64_t cap);
    // The refusal of a frame whose messages alone cost more than `cap` (empty: within it).
    static std::string frame_refusal(std::uint64_t frame_memory, std::uint64_t cap);
};

}  // namespace objwire::daemon
