// Payloads of the control frames: hello, welcome, ack and error. Each is a list of
// (key, length, value) fields so later versions can add fields that older peers skip;
// hello and welcome start with the magic "OBJW" and the protocol version.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <objwire/proto/byte_buffer.hpp>
#include <objwire/proto/errors.hpp>
#include <objwire/proto/limits.hpp>
#include <objwire/proto/result.hpp>

namespace objwire {

inline constexpr std::uint16_t protocol_version = 1;
// The most relay ids a hello may carry (field 17); a longer path is refused as malformed.
inline constexpr std::size_t max_relay_path = 64;

// What a connection is for, said in its hello: streaming objects in (the default), reading
// stored objects back, or fetching the daemon's metrics.
enum class peer_role : std::uint8_t { sender = 0, reader = 1, stats = 2 };

// A reader connection that asks instead of reading (hello field 15): list or delete the named
// cursors, list the sender ids whose objects the daemon holds, or move (or make) read_cursor
// to read_from - refused, changing nothing, past the durable end.
enum class read_request : std::uint8_t {
    none = 0,
    list_cursors = 1,
    delete_cursor = 2,
    list_senders = 3,
    set_cursor = 4
};

struct hello {
    std::uint16_t version = protocol_version;
    std::string client_name;
    std::string sender_id;  // stable id of the sending stream (empty: anonymous)
    std::uint32_t max_frame_bytes = 16u << 20;  // largest frame the client accepts
    std::uint32_t codecs = 1;                   // bit n set: codec_id n understood
    std::uint64_t table_budget = 0;  // table budget the sender asks for (0: the receiver's)
    std::string auth_token;          // the daemon's shared token, when it asks for one
    peer_role role = peer_role::sender;
    std::uint64_t read_from = 0;  // reader: the first offset wanted
    bool follow = false;          // reader: stay for new objects after the stored ones
    std::string read_sender;      // reader: only this sender's objects (empty: every sender)
    // Field 11: the resume token of this stream's earlier welcome (field 16), on a reconnect;
    // empty for a new stream. Only the stream that holds the sender id's current token may
    // resume it (docs/PROTOCOL.md 1.1, "Ownership").
    std::string resume_token;
    // Reader fields 12-15 (docs/PROTOCOL.md 1.2): where to start instead of read_from, a named
    // durable cursor, and the cursor subcommands.
    bool read_at_end = false;     // start at the durable end: only objects stored from now on
    std::uint64_t read_last = 0;  // start at the last N objects (of read_sender, if given)
    std::string read_cursor;      // continue where this cursor was acknowledged
    read_request request = read_request::none;
    // Field 16: start at the first block stored at or after this time (milliseconds since
    // the Unix epoch, the journal block header's time); 0: not by time.
    std::uint64_t read_since_ms = 0;
    // Field 17, once per relay the stream passed, first relay first (docs/PROTOCOL.md 1.5):
    // each relay's id. Absent: straight from its client. At most max_relay_path entries.
    std::vector<std::string> relay_path;
    bool operator==(const hello&) const = default;
};

// What a reader's offsets count (welcome field 21): objects of a journal, or blocks of a NATS
// stream (its stream sequences), where the offsets inside a block count one connection's
// objects instead.
enum class offset_unit : std::uint8_t { object = 0, block = 1 };

struct welcome {
    std::uint16_t version = protocol_version;
    std::string server_name;
    decoder_limits limits;     // what the receiver enforces, table budget included
    std::uint32_t codecs = 1;  // codecs the receiver accepts
    std::string sink;          // where stored objects go, for people
    std::uint64_t next_sequence = 1;
    // Field 11: bytes of data frames the receiver holds for this connection before they are
    // acknowledged (objwired: limits.max_buffered_bytes). A sender keeps at most this much
    // unacknowledged - one frame larger than it goes alone. 0 (an older receiver without the
    // field): no explicit credit, the sender's own flow.max_in_flight alone applies.
    std::uint64_t credit_bytes = 0;
    // To a reader: the oldest offset still stored (retention may have deleted older ones) and
    // the end of what was durable when it connected - without follow, the stream ends there.
    std::uint64_t journal_first_offset = 0;  // field 12
    std::uint64_t journal_end_offset = 0;    // field 13
    // Field 14: the receiver stores a data frame that starts from an empty table (the first
    // frame, or one that begins with a reset op) as it came, without decoding and encoding it
    // again; a sender that resets its table at every frame's start saves it that work.
    bool fresh_frames = false;
    // Field 15: the receiver decodes payloads in column layout (proto/columns.hpp), and
    // zstd_stream frames compressed section by section. Absent (an older receiver): neither.
    bool columns = false;
    // To a sender with an id: field 16, the stream's resume token (a new one for a new stream,
    // the one its hello gave on a resume); fields 17 and 18, the objects of this sender id
    // stored so far over all its connections and the input digest its sender reported for
    // them (docs/PROTOCOL.md 1.1, "Reruns"; 0: none reported).
    std::string resume_token;
    std::uint64_t stored_objects = 0;
    std::uint64_t stored_digest = 0;
    // Field 20, to a reader: the offset its stream starts at, resolved by the daemon from
    // read_from, read_at_end, read_last or the cursor (the first block may begin before it).
    std::uint64_t read_start = 0;
    // Field 21, to a reader: what its offsets count (absent: objects).
    offset_unit read_offsets = offset_unit::object;
    bool operator==(const welcome& o) const;
};

struct ack {
    std::uint64_t sequence = 0;  // every data frame up to this one is stored
    std::uint64_t objects = 0;   // messages stored on this connection so far
    std::uint64_t table_bytes = 0;
    std::uint64_t table_peak_bytes = 0;
    // Cumulative on this connection: raw bytes the receiver decompressed and the time it
    // took, so the sender's compression policy knows the receiver's side of the cost.
    std::uint64_t decompressed_bytes = 0;
    std::uint64_t decompress_ns = 0;
    // Field 7: the connection's credit from now on (welcome field 11's meaning), when the
    // receiver's share changed since it last announced one; 0 (absent, or an older receiver):
    // unchanged.
    std::uint64_t credit = 0;
    bool operator==(const ack&) const = default;
};

// A mark frame's payload: the sender's input digest after the objects of the data frame that
// follows it (proto/input_digest.hpp).
struct mark {
    std::uint64_t input_digest = 0;
    bool operator==(const mark&) const = default;
};

struct error_message {
    std::uint32_t code = 0;  // a proto_errc value
    std::string text;
    bool operator==(const error_message&) const = default;
};

// Reader -> daemon, in an ack frame: every object below next_offset has been written out, so
// the reader's cursor may move there (docs/PROTOCOL.md 1.2).
struct read_ack {
    std::uint64_t next_offset = 0;
    bool operator==(const read_ack&) const = default;
};

// Daemon -> reader, in a cursor_list frame: the named cursors and their positions.
struct cursor_entry {
    std::string name;
    std::uint64_t next_offset = 0;
    bool operator==(const cursor_entry&) const = default;
};
struct cursor_list {
    std::vector<cursor_entry> cursors;
    bool operator==(const cursor_list&) const = default;
};

// Daemon -> reader, in sender_list frames: per sender id (empty: objects sent without one),
// what the journal holds of its stream now (retention may have removed older objects).
struct sender_entry {
    std::string id;
    std::uint64_t objects = 0;       // objects of this id in the journal
    std::uint64_t first_offset = 0;  // of its oldest object held
    std::uint64_t last_offset = 0;   // of its newest object
    std::uint64_t last_time_ms = 0;  // when its newest block was stored (Unix epoch ms)
    bool operator==(const sender_entry&) const = default;
};
struct sender_list {
    std::vector<sender_entry> senders;
    bool operator==(const sender_list&) const = default;
};

// A cursor name is 1 to 128 of [A-Za-z0-9._-], not starting with '.': it names a file.
bool valid_cursor_name(std::string_view name);

void encode_hello(const hello& h, byte_buffer& out);
void encode_welcome(const welcome& w, byte_buffer& out);
void encode_ack(const ack& a, byte_buffer& out);
void encode_error(const error_message& e, byte_buffer& out);
void encode_read_ack(const read_ack& a, byte_buffer& out);
void encode_cursor_list(const cursor_list& l, byte_buffer& out);
void encode_sender_list(const sender_list& l, byte_buffer& out);
void encode_mark(const mark& m, byte_buffer& out);

result<hello> decode_hello(std::span<const std::uint8_t> payload);
result<welcome> decode_welcome(std::span<const std::uint8_t> payload);
result<ack> decode_ack(std::span<const std::uint8_t> payload);
result<error_message> decode_error(std::span<const std::uint8_t> payload);

// An error frame as the side that received it reports it - the one reading every role shares.
// The code is never 0, which would read as success: a frame that carries 0 or cannot be
// decoded is bad_message. The text is never empty: a malformed frame and one that gives no
// reason say so; its control characters are escaped (proto/control_text.hpp), so it is safe
// to print and log. Callers put their own context in front ("refused by ...: ").
struct peer_error {
    std::error_code code;
    std::string text;
    bool well_formed = true;  // false: the frame itself was bad, not a refusal
};
peer_error read_error_frame(std::span<const std::uint8_t> payload);
result<read_ack> decode_read_ack(std::span<const std::uint8_t> payload);
result<cursor_list> decode_cursor_list(std::span<const std::uint8_t> payload);
// Appends the frame's entries to `into`.
proto_errc decode_sender_list(std::span<const std::uint8_t> payload, sender_list& into);
result<mark> decode_mark(std::span<const std::uint8_t> payload);

}  // namespace objwire
