// Journal blocks: the unit objwired stores, sans-I/O. A block is a header, the sender's id and
// a payload of messages in the value encoding written by a fresh encoder, so every block
// starts from an empty reference table and can be decoded, served or copied on its own. The
// header carries the block's place in the journal (its first offset, counted in messages),
// the sender's frame sequence range (for dedup and resume), the time it was stored, and a
// CRC-32C over everything. The byte layout is in docs/JOURNAL.md.
//
//   journal_block_writer w("sender-a");            // one per connection, reused per block
//   w.add(m1); w.add(m2);                         // encodes as they come
//   auto block = w.finish(first_seq, last_seq, now_ms);  // body CRC computed here
//   seal_journal_block(block, first_offset);      // header CRC only: cheap, under the lock
//   ... later ...
//   auto r = parse_journal_block(bytes);          // verify
//   decode_journal_block(r.block, on_message);    // messages
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>

#include "proto/buffer_pool.hpp"
#include "proto/byte_buffer.hpp"
#include "proto/decoder.hpp"
#include "proto/encoder.hpp"
#include "proto/limits.hpp"
#include "proto/util/object_pool.hpp"
#include "proto/value.hpp"

namespace objwire {

// Failures of the block format; decoding a verified payload reports proto_errc values.
enum class journal_errc {
    short_header = 1,     // fewer bytes than a block header: a torn append
    short_block,          // the header announces more bytes than there are: a torn append
    bad_magic,            // not "OWJB": not a block, or the header is corrupt
    unsupported_version,  // a format version this build does not read
    bad_reserved,         // a reserved header field is not zero
    too_large,            // payload or sender id over the format's caps
    bad_checksum,         // CRC-32C mismatch: corrupt or torn
    count_mismatch,       // the payload holds a different number of messages than announced
    offset_gap,           // the block's first offset is not the one expected at its place
    empty_block,          // a block must hold at least one message
};
const std::error_category& journal_category() noexcept;
inline std::error_code make_error_code(journal_errc e) noexcept {
    return {static_cast<int>(e), journal_category()};
}

}  // namespace objwire

template <>
struct std::is_error_code_enum<objwire::journal_errc> : std::true_type {};

namespace objwire {

inline constexpr std::uint8_t journal_block_magic[4] = {'O', 'W', 'J', 'B'};
inline constexpr std::uint8_t journal_format_version = 1;
inline constexpr std::size_t journal_block_header_size = 52;
inline constexpr std::uint32_t journal_max_sender_id = 4096;       // hello's text cap
inline constexpr std::uint32_t journal_max_payload = 1024u << 20;  // 1 GiB

// The limits every block payload is encoded within and decoded with (format version 1). They
// are the daemon's configurable maxima, so whatever a session accepted can be stored.
decoder_limits journal_block_limits();
// Whether a payload a decoder with `limits` accepted from a fresh table can decode the same
// with journal_block_limits(): no lower cap than the journal's, and a table budget no larger.
// Under a smaller one only a payload that evicted nothing does (reads_back_alike in
// proto/receiver.hpp: eviction follows the budget, and would give ids other meanings).
bool journal_block_can_hold(const decoder_limits& limits);

struct journal_block_header {
    std::uint8_t version = journal_format_version;
    std::uint32_t payload_len = 0;
    std::uint32_t message_count = 0;
    std::uint64_t first_offset = 0;    // journal offset of the first message
    std::uint64_t first_sequence = 0;  // sender's frame sequences the messages came in
    std::uint64_t last_sequence = 0;
    std::uint64_t time_ms = 0;  // when stored: milliseconds since the Unix epoch
    std::uint32_t crc = 0;
};

// A sender stream's resume record (header flags bit 0; docs/JOURNAL.md 2.1): where the sender
// id's stream stood after this block. The daemon's sender index keeps the newest one per id.
struct journal_stream_record {
    // SHA-256 of the resume token of the stream that wrote the block, first 16 bytes: only that
    // stream may resume the id (docs/PROTOCOL.md 1.1). The token itself is never stored.
    std::array<std::uint8_t, 16> fence{};
    std::uint64_t objects = 0;  // objects of the sender id stored through this block, in all
    std::uint64_t digest = 0;   // the sender's input digest after them (0: none reported)
    bool operator==(const journal_stream_record&) const = default;
};
inline constexpr std::size_t journal_stream_record_size = 32;
inline constexpr std::uint8_t journal_flag_stream_record = 1;

struct journal_block_view {
    journal_block_header header;
    std::string_view sender_id;
    std::optional<journal_stream_record> record;  // flags bit 0
    std::span<const std::uint8_t> payload;
    std::uint64_t end_offset() const { return header.first_offset + header.message_count; }
    // The whole block's bytes in its segment (what a reader is served as one frame's payload).
    std::size_t bytes() const {
        return journal_block_header_size + sender_id.size() +
               (record ? journal_stream_record_size : 0) + payload.size();
    }
};

// Builds blocks one after another into a reusable buffer.
// What the block writers of one store share (journal_block_writer's pools): buffers up to
// 32 MiB in all, none over 8 MiB (a daemon splits its batches past 4 MiB), and 16 encoders.
struct journal_block_pools {
    buffer_pool buffers{32u << 20, 8u << 20};
    object_pool<stream_encoder> encoders{16};
};

class journal_block_writer {
  public:
    // strings_checked: every string added was already checked as UTF-8 (the daemon stores
    // what its decoder accepted), so encoding skips the check.
    // with_record: every block carries a stream record (set_record(), zeros until then).
    // pools: where the block's buffer and encoder come from when a block opens, and go back
    // to once it is stored (clear()), so a writer between blocks holds neither; null: it
    // keeps its own. Every writer sharing pools must have the same strings_checked.
    explicit journal_block_writer(std::string sender_id = {}, bool strings_checked = false,
                                  bool with_record = false, journal_block_pools* pools = nullptr);
    // The record the next finish() writes (with_record only).
    void set_record(const journal_stream_record& r) { record_ = r; }

    // Encodes one message into the open block (a fresh encoder starts each block). On error
    // nothing of the message stays and the block is still usable; a message that would take
    // the payload past journal_max_payload is refused (too_large).
    std::error_code add(const message& m);
    // Appends a payload that decodes from a fresh table (a received frame's, begun fresh -
    // receiver::frame_fresh()) as it is: `messages` messages stored without encoding them
    // again. too_large as add().
    std::error_code add_payload(std::span<const std::uint8_t> payload, std::uint32_t messages);
    std::uint32_t messages() const { return count_; }
    bool empty() const { return count_ == 0; }
    // Bytes of the block so far, header included (0 with a pool before its first message).
    std::size_t bytes() const { return buf_.size(); }

    // Completes the header, all but the first offset, and checksums the body. The span stays
    // valid until the next add() or clear().
    std::span<std::uint8_t> finish(std::uint64_t first_sequence, std::uint64_t last_sequence,
                                   std::uint64_t time_ms);
    // Starts the next block.
    void clear();
    // Remembers the block as it is; rollback() drops every message added since (a reset op
    // makes the decoder forget what they put in the table, as the encoder does).
    void mark() {
        mark_bytes_ = buf_.size();
        mark_count_ = count_;
    }
    void rollback();
    const std::string& sender_id() const { return sender_id_; }

  private:
    void open();
    void open_if_needed() {
        if (!open_) open();
    }
    stream_encoder& encoder();
    std::size_t payload_start() const {
        return journal_block_header_size + sender_id_.size() + record_bytes_;
    }
    std::size_t payload_bytes() const { return buf_.size() - payload_start(); }

    std::string sender_id_;
    bool strings_checked_ = false;
    journal_block_pools* pools_ = nullptr;
    bool open_ = false;             // buf_ holds the block's header
    std::size_t record_bytes_ = 0;  // journal_stream_record_size when with_record
    journal_stream_record record_;
    byte_buffer buf_;
    std::unique_ptr<stream_encoder> encoder_;
    // A payload was appended since the encoder last wrote: its table no longer matches the
    // decoder's, so the next message starts with a reset op.
    bool encoder_behind_ = false;
    std::uint32_t count_ = 0;
    std::size_t mark_bytes_ = 0;
    std::uint32_t mark_count_ = 0;
};

// Writes the first offset into a finished block and completes its CRC (header bytes only:
// finish() already checksummed the body), so the journal can number a block under its lock
// without reading the body again.
void seal_journal_block(std::span<std::uint8_t> block, std::uint64_t first_offset);
// The message count of a finished block (0 if it is shorter than a header).
std::uint32_t journal_block_message_count(std::span<const std::uint8_t> block);

struct journal_block_parse {
    enum class status { block, need_more, bad };
    status state = status::need_more;
    // block: bytes of the whole block; need_more: bytes the block needs in all (at least a
    // header's worth before the header is there); bad: the block's announced size when its
    // header was readable (checksum, empty block), else 0.
    std::size_t size = 0;
    journal_block_view block;
    std::error_code error;  // need_more: short_header or short_block; bad: why
};

// The record's journal_stream_record_size bytes (after the sender id of a block with flags bit 0).
journal_stream_record parse_journal_stream_record(std::span<const std::uint8_t> bytes);

// Looks at the start of `in` for one whole, verified block.
journal_block_parse parse_journal_block(std::span<const std::uint8_t> in);

// A block carried as a frame's whole payload (a reader's journal_block frame), with the frame's
// checksum left to this check (frame_parser::check_payload_later): one pass of CRC-32C over the
// block's body verifies both the frame's checksum and the block's, which parse_journal_block()
// after the frame's own check would take two passes for. frame_ok false: the frame's checksum
// is wrong, and the block is not looked at. head_sum: crc32c of the frame header's bytes
// 0..19; frame_crc: the checksum the header carries.
struct journal_block_frame_parse {
    bool frame_ok = false;
    journal_block_parse block;  // as parse_journal_block(payload) says, when frame_ok
};
journal_block_frame_parse parse_journal_block_frame(std::span<const std::uint8_t> payload,
                                                    std::uint32_t head_sum,
                                                    std::uint32_t frame_crc);

// A block's header alone (its first journal_block_header_size bytes), for readers that skip
// payloads unread (the sender index): the same checks as parse_journal_block() up to the
// lengths, no CRC. block: header fields and `size` (the whole block's bytes) are set, the
// view's sender id and payload are not; need_more: fewer bytes than a header; bad: why.
struct journal_block_head {
    journal_block_parse::status state = journal_block_parse::status::need_more;
    std::size_t size = 0;
    journal_block_header header;
    std::size_t sender_len = 0;
    std::size_t record_len = 0;  // journal_stream_record_size when flags bit 0
    std::error_code error;
};
journal_block_head parse_journal_block_head(std::span<const std::uint8_t> in);

// Decodes the messages of a verified block with a fresh decoder, calling
// on_message(message&&) for each; the number must match the header.
template <class F>
std::error_code decode_journal_block(const journal_block_view& b, F&& on_message) {
    stream_decoder decoder(journal_block_limits());
    std::uint32_t n = 0;
    auto ec = decoder.decode_payload(b.payload, [&](message&& m) {
        ++n;
        on_message(std::move(m));
    });
    if (ec) return ec;
    if (n != b.header.message_count) return journal_errc::count_mismatch;
    return {};
}

}  // namespace objwire
