// Frames: the unit of transfer, acknowledgement and checksumming. A fixed 24-byte header
// (docs/PROTOCOL.md, "Frames") then the payload. The parser validates a header as soon as its
// 24 bytes are there, so an oversized or foreign frame is refused before its payload is waited
// for or any memory is set aside for it.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <system_error>

#include <objwire/proto/byte_buffer.hpp>

namespace objwire {

enum class frame_kind : std::uint8_t {
    hello = 1,    // client -> server: handshake
    welcome = 2,  // server -> client: handshake answer with the receiver's limits
    data = 3,     // messages
    ack = 4,      // receiver -> sender: frames up to a sequence are stored
    error = 5,    // either way: why the connection is about to close
    goodbye = 6,  // sender: no more data; receiver: answered after the final ack
    // server -> reader: one journal block exactly as stored (docs/JOURNAL.md section 2)
    journal_block = 7,
    stats = 8,  // server -> stats client: the daemon's metrics, Prometheus text format
    // sender -> receiver, just before data frame `sequence`: the sender's input digest after
    // that frame's objects (docs/PROTOCOL.md 1.1, "Reruns")
    mark = 9,
    // server -> reader: offsets lost to damage in the journal, payload two u64 LE: the first
    // lost offset and the offset after the last (docs/JOURNAL.md 6.1)
    gap = 10,
    cursor_list = 11,  // server -> reader: the named cursors (docs/PROTOCOL.md 1.2)
    sender_list = 12,  // server -> reader: the sender ids held, in one or more frames (1.2)
};

// zstd_stream: zstd whose context persists across the data frames of one connection (each
// frame ends with a flush, so it decodes once the frames before it have); docs/PROTOCOL.md 2.1.
enum class codec_id : std::uint8_t { none = 0, zlib = 1, zstd = 2, lz4 = 3, zstd_stream = 4 };

// Header flag of a zstd_stream data frame: the codec's context starts afresh with this frame
// (the first such frame of a connection, and whenever the sender changed level).
inline constexpr std::uint8_t frame_flag_stream_start = 1;
// Header flag of a zstd_stream data frame whose payload, in column layout, was compressed
// section by section, each in its own context.
inline constexpr std::uint8_t frame_flag_columns = 2;

inline constexpr std::size_t frame_header_size = 24;

struct frame_header {
    frame_kind kind = frame_kind::data;
    std::uint8_t flags = 0;
    codec_id codec = codec_id::none;
    std::uint32_t payload_len = 0;  // bytes after the header, as sent
    std::uint64_t sequence = 0;     // data frames 1, 2, 3...; control frames 0
    std::uint32_t raw_len = 0;      // payload length once decompressed
    std::uint32_t crc = 0;          // CRC-32C of header bytes 0..19 and the payload
};

// Writes the header in front of a payload already placed at frame[24..]. `frame` spans both.
void seal_frame(std::span<std::uint8_t> frame, frame_kind kind, std::uint64_t sequence,
                codec_id codec = codec_id::none, std::uint32_t raw_len = 0, std::uint8_t flags = 0);

// A payload summed once so that frames carrying it are sealed without reading it again (one
// stored block sent to many readers, each frame with a header of its own).
struct payload_sum {
    std::uint32_t size = 0;
    std::uint32_t crc = 0;    // crc32c of the payload
    std::uint32_t shift = 0;  // crc32c_shift(size)
};
payload_sum sum_payload(std::span<const std::uint8_t> payload);

// The header of a frame (no codec, no flags) whose payload is summed in `payload`: the
// payload follows it on the wire from wherever it is held (a gathered write).
void seal_frame_header(std::span<std::uint8_t, frame_header_size> header, frame_kind kind,
                       std::uint64_t sequence, const payload_sum& payload);

// Appends a whole frame with the given payload.
void append_frame(byte_buffer& out, frame_kind kind, std::uint64_t sequence,
                  std::span<const std::uint8_t> payload);

struct frame_view {
    frame_header header;
    std::span<const std::uint8_t> payload;
};

class frame_parser {
  public:
    explicit frame_parser(std::uint32_t max_frame_bytes) : max_frame_bytes_(max_frame_bytes) {}

    enum class status { frame, need_more, error };
    struct result {
        status state = status::need_more;
        std::size_t size = 0;  // frame: bytes consumed; need_more: total bytes needed
        frame_view frame;
        std::error_code error;
        // False for a frame of the kind left to the caller (check_payload_later): its
        // checksum is not verified yet. head_sum: crc32c of its header's bytes 0..19, where the
        // frame's checksum starts.
        bool checked = true;
        std::uint32_t head_sum = 0;
    };

    // Looks at the start of `in` for one complete frame.
    result parse(std::span<const std::uint8_t> in) const;
    std::uint32_t max_frame_bytes() const { return max_frame_bytes_; }
    // Frames of `kind` come out unchecked: the caller verifies each one's checksum in the same
    // pass over the payload as a check of its own (a stored block's CRC-32C: one pass, not
    // two). Every frame of that kind must then be checked by the caller before it is used.
    void check_payload_later(frame_kind kind) { later_ = kind; }

  private:
    std::uint32_t max_frame_bytes_;
    std::optional<frame_kind> later_;
};

}  // namespace objwire
