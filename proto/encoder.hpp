// Turns messages into bytes of the value encoding, keeping the sender half of the reference
// table. Sans-I/O: it appends to a byte_buffer and knows nothing of frames or sockets.
#pragma once

#include <cstdint>
#include <system_error>
#include <vector>

#include "proto/byte_buffer.hpp"
#include "proto/limits.hpp"
#include "proto/reference_table.hpp"
#include "proto/value.hpp"

namespace objwire {

struct encoder_options {
    // The receiver's limits from its welcome: the encoder refuses to produce what the
    // receiver would refuse, so a bad message fails here, not on the connection.
    decoder_limits peer;
    // Strings longer than this travel as literals and never enter the table.
    std::uint32_t max_indexed_string = 64;
    // Reset cadence: a reset before every Nth message (0 = only when the table is full).
    std::uint64_t reset_every_messages = 0;
};

class stream_encoder {
public:
    explicit stream_encoder(encoder_options options);

    // Appends one message. On failure nothing of it stays in `out`; the table is reset (and a
    // reset op written) so both peers stay in step.
    std::error_code encode(const message& m, byte_buffer& out);
    // Clears both halves of the table: writes a reset op.
    void reset(byte_buffer& out);

    const table_stats& table() const { return table_.stats(); }
    std::uint64_t messages() const { return messages_; }

private:
    std::error_code encode_value(const value& v, byte_buffer& out, std::uint32_t depth);
    std::error_code encode_string(std::string_view s, byte_buffer& out);
    std::error_code encode_record(const record& r, byte_buffer& out, std::uint32_t depth);
    std::error_code encode_descriptor(const record_type& t, byte_buffer& out);
    std::error_code encode_object_ref(std::uint32_t index, byte_buffer& out, std::uint32_t depth);
    void begin_message(byte_buffer& out);

    encoder_options options_;
    encode_table table_;
    std::uint64_t messages_ = 0;
    std::uint64_t since_reset_ = 0;
    bool table_full_ = false;
    // Per message: wire handle of each of message::objects, or -1 before its definition.
    const message* current_ = nullptr;
    std::vector<std::int64_t> handles_;
    std::uint32_t next_handle_ = 0;
};

}  // namespace objwire
