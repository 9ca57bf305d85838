// Compressed blocks on a NATS stream (docs/DECISIONS.md, "Compression of NATS blocks"). The
// publisher may store a journal block compressed whole, the message then carrying two headers:
// Objwire-Codec (zlib, zstd or lz4: each block stands alone, never zstd-stream) and
// Objwire-Raw-Len (the block's length, decimal). A message without them holds the block as
// formed (everything stored before compression existed). Whoever reads the stream - the reader
// role, the resume lookup - turns a message back into the block here, with the raw length
// capped before anything is allocated and the block's own CRC checked afterwards by
// parse_journal_block. No libnats here: the header values come in as text.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "proto/byte_buffer.hpp"
#include "proto/codec.hpp"

namespace objwire::daemon {

inline constexpr const char* nats_codec_header = "Objwire-Codec";
inline constexpr const char* nats_raw_len_header = "Objwire-Raw-Len";

// The block a stream message stores, in `out`. `codec` and `raw_len` are the headers' values
// (nullptr when absent). A compressed message must name a per-block codec, claim a raw length
// of at most `max_raw` and decompress to exactly that many bytes; otherwise false, with the
// reason in `why` and nothing allocated past `max_raw`.
bool unpack_nats_block(const char* codec, const char* raw_len,
                       std::span<const std::uint8_t> payload, std::size_t max_raw,
                       frame_decompressor& decompressor, byte_buffer& out, std::string& why);

}  // namespace objwire::daemon
