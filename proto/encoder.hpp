// Turns messages into bytes of the value encoding, keeping the sender half of the reference
// table. Sans-I/O: it appends to a byte_buffer and knows nothing of frames or sockets.
//
// What goes into the table is the sender's choice (the receiver only mirrors it): type
// descriptors always; strings of 1..max_indexed_string bytes, all of them or - under the
// adaptive policy - only in fields whose values have shown reuse. Integer fields of records
// travel as the change from the field's previous value when that is shorter.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <system_error>
#include <unordered_map>
#include <vector>

#include "proto/byte_buffer.hpp"
#include "proto/columns.hpp"
#include "proto/index_rule.hpp"
#include "proto/lazy_value.hpp"
#include "proto/limits.hpp"
#include "proto/reference_table.hpp"
#include "proto/reset_policy.hpp"
#include "proto/string_lookup.hpp"
#include "proto/typed_writer.hpp"
#include "proto/value.hpp"

namespace objwire {

struct encoder_options {
    // The receiver's limits from its welcome: the encoder refuses to produce what the
    // receiver would refuse, so a bad message fails here, not on the connection.
    decoder_limits peer;
    // Strings longer than this travel as literals and never enter the table.
    std::uint32_t max_indexed_string = 64;
    reset_policy reset;
    // Fields never sent, per record type name (the receiver sees them absent).
    std::map<std::string, std::vector<std::string>, std::less<>> transient;
    // Every string was already checked as UTF-8 - the daemon re-encoding what its decoder
    // accepted - so the encoder need not check again.
    bool strings_checked = false;
    // Values packed as lazy values (by field or size) although they were handed in plain;
    // off by default. Lazy values the program built travel as they are either way.
    lazy_options lazy;
    // A message that would evict an entry, unless the first since the last reset, is encoded
    // again after a reset op instead (plain layout): for a receiver that stores a fresh frame
    // whole under a table smaller than its journal's only when the frame evicted nothing
    // (proto/receiver.hpp, reads_back_alike).
    bool reset_rather_than_evict = false;
};

class stream_encoder {
  public:
    explicit stream_encoder(encoder_options options);

    // Appends one message. On failure nothing of it stays in `out`; the table is reset (and a
    // reset op written) so both peers stay in step.
    std::error_code encode(const message& m, byte_buffer& out);
    // The same in column layout (proto/columns.hpp): the fields of the root record go to
    // `sections`, the rest to `out`; on failure nothing of it stays in either.
    std::error_code encode(const message& m, byte_buffer& out, column_sections& sections);
    // The message `src` writes straight from the program's data (proto/typed_writer.hpp): the
    // bytes encode() writes for src.to_message(), without building it.
    std::error_code encode(const typed_source& src, byte_buffer& out);
    std::error_code encode(const typed_source& src, byte_buffer& out, column_sections& sections);
    // Clears both halves of the table: writes a reset op.
    void reset(byte_buffer& out);
    // Empties the table without writing anything, for a new payload that its decoder starts
    // with an empty table (a journal block). Keeps the table's storage for reuse.
    void start_fresh();

    const table_stats& table() const { return table_.stats(); }
    std::uint64_t messages() const { return messages_; }
    // Bytes the last message encoded decodes by back-reference (the receiver's account,
    // docs/PROTOCOL.md "Reference bytes"). Never over peer.max_reference_bytes: a reference
    // that would take a message over it goes as a literal. The sender keeps the sum per frame.
    std::uint64_t last_reference_bytes() const { return reference_bytes_; }
    // Values options.lazy packed so far.
    std::uint64_t lazy_packed() const { return packer_ ? packer_->packed() : 0; }
    const encoder_options& options() const { return options_; }

  private:
    friend class typed_writer;
    // What a record field's strings need across its values: the counts index_rule judges
    // them by, and the memo of the last one.
    struct field_strings {
        index_counts counts;
        string_memo memo;
    };
    // Where a value sits: a record field (type id, field index) gets delta-coded integers and
    // its own index counts, for its own value and what is nested in it; anything else shares
    // other_counts_.
    struct place {
        std::int64_t type_id = -1;
        std::uint32_t field = 0;
        bool direct = false;  // the field's own value, not something nested inside it
    };

    proto_errc encode_value(const value& v, byte_buffer& out, std::uint32_t depth, place at);
    proto_errc encode_string(std::string_view s, byte_buffer& out, place at);
    proto_errc encode_field_string(std::string_view s, byte_buffer& out, field_strings& f);
    proto_errc encode_other_string(std::string_view s, byte_buffer& out, index_counts& counts,
                                   string_route how);
    proto_errc put_string_ref(std::uint32_t id, byte_buffer& out, index_counts& counts,
                              string_route how);
    proto_errc encode_string_miss(std::string_view s, byte_buffer& out, index_counts& counts,
                                  string_route how);
    void encode_int(std::int64_t v, byte_buffer& out, place at);
    proto_errc encode_record(const record& r, byte_buffer& out, std::uint32_t depth);
    // A record's type: its id, or its descriptor; `sent_fields` and `type_id` as
    // encode_fields takes.
    proto_errc put_record_type(const record_type_ptr& type, byte_buffer& out,
                               const std::vector<std::uint32_t>*& sent_fields,
                               std::int64_t& type_id);
    // sent_fields: the indexes of the record's fields that travel (null: all of them).
    proto_errc encode_fields(const record& r, const std::vector<std::uint32_t>* sent_fields,
                             std::int64_t type_id, byte_buffer& out, std::uint32_t depth);
    template <class Destination>
    proto_errc encode_field_values(const record& r, const std::vector<std::uint32_t>* sent_fields,
                                   std::size_t n, std::int64_t type_id, std::uint32_t depth,
                                   Destination to);
    proto_errc encode_descriptor(const record_type& t, byte_buffer& out);
    [[gnu::noinline]] proto_errc encode_lazy(const lazy_value& l, byte_buffer& out);
    proto_errc encode_object_ref(std::uint32_t index, byte_buffer& out, std::uint32_t depth);
    bool charge_reference(std::uint64_t bytes);
    index_counts& counts(place at);
    void save_learnt_counts();
    void start_field_strings(std::uint32_t type_id, std::size_t fields);
    void begin_message(byte_buffer& out);
    proto_errc encode_root(const message& m, byte_buffer& out);
    proto_errc encode_typed_root(const typed_source& src, byte_buffer& out);
    // One message written by `root` into out (and the column sections), rolled back whole on
    // failure.
    template <class Root>
    std::error_code encode_message(byte_buffer& out, Root&& root);
    template <class Root>
    std::error_code encode_message(byte_buffer& out, column_sections& sections, Root&& root);
    void count_message(std::size_t bytes);
    // The type actually sent for `t` (without its transient fields) and the indexes of the
    // fields sent.
    const record_type_ptr& sent_type(const record_type_ptr& t,
                                     const std::vector<std::uint32_t>*& sent_fields);

    encoder_options options_;
    encode_table table_;
    string_lookup lookup_;
    index_rule indexing_;
    std::uint64_t messages_ = 0;
    std::uint64_t since_reset_messages_ = 0;
    std::uint64_t since_reset_bytes_ = 0;
    std::vector<std::vector<field_strings>> field_strings_;  // by type id, then field
    // What each type's fields taught, saved across resets by type (name and field names): a
    // table that starts over - every frame, for a receiver that stores fresh frames - must
    // not start over learning that `host` recurs and `user` does not.
    std::unordered_map<std::string, std::vector<index_counts>> learnt_counts_;
    std::size_t learnt_fields_ = 0;  // index_counts records in learnt_counts_
    static constexpr std::size_t max_learnt_types = 1024;
    static constexpr std::size_t max_learnt_fields = 1 << 15;
    index_counts other_counts_;
    struct reduced_type {
        record_type_ptr source;  // keeps the key pointer alive
        record_type_ptr sent;
        std::vector<std::uint32_t> sent_fields;
    };
    std::unordered_map<const record_type*, reduced_type> reduced_;
    // Per message: wire handle of each of message::objects, or -1 before its definition.
    const message* current_ = nullptr;
    std::vector<std::int64_t> handles_;
    std::uint32_t next_handle_ = 0;
    // Per typed message: the wire handle of each shared object met, by its address.
    std::unordered_map<const void*, std::uint32_t> typed_handles_;
    std::uint64_t reference_bytes_ = 0;    // of the message being encoded
    std::span<byte_buffer> columns_;       // of the message being encoded; empty: none
    std::unique_ptr<lazy_packer> packer_;  // only when options.lazy is active
};

}  // namespace objwire
