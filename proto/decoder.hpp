// Turns bytes of the value encoding back into messages, keeping the receiver half of the
// reference table. Every count and length is checked against decoder_limits and the bytes
// actually present before anything is allocated; the first error poisons the decoder, since
// its table can no longer be trusted to match the sender's. A payload that is only to be
// stored can be checked instead (check_payload): the same code, building no message.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <system_error>
#include <vector>

#include "proto/byte_reader.hpp"
#include "proto/columns.hpp"
#include "proto/limits.hpp"
#include "proto/reference_table.hpp"
#include "proto/value.hpp"

namespace objwire {

class stream_decoder {
  public:
    explicit stream_decoder(decoder_limits limits);

    // Decodes the next message of a frame payload, applying reset ops before it. Sets `got`
    // false when only reset ops were left. Messages never span frames, so running out of
    // bytes inside one is `truncated`.
    std::error_code next(byte_reader& in, message& out, bool& got);

    // Decodes every message of one frame payload, calling on_message(message&&) for each as
    // it decodes. One message is reused for all: a callback that moves it out takes it, one
    // that only reads it lets the next message reuse its storage (no allocation per message).
    // On an error, the messages already delivered belong to a frame that failed.
    // A payload in column layout (proto/columns.hpp) is read section by section.
    template <class F>
    std::error_code decode_payload(std::span<const std::uint8_t> payload, F&& on_message) {
        return walk_payload<true>(payload, on_message);
    }

    // Walks one frame payload exactly as decode_payload does - every limit, tag, reference,
    // UTF-8 and column check, the same table inserts, uses, pins and integer histories, the
    // same error - but builds no message: `messages` counts them. For a payload the caller
    // stores as it came (a fresh frame into the journal). What the table keeps is still built
    // (descriptors, strings, kept objects), so the table ends exactly as decode_payload would
    // leave it and the next frame decodes alike.
    std::error_code check_payload(std::span<const std::uint8_t> payload, std::uint64_t& messages);

    // After check_payload() of a payload that began from an empty table (a fresh frame), its
    // messages after all: decodes it again from an empty table (a connection's first frame
    // has no reset op), calling on_message for each. The table ends as the check left it, and
    // its stats and the message count are the check's, so the frame counts once.
    template <class F>
    std::error_code decode_checked_again(std::span<const std::uint8_t> payload, F&& on_message) {
        const table_stats counted = table_.stats();
        const std::uint64_t messages = messages_;
        table_.reset();
        const auto ec = walk_payload<true>(payload, on_message);
        table_.restore_stats(counted);
        messages_ = messages;
        return ec;
    }

    // Pulling the messages of one payload one at a time instead of decode_payload (a reader
    // that holds one message, not a block's worth): open_payload() takes `in` reading the
    // payload, points it at its main section for a column layout and starts the
    // reference-bytes account; next()
    // until `in` is at its end; close_payload() checks every column section was used up.
    std::error_code open_payload(std::span<const std::uint8_t> payload, byte_reader& in) {
        begin_frame();
        return open_columns(payload, in);
    }
    std::error_code close_payload() { return close_columns(); }

    // Starts a frame's reference-bytes account (decode_payload does it; callers of next()
    // do it once per frame payload).
    void begin_frame() { reference_bytes_ = 0; }
    // Bytes the current frame decoded by back-reference so far.
    std::uint64_t reference_bytes() const { return reference_bytes_; }

    const table_stats& table() const { return table_.stats(); }
    bool table_fresh() const { return table_.fresh(); }
    const decoder_limits& limits() const { return limits_; }
    std::uint64_t messages() const { return messages_; }

  private:
    // A record field's own value (type id, field index) may be a delta-coded integer.
    struct place {
        std::int64_t type_id = -1;
        std::uint32_t field = 0;
    };
    // The one decoder, in two modes from the same source: Build fills `out` (never null);
    // !Build only checks, `out` is null and nothing of the message is built. Either way the
    // table sees the same inserts, uses and pins, and the same error comes back.
    template <bool Build, class F>
    std::error_code walk_payload(std::span<const std::uint8_t> payload, F& on_message) {
        begin_frame();
        byte_reader in(payload);
        if (auto ec = open_columns(payload, in)) return ec;
        message m;
        while (!in.at_end()) {
            bool got = false;
            if (auto ec = next_message<Build>(in, m, got)) return ec;
            if (got) on_message(std::move(m));
        }
        return close_columns();
    }
    template <bool Build>
    std::error_code next_message(byte_reader& in, message& out, bool& got);
    template <bool Build>
    proto_errc decode_value(byte_reader& in, value* out, std::uint32_t depth, place at);
    template <bool Build>
    [[gnu::always_inline]] proto_errc decode_tag(byte_reader& in, value* out, std::uint32_t depth,
                                                 place at);
    template <bool Build>
    [[gnu::noinline]] proto_errc decode_list(byte_reader& in, value* out, std::uint32_t depth);
    template <bool Build>
    [[gnu::noinline]] proto_errc decode_map(byte_reader& in, value* out, std::uint32_t depth);
    template <bool Build>
    [[gnu::always_inline]] proto_errc decode_int(byte_reader& in, std::uint8_t tag, value* out,
                                                 place at);
    template <bool Build>
    [[gnu::always_inline]] proto_errc decode_string(byte_reader& in, std::uint8_t tag,
                                                    std::string* out);
    template <bool Build>
    proto_errc string_ref(std::uint64_t id, std::string* out);
    template <bool Build>
    proto_errc hex_string(byte_reader& in, std::string* out);
    template <bool Build>
    proto_errc literal_string(byte_reader& in, std::uint8_t tag, std::string* out);
    proto_errc decode_literal(byte_reader& in, std::string_view& out);
    template <bool Build, bool Split>
    proto_errc decode_record(byte_reader& in, std::uint8_t tag, value* out, std::uint32_t depth);
    template <bool Build, bool Split>
    [[gnu::noinline]] proto_errc decode_fields(byte_reader& in, record* r, std::size_t n,
                                               std::uint32_t depth, std::int64_t type_id);
    template <bool Build, bool Split>
    proto_errc decode_root(byte_reader& in, value* out);
    proto_errc decode_descriptor(byte_reader& in, record_type_ptr& out);
    template <bool Build>
    proto_errc decode_object_def(byte_reader& in, std::uint8_t tag, value* out,
                                 std::uint32_t depth);
    proto_errc count(byte_reader& in, std::uint64_t& n);
    proto_errc presize(std::size_t bytes_left, std::uint64_t n);
    // Column layout: points `in` at the main section and the field readers at theirs (when
    // the payload has a directory); close_columns() checks every section was used up.
    std::error_code open_columns(std::span<const std::uint8_t> payload, byte_reader& in);
    std::error_code close_columns();
    // The section field i of a root record comes from; null: one the directory does not have.
    byte_reader* field_in(std::uint32_t i);
    // Bytes left to a message: in `in`, and in the field sections of a column payload.
    std::size_t bytes_left(const byte_reader& in) const;
    proto_errc fail(proto_errc e);
    proto_errc charge_reference(std::uint64_t bytes);

    decoder_limits limits_;
    decode_table table_;
    proto_errc poisoned_ = proto_errc::ok;
    std::uint64_t messages_ = 0;
    message* current_ = nullptr;
    std::uint64_t presize_left_ = 0;     // bytes of the message not yet claimed by a sized slot
    std::uint64_t reference_bytes_ = 0;  // of the current frame, against max_reference_bytes
    std::array<byte_reader, max_field_sections> columns_{};
    std::size_t column_count_ = 0;  // field sections of the payload being decoded; 0: none
    // The last descriptor decoded, and the scratch it is read into: a stream that sends its
    // descriptors again (no table, or a table reset every frame) gets the same type object
    // for the same descriptor, with no allocation, and whoever keys on the type's address
    // (the journal's encoder) finds it at once.
    record_type descriptor_scratch_;
    record_type_ptr last_descriptor_;
};

}  // namespace objwire
