// The JSON-lines reader's state and its parts, shared by the files that implement it:
// client/jsonl/jsonl_reader.cpp (lines, blocks of lines, errors), client/jsonl/jsonl_values.cpp
// (values, arrays, scalars) and client/jsonl/jsonl_objects.cpp (objects: records, maps, shared
// objects and markers). Not for use outside them.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "client/jsonl/jsonl_numbers.hpp"
#include "client/jsonl/jsonl_reader.hpp"
#include "client/jsonl/jsonl_simdjson.hpp"

namespace objwire {
namespace jsonl_detail {

// Record types are interned up to this many distinct (name, fields) shapes; past it the
// cache starts over (old descriptors stay valid, they just stop being shared with new ones).
constexpr std::size_t max_interned_types = 1 << 16;
// Arrays and objects may nest this deep, the root included.
constexpr std::size_t max_depth = 1024;
// "$id" values below this are looked up in a flat table, larger ones in a hash map.
constexpr std::uint64_t dense_id_limit = 1 << 16;
// Object slots are below this; object_ref indexes at or above it stand for a "$ref" whose
// "$id" comes later in the line (resolved when the line ends).
constexpr std::uint32_t pending_ref = 0x8000'0000u;
// Lines are parsed a block at a time (simdjson's stage 1 over the whole block, then one
// document per line), blocks of whole lines up to this many bytes: small enough that the
// block's structural index stays in the core's caches while its lines are read.
constexpr std::size_t block_bytes = 64 * 1024;

struct string_hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
template <class V>
using string_map = std::unordered_map<std::string, V, string_hash, std::equal_to<>>;

template <class T>
[[gnu::always_inline]] inline T& reuse_as(value& dst) {
    if (auto* p = dst.get_if<T>()) return *p;
    dst = T{};
    return dst.get<T>();
}

// dst = x, in place when dst already holds a T (no variant reassignment).
template <class T>
void set(value& dst, T x) {
    if (auto* p = dst.get_if<T>())
        *p = x;
    else
        dst = x;
}

// A field name as a pattern for the raw key of the next record of its type: the name and its
// closing quote in 16 bytes, compared with two 8-byte loads instead of a call to memcmp
// (which, with names of varying length, cost ~4% of `objwire send` in mispredictions).
// Reading 16 bytes at a raw key is safe: the line is followed by SIMDJSON_PADDING readable
// bytes. Names of 16 bytes or more are compared with raw_json_string::unsafe_is_equal.
struct key_pattern {
    std::uint64_t lo = 0, hi = 0, mask_lo = 0, mask_hi = 0;
    bool usable = false;

    explicit key_pattern(std::string_view name) {
        if (name.size() + 1 > 16) return;
        std::array<char, 16> bytes{}, mask{};
        std::memcpy(bytes.data(), name.data(), name.size());
        bytes[name.size()] = '"';
        std::memset(mask.data(), 0xFF, name.size() + 1);
        std::memcpy(&lo, bytes.data(), 8);
        std::memcpy(&hi, bytes.data() + 8, 8);
        std::memcpy(&mask_lo, mask.data(), 8);
        std::memcpy(&mask_hi, mask.data() + 8, 8);
        usable = true;
    }

    bool matches(od::raw_json_string key, std::string_view name) const {
        if (!usable) return key.unsafe_is_equal(name);
        std::uint64_t k_lo, k_hi;
        std::memcpy(&k_lo, key.raw(), 8);
        std::memcpy(&k_hi, key.raw() + 8, 8);
        return (((k_lo ^ lo) & mask_lo) | ((k_hi ^ hi) & mask_hi)) == 0;
    }
};

// What a key that starts with '$' means. "$$..." is an ordinary key with its '$' doubled.
enum class marker { none, id, ref, type, bytes, float_, value, unknown };

// The common numbers, read at `at` (v's token): an integer by read_number(), a number with a
// fraction or an exponent straight as a double (it is one: get_number_type() would say so).
// False, with v unread, for anything else or a double simdjson refuses: the general way.
[[gnu::always_inline]] inline bool quick_number(od::value& v, const char* at, value& dst) {
    std::int64_t i;
    double d;
    const auto shape = read_number(at, i, d);
    if (shape == number_shape::integer || shape == number_shape::decimal) {
        skip_number(v);
        if (shape == number_shape::integer)
            set(dst, i);
        else
            set(dst, d);
        return true;
    }
    if (shape == number_shape::fraction && !v.get_double().get(d)) {
        set(dst, d);
        return true;
    }
    return false;
}

}  // namespace jsonl_detail

using namespace jsonl_detail;  // NOLINT: the implementation's own namespace

struct jsonl_reader::impl {
    explicit impl(std::string_view text, std::size_t first_line)
        : text_(text), next_line_(first_line) {
        // Our own depth check (parse_value) stops first; simdjson's table must be deeper. If
        // this allocation fails, iterate() tries again and reports the failure.
        [[maybe_unused]] auto e = parser_.allocate(4096, max_depth + 2);
        block_parser_.threaded = false;  // one block per stream: nothing for a thread to do
    }

    bool next(message& out);

    // --- a block of lines ---
    void start_block();
    bool next_in_block(message& out);

    // --- per line ---
    enum class outcome { ok, blank, failed };
    void begin_line(const char* base, std::size_t size, message& out);
    outcome parse_line(std::string_view line, message& out);
    bool parse_root(od::document& doc, value& dst);
    bool parse_value(od::value& v, value& dst);
    [[gnu::always_inline]] inline bool parse_field(od::value& v, value& dst);
    template <class Source>
    bool parse_scalar(Source& src, od::json_type t, value& dst);
    static const char* token_start(od::value& v);
    static const char* token_start(od::document& d);
    bool parse_array(od::array& a, value& dst);
    class object_read;  // client/jsonl/jsonl_objects.cpp
    bool parse_object(od::object& o, value& dst);
    bool parse_bytes(od::value& v, value& dst);
    struct known_type;
    known_type find_known_type(std::string_view name);
    bool finish_record(std::string_view name, const std::vector<std::string>& names,
                       const char* type_at, record& r);
    [[gnu::always_inline]] inline bool finish_line(message& out);
    bool resolve_pending(message& out);
    void fix_pending(value& v);

    bool read_id(od::value& v, const char* what, std::uint32_t& id_out);
    bool add_object(od::value& v, std::uint32_t& slot);
    std::uint32_t find_object(std::uint32_t id) const;
    void reset_ids();

    // --- errors ---
    bool fail(const char* where, std::string msg);  // where: a byte in the line, or null
    bool fail_json(simdjson::error_code e, const char* at = nullptr);
    bool fail_integer(simdjson::error_code e, const char* at);
    bool fail_trailing(const char* at);

    std::string_view text_;
    std::size_t padding_ = 0;  // readable bytes after text_ (continue_with)
    bool input_start_ = true;  // text_ starts the input: it may open with a byte order mark
    std::size_t pos_ = 0;
    std::size_t next_line_;
    std::size_t line_ = 0;
    std::optional<json_error> error_;

    // Lines are read from a block (block_parser_, stream_) while streaming_; a line the block
    // cannot give exactly as parsing it alone would (anything unusual, every error) is parsed
    // alone (parser_, doc_), and so are the lines after it up to block_end_.
    od::parser block_parser_;
    od::document_stream stream_;
    od::document_stream::iterator block_doc_;
    std::size_t block_end_ = 0;  // text_ offset: where the current block (or its rest) ends
    bool streaming_ = false;
    bool quiet_ = false;  // a line read from the block: fail() reports nothing

    od::parser parser_;
    od::document doc_;
    std::string padded_;          // copy of a line too close to the end of text_ to parse in place
    const char* base_ = nullptr;  // start of the line as the parser sees it
    std::size_t line_size_ = 0;
    std::size_t column_bias_ = 0;  // bytes of the line before base_ (a byte order mark)
    message* out_ = nullptr;
    std::size_t depth_ = 0;  // arrays and objects open below the root

    // Shared objects of the current line.
    std::uint32_t object_count_ = 0;
    std::vector<std::uint32_t> dense_ids_;  // id -> slot + 1, 0 if unused
    std::vector<std::uint32_t> used_dense_ids_;
    std::unordered_map<std::uint32_t, std::uint32_t> sparse_ids_;
    struct pending {
        std::uint32_t id;
        std::size_t column;
    };
    std::vector<pending> pending_;
    bool renumber_ = false;  // slots are not in canonical() order: an "$id" after nested objects

    // Record type interning: every shape by "name\0field\0field...", and per name the last
    // shape seen, which the next record of that name is compared with field by field.
    // Copied, not pointed to, by a record being read: a nested record of the same name may
    // change the entry meanwhile.
    struct interned_type {
        record_type_ptr type;
        std::vector<key_pattern> keys;  // one per field
    };
    struct known_type {
        const interned_type* entry = nullptr;  // into types_, which only grows within a line
        bool plain_names = false;  // field names are their own JSON text (no '"', '\\', '$x')
        explicit operator bool() const { return entry != nullptr; }
        const record_type_ptr& type() const { return entry->type; }
        const std::vector<std::string>& fields() const { return entry->type->fields; }
        // Whether the raw `key` is field `i` (i < fields().size()); only for plain names.
        bool key_is(od::raw_json_string key, std::size_t i) const {
            return entry->keys[i].matches(key, fields()[i]);
        }
    };
    string_map<interned_type> types_;
    string_map<known_type> known_types_;
    std::string last_known_name_;             // one-entry cache in front of known_types_
    const known_type* last_known_ = nullptr;  // entry in known_types_ (nodes are stable)
    // Field names of records (one list per nesting level) that missed the fast path.
    std::deque<std::vector<std::string>> names_;
    std::size_t record_depth_ = 0;
    std::string signature_;
    std::function<void(const record_type&)> on_new_type_;  // on_new_record_type()

    // Error being built for the current line.
    std::size_t err_column_ = 0;
    std::string err_message_;
};

// A record field on the fast path: strings and the common numbers read right here, without
// the calls of parse_value() and parse_scalar() (their entry and exit were ~200 instructions
// of an `events` line); anything else, untouched, goes to parse_value(). The same values and
// errors: a string's only possible failure is get_string()'s, reported as parse_scalar does.
[[gnu::always_inline]] inline bool jsonl_reader::impl::parse_field(od::value& v, value& dst) {
    const char* at = token_start(v);
    if (*at == '"') {
        std::string_view s;
        if (auto e = v.get_string().get(s)) return fail_json(e, at);
        assign_text(reuse_as<std::string>(dst), s);
        return true;
    }
    if ((*at == '-' || is_digit(*at)) && quick_number(v, at, dst)) return true;
    return parse_value(v, dst);
}

// The line's objects, once its root is read: as many as it defined, every "$ref" resolved.
inline bool jsonl_reader::impl::finish_line(message& out) {
    if (object_count_ < out.objects.size()) out.objects.resize(object_count_);
    return (pending_.empty() && !renumber_) || resolve_pending(out);
}

inline const char* jsonl_reader::impl::token_start(od::value& v) {
    return v.raw_json_token().data();
}

}  // namespace objwire
