// Whether frames are compressed (compression.policy) and what the policy decided, measured:
// client::connection::compression(), metrics and `objwire bench --json`. Part of the
// library's public vocabulary (installed, docs/LIBRARY.md "The public surface"); the rule
// itself is proto/compression_policy.hpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include <objwire/proto/frame.hpp>

namespace objwire {

enum class compression_mode : std::uint8_t { never, always, automatic };
std::string_view mode_name(compression_mode m);  // "never", "always", "auto"
std::optional<compression_mode> parse_mode(std::string_view name);

// The decision and its inputs, for metrics and `objwire bench --json`.
struct compression_stats {
    compression_mode mode = compression_mode::automatic;
    codec_id codec = codec_id::none;  // codec in use (after fallback), none if unavailable
    int level = 0;
    bool compressing = false;             // auto's current decision (always: true, never: false)
    bool incompressible = false;          // data judged incompressible: only rare probes
    bool downstream = false;              // held back past the link: decided by measured throughput
    bool link_measured = false;           // link figure is a measurement, not configured
    bool link_estimated = false;          // link_mbit is an estimate in use, not a lower bound
    double link_mbit = 0;                 // link estimate in use (Mbit/s); else largest lower bound
    double ratio = 1;                     // compressed/raw, moving average
    double compress_mb_s = 0;             // sender's compression speed (raw MB/s), 0 while unknown
    double decompress_mb_s = 0;           // receiver's, from acks; 0 while not reported
    double sender_mb_s = 0;               // sender's own speed without compression, 0 while unknown
    std::uint64_t frames = 0;             // frames planned
    std::uint64_t frames_tried = 0;       // compression attempts (decisions, samples, probes)
    std::uint64_t frames_compressed = 0;  // frames sent compressed
    std::uint64_t raw_bytes = 0;          // payload bytes before compression, all frames
    std::uint64_t wire_bytes = 0;         // payload bytes as sent, all frames
};

}  // namespace objwire
