// Accumulates bytes from a stream and hands out whole frames. The I/O layer reads straight into
// prepare()'s span - in blocks, never byte by byte - and commits what arrived; next() then
// yields each complete frame in place, without copying it.
#pragma once

#include <cstdint>
#include <span>
#include <system_error>
#include <utility>

#include "proto/byte_buffer.hpp"
#include "proto/frame.hpp"

namespace objwire {

class frame_reader {
  public:
    frame_reader(std::uint32_t max_frame_bytes, std::size_t block_size)
        : parser_(max_frame_bytes), block_size_(block_size) {}

    // Space for the next read: at least a block, more when a large frame is still arriving.
    std::span<std::uint8_t> prepare();
    void commit(std::size_t n) { buf_.commit(n); }

    // The next complete frame, valid until the next call to prepare() or next(). need_more
    // when the buffer ends inside a frame; error when the bytes are not a valid frame.
    frame_parser::result next();

    // Frames of `kind` come out unchecked, for the caller to check (frame_parser).
    void check_payload_later(frame_kind kind) { parser_.check_payload_later(kind); }

    // Bytes received and not yet handed out as frames.
    std::size_t buffered() const { return buf_.size() - start_; }
    std::size_t capacity() const { return buf_.capacity(); }
    // Gives the buffer back (bytes still buffered are dropped): for a connection that will read
    // no more frames, or for a while none, through this reader.
    byte_buffer release() {
        start_ = needed_ = 0;
        return std::exchange(buf_, byte_buffer{});
    }
    // Reads on into `b` (its bytes are dropped), after release().
    void adopt(byte_buffer&& b) {
        buf_ = std::move(b);
        buf_.clear();
    }

  private:
    frame_parser parser_;
    std::size_t block_size_;
    byte_buffer buf_;
    std::size_t start_ = 0;   // first byte not yet handed out
    std::size_t needed_ = 0;  // total bytes the frame at start_ needs, when known
};

}  // namespace objwire
