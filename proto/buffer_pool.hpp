// Byte buffers kept for reuse across connections, bounded in bytes. A connection takes a
// buffer while it has bytes to handle and gives it back when it waits: memory malloc would
// otherwise give back to the system and fault in again for the next connection (with 1,000
// connections that was 30% of objwired's samples), and an idle connection holds no buffer.
// Thread-safe: one pool serves every thread of a daemon. No I/O.
#pragma once

#include <cstddef>
#include <mutex>
#include <vector>

#include "proto/byte_buffer.hpp"

namespace objwire {

class buffer_pool {
  public:
    // Keeps at most max_bytes of capacity in all, and no buffer larger than max_buffer_bytes
    // (a rare large frame's buffer is freed, not kept).
    buffer_pool(std::size_t max_bytes, std::size_t max_buffer_bytes)
        : max_bytes_(max_bytes), max_buffer_bytes_(max_buffer_bytes) {}
    buffer_pool(const buffer_pool&) = delete;
    buffer_pool& operator=(const buffer_pool&) = delete;

    // An empty buffer with room for at least `capacity` bytes: a kept one when one is large
    // enough (the most recently given: its pages are the likeliest to be resident), else new.
    byte_buffer take(std::size_t capacity);
    // Takes `b` back (its bytes are dropped); it is freed instead when keeping it would pass
    // either bound.
    void give(byte_buffer&& b);

    // Capacity kept now, and how many buffers.
    std::size_t kept_bytes() const;
    std::size_t kept() const;

  private:
    const std::size_t max_bytes_;
    const std::size_t max_buffer_bytes_;
    mutable std::mutex mutex_;
    std::vector<byte_buffer> free_;
    std::size_t kept_bytes_ = 0;
};

}  // namespace objwire
