// The sender's compression stage: asks the policy whether a sealed batch's payload should be
// compressed, compresses it into a reusable buffer, keeps the smaller form in place, times the
// attempt and tells the policy what it gave. One per connection; sans-I/O.
#pragma once

#include <cstdint>

#include "proto/byte_buffer.hpp"
#include "proto/clock.hpp"
#include "proto/codec.hpp"
#include "proto/compression_policy.hpp"

namespace objwire {

class batch_compressor {
  public:
    explicit batch_compressor(compression_options opts, clock_function clock = {},
                              compression_tuning tuning = {});

    struct packed {
        codec_id codec = codec_id::none;
        std::uint32_t raw_len = 0;  // payload length before compression
        std::uint8_t flags = 0;     // frame header flags (frame_flag_stream_start, _columns)
    };
    // `out` holds a payload from `from` to its end. Replaces it by its compressed form when
    // the policy asks for an attempt and the result is smaller; says what the payload is now.
    packed pack(byte_buffer& out, std::size_t from);
    // A new connection: zstd_stream starts a fresh context with its next frame.
    void restart_stream() { compressor_.restart_stream(); }

    compression_policy& policy() { return policy_; }
    const compression_policy& policy() const { return policy_; }

  private:
    compression_policy policy_;
    frame_compressor compressor_;
    byte_buffer buf_;
    clock_function clock_;
};

}  // namespace objwire
