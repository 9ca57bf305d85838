#include "client/jsonl_reader.hpp"

#include <simdjson.h>

#include <string.h>  // memrchr

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <deque>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

namespace objwire {

namespace od = simdjson::ondemand;

namespace {

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
T& reuse_as(value& dst) {
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

// Whether a parsed document has nothing after its root value. document::current_location()
// says so too, but out of line and returning its result through memory in a way that stalled
// on store forwarding once per line (~2% of `objwire encode`); the document's own iterator
// (protected, reached through a pointer to member) answers inline. A dead iterator (after an
// error) has no position: the caller asks current_location() then.
struct document_end : od::document {
    static bool at_end(od::document& d) {
        const od::json_iterator& it = d.*(&document_end::iter);
        return it.is_alive() && it.at_end();
    }
    // The text at the document's next token: its first before it is read, what follows it
    // after (in a block, the next line's document, or the end of the block).
    static const char* next_token(od::document& d) {
        const od::json_iterator& it = d.*(&document_end::iter);
        return reinterpret_cast<const char*>(it.unsafe_pointer());
    }
};

// A value's token iterator, and moving it past a number read here rather than by simdjson's
// getters (protected members, reached as document_end reaches the document's iterator).
struct value_access : od::value {
    static od::value_iterator& iterator(od::value& v) { return v.*(&value_access::iter); }
};
struct scalar_skip : od::value_iterator {
    static void past(od::value_iterator& it) {
        (it.*(&scalar_skip::advance_non_root_scalar))("number");
    }
};

// Whether the 8 bytes in `chunk` are all ASCII digits (simdjson's test, without its call).
inline bool eight_digits(std::uint64_t chunk) {
    return ((chunk & 0xF0F0F0F0F0F0F0F0) |
            (((chunk + 0x0606060606060606) & 0xF0F0F0F0F0F0F0F0) >> 4)) == 0x3333333333333333;
}

// The value of 8 ASCII digits, first digit in the lowest byte.
inline std::uint32_t eight_digit_value(std::uint64_t chunk) {
    const std::uint64_t mask = 0x000000FF000000FF;
    const std::uint64_t mul1 = 0x000F424000000064;  // 100 + (1000000 << 32)
    const std::uint64_t mul2 = 0x0000271000000001;  // 1 + (10000 << 32)
    chunk -= 0x3030303030303030;
    chunk = (chunk * 10) + (chunk >> 8);
    chunk = (((chunk & mask) * mul1) + (((chunk >> 16) & mask) * mul2)) >> 32;
    return static_cast<std::uint32_t>(chunk);
}

// What a number token at p is, read without simdjson: an integer of 1 to 18 digits (no
// leading zero) followed by a byte that may end one - then `x` holds it; a decimal fraction
// without exponent whose digits make at most 2^53 - then `d` holds it, the one division by an
// exact power of ten giving the correctly rounded double as simdjson's own fast path does;
// another number with a fraction or an exponent; or anything else (longer, malformed...),
// left to simdjson. Reads up to 16 bytes from p: the line is followed by at least
// SIMDJSON_PADDING bytes.
enum class number_shape { integer, decimal, fraction, other };
[[gnu::always_inline]] inline bool is_digit(char c) {
    return static_cast<unsigned char>(c - '0') < 10;
}
[[gnu::always_inline]] inline bool ends_number(char c) {
    return c == ',' || c == '}' || c == ']' || c == ' ' || c == '\t' || c == '\r' || c == '\n';
}
[[gnu::always_inline]] inline number_shape read_number(const char* p, std::int64_t& x, double& d) {
    static constexpr double powers_of_ten[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,
                                               1e7,  1e8,  1e9,  1e10, 1e11, 1e12, 1e13,
                                               1e14, 1e15, 1e16, 1e17, 1e18};
    const bool negative = *p == '-';
    p += negative;
    const char* digits = p;
    std::uint64_t v = 0;
    for (int i = 0; i < 2; ++i) {  // the long ones (timestamps, ids) 8 digits at a time
        std::uint64_t chunk;
        std::memcpy(&chunk, p, 8);
        if (!eight_digits(chunk)) break;
        v = v * 100000000 + eight_digit_value(chunk);
        p += 8;
    }
    while (is_digit(*p) && p - digits < 19)
        v = 10 * v + static_cast<unsigned char>(*p++ - '0');
    const auto count = p - digits;
    if (count == 0 || (count > 1 && *digits == '0')) return number_shape::other;
    if (*p == '.') {
        const char* fraction = ++p;
        while (is_digit(*p) && (p - fraction) + count < 19)
            v = 10 * v + static_cast<unsigned char>(*p++ - '0');
        const auto places = p - fraction;
        if (places == 0 || !ends_number(*p) || v > (std::uint64_t{1} << 53))
            return number_shape::fraction;  // an exponent, more digits, or malformed
        d = static_cast<double>(v) / powers_of_ten[places];
        if (negative) d = -d;
        return number_shape::decimal;
    }
    if (*p == 'e' || *p == 'E') return number_shape::fraction;
    if (count > 18 || !ends_number(*p)) return number_shape::other;  // 18 digits cannot overflow
    x = negative ? -static_cast<std::int64_t>(v) : static_cast<std::int64_t>(v);
    return number_shape::integer;
}

// What a key that starts with '$' means. "$$..." is an ordinary key with its '$' doubled.
enum class marker { none, id, ref, type, bytes, float_, value, unknown };

marker marker_of(std::string_view key) {
    if (key.empty() || key[0] != '$') return marker::none;
    if (key.size() >= 2 && key[1] == '$') return marker::none;
    if (key == "$id") return marker::id;
    if (key == "$ref") return marker::ref;
    if (key == "$type") return marker::type;
    if (key == "$bytes") return marker::bytes;
    if (key == "$float") return marker::float_;
    if (key == "$value") return marker::value;
    return marker::unknown;
}

// The frequent markers ($id, $ref, $type) recognised from the raw key, without unescaping
// it; marker::unknown means "not recognised this way": the caller unescapes the key (which
// also finds a marker written with escapes, like "\u0024ref").
marker quick_marker(od::raw_json_string key) {
    const char* k = key.raw();  // the padding makes reading past a short key safe
    if (k[0] != '$') return marker::unknown;
    switch (k[1]) {
        case 'i':
            return std::memcmp(k, "$id\"", 4) == 0 ? marker::id : marker::unknown;
        case 'r':
            return std::memcmp(k, "$ref\"", 5) == 0 ? marker::ref : marker::unknown;
        case 't':
            return std::memcmp(k, "$type\"", 6) == 0 ? marker::type : marker::unknown;
        default:
            return marker::unknown;
    }
}

// The text of a marker recognised without unescaping its key.
std::string_view marker_name(marker m) {
    switch (m) {
        case marker::id:
            return "$id";
        case marker::ref:
            return "$ref";
        case marker::type:
            return "$type";
        default:
            return {};
    }
}

const char* json_type_name(od::json_type t) {
    switch (t) {
        case od::json_type::array:
            return "an array";
        case od::json_type::object:
            return "an object";
        case od::json_type::number:
            return "a number";
        case od::json_type::string:
            return "a string";
        case od::json_type::boolean:
            return "a boolean";
        case od::json_type::null:
            return "null";
    }
    return "a value";
}

// Length of the valid UTF-8 sequence at p (1..4), or 0 if it is not one.
std::size_t utf8_sequence_length(const unsigned char* p, const unsigned char* end) {
    unsigned char c = p[0];
    if (c < 0x80) return 1;
    std::size_t n;
    unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        if (c == 0xE0) lo = 0xA0;  // overlong
        if (c == 0xED) hi = 0x9F;  // surrogates
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        if (c == 0xF0) lo = 0x90;  // overlong
        if (c == 0xF4) hi = 0x8F;  // past U+10FFFF
    } else {
        return 0;
    }
    if (static_cast<std::size_t>(end - p) < n) return 0;
    if (p[1] < lo || p[1] > hi) return 0;
    for (std::size_t i = 2; i < n; ++i)
        if ((p[i] & 0xC0) != 0x80) return 0;
    return n;
}

// Offset of the first byte that does not start valid UTF-8, or npos.
std::size_t find_invalid_utf8(std::string_view s) {
    auto* b = reinterpret_cast<const unsigned char*>(s.data());
    auto* e = b + s.size();
    for (auto* p = b; p < e;) {
        std::size_t n = utf8_sequence_length(p, e);
        if (n == 0) return static_cast<std::size_t>(p - b);
        p += n;
    }
    return std::string_view::npos;
}

// Offset of the opening quote of a string that is never closed, or npos.
std::size_t find_unclosed_string(std::string_view s) {
    std::size_t open = std::string_view::npos;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (open == std::string_view::npos) {
            if (s[i] == '"') open = i;
        } else if (s[i] == '\\') {
            ++i;
        } else if (s[i] == '"') {
            open = std::string_view::npos;
        }
    }
    return open;
}

// Offset of the first control character inside a string, or npos.
std::size_t find_unescaped_control(std::string_view s) {
    bool in_string = false;
    for (std::size_t i = 0; i < s.size(); ++i) {
        auto c = static_cast<unsigned char>(s[i]);
        if (!in_string) {
            in_string = c == '"';
        } else if (c == '\\') {
            ++i;
        } else if (c == '"') {
            in_string = false;
        } else if (c < 0x20) {
            return i;
        }
    }
    return std::string_view::npos;
}

// Offset just past the first JSON value in `s` by bracket and quote counting, or npos if it
// never ends; only for locating errors, so it need not validate anything.
std::size_t root_value_end(std::string_view s) {
    auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
    std::size_t i = 0, n = s.size();
    while (i < n && is_space(s[i]))
        ++i;
    if (i == n) return std::string_view::npos;
    if (s[i] != '{' && s[i] != '[' && s[i] != '"') {  // a number or literal
        while (i < n && !is_space(s[i]) &&
               std::string_view(",:[]{}\"").find(s[i]) == std::string_view::npos)
            ++i;
        return i;
    }
    int depth = 0;
    bool in_string = false;
    for (; i < n; ++i) {
        char c = s[i];
        if (in_string) {
            if (c == '\\') {
                ++i;
            } else if (c == '"') {
                in_string = false;
                if (depth == 0) return i + 1;
            }
        } else if (c == '"') {
            in_string = true;
        } else if (c == '{' || c == '[') {
            ++depth;
        } else if ((c == '}' || c == ']') && --depth == 0) {
            return i + 1;
        }
    }
    return std::string_view::npos;
}

std::string hex_byte(unsigned char c) {
    static constexpr char hex[] = "0123456789ABCDEF";
    return {'0', 'x', hex[c >> 4], hex[c & 15]};
}

// Standard base64 with padding into `out`; on failure returns the offset of the first bad
// character (or the length, if the length is wrong).
std::optional<std::size_t> decode_base64(std::string_view s, std::vector<std::uint8_t>& out) {
    static constexpr auto table = [] {
        std::array<std::int8_t, 256> t{};
        t.fill(-1);
        const char* a = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        for (int i = 0; i < 64; ++i)
            t[static_cast<unsigned char>(a[i])] = static_cast<std::int8_t>(i);
        return t;
    }();
    out.clear();
    std::size_t n = s.size();
    std::size_t pad = 0;
    if (n >= 1 && s[n - 1] == '=') ++pad;
    if (n >= 2 && s[n - 2] == '=') ++pad;
    std::size_t body = n - pad;
    for (std::size_t i = 0; i < body; ++i)
        if (table[static_cast<unsigned char>(s[i])] < 0) return i;
    if (n % 4 != 0) return n;
    out.resize(n / 4 * 3 - pad);
    std::uint8_t* o = out.data();
    std::size_t i = 0, w = 0;
    auto at = [&](std::size_t k) {
        return static_cast<std::uint32_t>(table[static_cast<unsigned char>(s[k])]);
    };
    for (; i + 4 <= body; i += 4) {
        std::uint32_t v = (at(i) << 18) | (at(i + 1) << 12) | (at(i + 2) << 6) | at(i + 3);
        o[w++] = static_cast<std::uint8_t>(v >> 16);
        o[w++] = static_cast<std::uint8_t>(v >> 8);
        o[w++] = static_cast<std::uint8_t>(v);
    }
    if (pad == 2) {
        std::uint32_t v = (at(i) << 18) | (at(i + 1) << 12);
        o[w++] = static_cast<std::uint8_t>(v >> 16);
    } else if (pad == 1) {
        std::uint32_t v = (at(i) << 18) | (at(i + 1) << 12) | (at(i + 2) << 6);
        o[w++] = static_cast<std::uint8_t>(v >> 16);
        o[w++] = static_cast<std::uint8_t>(v >> 8);
    }
    return std::nullopt;
}

}  // namespace

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
    bool parse_field(od::value& v, value& dst);
    template <class Source>
    bool parse_scalar(Source& src, od::json_type t, value& dst);
    static const char* token_start(od::value& v);
    static const char* token_start(od::document& d);
    bool parse_array(od::array& a, value& dst);
    bool parse_object(od::object& o, value& dst);
    bool parse_bytes(od::value& v, value& dst);
    static std::string misplaced_marker_message(marker mk, std::string_view key);
    struct known_type;
    known_type find_known_type(std::string_view name);
    bool finish_record(std::string_view name, const std::vector<std::string>& names,
                       const char* type_at, record& r);
    bool resolve_pending(message& out);
    void fix_pending(value& v);

    bool read_id(od::value& v, const char* what, std::uint32_t& id_out);
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

    // Error being built for the current line.
    std::size_t err_column_ = 0;
    std::string err_message_;
};

bool jsonl_reader::impl::next(message& out) {
    error_.reset();
    while (pos_ < text_.size()) {
        if (pos_ >= block_end_) start_block();
        if (streaming_) {
            if (next_in_block(out)) return true;
            continue;  // the block is done, or its rest goes line by line
        }
        const char* begin = text_.data() + pos_;
        std::size_t rest = text_.size() - pos_;
        const auto* nl = static_cast<const char*>(std::memchr(begin, '\n', rest));
        std::size_t size = nl ? static_cast<std::size_t>(nl - begin) : rest;
        pos_ += nl ? size + 1 : size;
        std::size_t number = next_line_++;
        if (size > 0 && begin[size - 1] == '\r') --size;
        column_bias_ = 0;
        if (input_start_ && begin == text_.data() && size >= 3 &&
            std::memcmp(begin, "\xEF\xBB\xBF", 3) == 0) {
            begin += 3;  // a UTF-8 byte order mark at the start of the text
            size -= 3;
            column_bias_ = 3;
        }
        if (size == 0) continue;
        switch (parse_line({begin, size}, out)) {
            case outcome::blank:
                continue;
            case outcome::ok:
                line_ = number;
                return true;
            case outcome::failed:
                line_ = number;
                error_ = json_error{number, err_column_ + column_bias_, std::move(err_message_)};
                err_message_.clear();
                return false;
        }
    }
    return false;
}

// Starts the block of whole lines at pos_: up to block_bytes, ending in a newline, with
// SIMDJSON_PADDING bytes of the text after it (simdjson reads past the end). Where there is no
// such block (at the byte order mark, a line longer than a block, the last lines of the text),
// or stage 1 finds anything wrong in it (invalid UTF-8, an unclosed string...), block_end_
// says how far to read line by line instead.
void jsonl_reader::impl::start_block() {
    streaming_ = false;
    const std::size_t size = text_.size();
    if (size + padding_ - pos_ <= simdjson::SIMDJSON_PADDING) {
        block_end_ = size;
        return;
    }
    block_end_ = pos_ + 1;  // unless a block starts: the next line alone
    if (input_start_ && pos_ == 0 && size >= 3 && std::memcmp(text_.data(), "\xEF\xBB\xBF", 3) == 0)
        return;
    const char* begin = text_.data() + pos_;
    const std::size_t limit =
        std::min(block_bytes, size + padding_ - simdjson::SIMDJSON_PADDING - pos_);
    const auto* last_nl = static_cast<const char*>(::memrchr(begin, '\n', limit));
    if (last_nl == nullptr) return;
    const auto len = static_cast<std::size_t>(last_nl + 1 - begin);
    block_end_ = pos_ + len;
    if (block_parser_.iterate_many(begin, len, block_bytes).get(stream_)) return;
    block_doc_ = stream_.begin();
    // A document cut off at the end of the block is dropped from the stream (it would look
    // like the end of the line before it): then the block is read line by line.
    if (block_doc_.error() && block_doc_.error() != simdjson::EMPTY) return;
    if (stream_.truncated_bytes() != 0) return;
    streaming_ = true;
}

// The next message from the block, true; false when the block is done or the next line must
// be parsed alone (streaming_ is then false). A document is taken only if it is the line's
// whole content: it starts at the line's first non-blank byte, it is an object or an array
// (a scalar document's getters differ in a stream), and the next token after it is past the
// line's newline. A line read this way gives what parsing it alone gives; one that fails here,
// for whatever reason, is parsed again alone, which finds and reports its error.
bool jsonl_reader::impl::next_in_block(message& out) {
    while (pos_ < block_end_) {
        const char* begin = text_.data() + pos_;
        const auto* nl = static_cast<const char*>(std::memchr(begin, '\n', block_end_ - pos_));
        const auto size = static_cast<std::size_t>(nl - begin);
        std::size_t first = 0;
        while (first < size &&
               (begin[first] == ' ' || begin[first] == '\t' || begin[first] == '\r'))
            ++first;
        if (first == size) {  // blank
            pos_ += size + 1;
            ++next_line_;
            continue;
        }
        if (!(block_doc_ != stream_.end())) break;
        od::document_reference ref;
        if ((*block_doc_).get(ref)) break;
        od::document& doc = ref;
        const char* start = document_end::next_token(doc);
        if (start != begin + first || (*start != '{' && *start != '[')) break;
        begin_line(begin, size, out);
        quiet_ = true;
        // As parse_root(), whose type() the first byte has answered already.
        od::object o;
        od::array a;
        bool ok = *start == '{' ? !doc.get_object().get(o) && parse_object(o, out.root)
                                : !doc.get_array().get(a) && parse_array(a, out.root);
        ok = ok && document_end::next_token(doc) > nl;
        if (ok && object_count_ < out.objects.size()) out.objects.resize(object_count_);
        if (ok && !pending_.empty()) ok = resolve_pending(out);
        quiet_ = false;
        if (!ok) break;
        pos_ += size + 1;
        line_ = next_line_++;
        ++block_doc_;
        return true;
    }
    streaming_ = false;
    return false;
}

// The reader's state for a new line at `base` (`size` bytes) read into `out`.
void jsonl_reader::impl::begin_line(const char* base, std::size_t size, message& out) {
    base_ = base;
    line_size_ = size;
    out_ = &out;
    object_count_ = 0;
    reset_ids();
    pending_.clear();
    record_depth_ = 0;
    depth_ = 0;
    if (types_.size() >= max_interned_types) {
        // Start over rather than grow without bound; descriptors handed out stay valid.
        types_.clear();
        known_types_.clear();
        last_known_ = nullptr;
    }
}

jsonl_reader::impl::outcome jsonl_reader::impl::parse_line(std::string_view line, message& out) {
    // simdjson reads up to SIMDJSON_PADDING bytes past the end; the following lines serve as
    // padding, only a line near the end of the text is copied.
    std::size_t available =
        static_cast<std::size_t>(text_.data() + text_.size() + padding_ - line.data());
    simdjson::padded_string_view view;
    if (available >= line.size() + simdjson::SIMDJSON_PADDING) {
        view = simdjson::padded_string_view(line.data(), line.size(), available);
    } else {
        padded_.assign(line);
        padded_.append(simdjson::SIMDJSON_PADDING, ' ');
        view = simdjson::padded_string_view(padded_.data(), line.size(), padded_.size());
    }
    begin_line(view.data(), line.size(), out);
    if (auto e = parser_.iterate(view).get(doc_)) {
        if (e == simdjson::EMPTY) return outcome::blank;
        fail_json(e, base_);  // doc_ still describes the previous line: no location from it
        return outcome::failed;
    }
    bool ok = parse_root(doc_, out.root);
    const char* trailing = nullptr;
    if (ok && !document_end::at_end(doc_) && !doc_.current_location().get(trailing))
        ok = fail_trailing(trailing);
    if (ok && object_count_ < out.objects.size()) out.objects.resize(object_count_);
    if (ok && !pending_.empty()) ok = resolve_pending(out);
    return ok ? outcome::ok : outcome::failed;
}

bool jsonl_reader::impl::parse_root(od::document& doc, value& dst) {
    od::json_type t;
    if (auto e = doc.type().get(t)) return fail_json(e);
    if (t == od::json_type::object) {
        od::object o;
        if (auto e = doc.get_object().get(o)) return fail_json(e);
        return parse_object(o, dst);
    }
    if (t == od::json_type::array) {
        od::array a;
        if (auto e = doc.get_array().get(a)) return fail_json(e);
        return parse_array(a, dst);
    }
    // A scalar document cannot be taken as an ondemand::value: read it through the
    // document's own getters (which also check that nothing follows it).
    return parse_scalar(doc, t, dst);
}

// Values, objects and arrays go by reference, and fields and elements are read in place:
// simdjson builds each with narrow stores, and copying one whole right after (a 16-byte load)
// stalls on store forwarding - it was a third of parse_object's time (perf annotate).
bool jsonl_reader::impl::parse_value(od::value& v, value& dst) {
    od::json_type t;
    if (auto e = v.type().get(t)) return fail_json(e);
    if (t != od::json_type::object && t != od::json_type::array) return parse_scalar(v, t, dst);
    // The parse recurses: bound the depth (the root container is level 1).
    if (++depth_ >= max_depth) {
        return fail(token_start(v), "JSON nested deeper than " + std::to_string(max_depth) +
                                        " levels of arrays and objects");
    }
    bool ok;
    if (t == od::json_type::object) {
        od::object o;
        if (auto e = v.get_object().get(o)) return fail_json(e);
        ok = parse_object(o, dst);
    } else {
        od::array a;
        if (auto e = v.get_array().get(a)) return fail_json(e);
        ok = parse_array(a, dst);
    }
    --depth_;
    return ok;
}

// The common numbers, read at `at` (v's token): an integer by read_number(), a number with a
// fraction or an exponent straight as a double (it is one: get_number_type() would say so).
// False, with v unread, for anything else or a double simdjson refuses: the general way.
[[gnu::always_inline]] inline bool quick_number(od::value& v, const char* at, value& dst) {
    std::int64_t i;
    double d;
    const auto shape = read_number(at, i, d);
    if (shape == number_shape::integer || shape == number_shape::decimal) {
        scalar_skip::past(value_access::iterator(v));
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

const char* jsonl_reader::impl::token_start(od::value& v) {
    return v.raw_json_token().data();
}

const char* jsonl_reader::impl::token_start(od::document& d) {
    const char* p = nullptr;
    return d.current_location().get(p) ? nullptr : p;
}

template <class Source>  // od::value or od::document
bool jsonl_reader::impl::parse_scalar(Source& src, od::json_type t, value& dst) {
    const char* at = token_start(src);
    switch (t) {
        case od::json_type::string: {
            std::string_view s;
            if (auto e = src.get_string().get(s)) return fail_json(e, at);
            assign_text(reuse_as<std::string>(dst), s);
            return true;
        }
        case od::json_type::number: {
            if constexpr (std::is_same_v<Source, od::value>) {
                if (quick_number(src, at, dst)) return true;
            }
            // Not get_number(): in simdjson 3.0.1 it returns 0.0 for doubles of 19 or more
            // digits (its slow path writes to a copy of the result).
            od::number_type nt;
            if (auto e = src.get_number_type().get(nt)) return fail_json(e, at);
            if (nt == od::number_type::floating_point_number) {
                double d;
                if (auto e = src.get_double().get(d)) return fail_json(e, at);
                set(dst, d);
                return true;
            }
            std::int64_t i;
            auto e = nt == od::number_type::signed_integer ? src.get_int64().get(i)
                                                           : simdjson::NUMBER_OUT_OF_RANGE;
            if (e) return fail_integer(e, at);
            set(dst, i);
            return true;
        }
        case od::json_type::boolean: {
            bool b;
            if (auto e = src.get_bool().get(b)) return fail_json(e, at);
            set(dst, b);
            return true;
        }
        case od::json_type::null: {
            bool is_null = false;
            if (auto e = src.is_null().get(is_null)) return fail_json(e, at);
            if (!is_null) return fail_json(simdjson::N_ATOM_ERROR, at);
            dst = nullptr;
            return true;
        }
        default:
            return fail_json(simdjson::TAPE_ERROR, at);
    }
}

// An integer simdjson would not give as int64: out of range, or not a number at all.
bool jsonl_reader::impl::fail_integer(simdjson::error_code e, const char* at) {
    if (e != simdjson::TRAILING_CONTENT && at) {
        std::size_t n = 0, digits = 0;
        std::size_t room = static_cast<std::size_t>(base_ + line_size_ - at);
        if (n < room && at[n] == '-') ++n;
        while (n < room && at[n] >= '0' && at[n] <= '9')
            ++n, ++digits;
        bool ends = n == room || at[n] == ' ' || at[n] == '\t' || at[n] == '\r' || at[n] == ',' ||
                    at[n] == ']' || at[n] == '}';
        if (ends && digits >= 19 && at[at[0] == '-' ? 1 : 0] != '0') {
            return fail(at, "integer " + std::string(at, n) +
                                " is out of range: integers must fit in int64 "
                                "(-9223372036854775808..9223372036854775807); write it as a "
                                "string, or with a '.' to make it a double");
        }
    }
    return fail_json(e, at);
}

bool jsonl_reader::impl::parse_array(od::array& a, value& dst) {
    list& l = reuse_as<list>(dst);
    std::size_t n = 0;
    for (auto element : a) {
        if (auto e = element.error()) return fail_json(e);
        od::value& v = element.value_unsafe();  // in place, as parse_object's fields
        if (n == l.size()) l.emplace_back();
        if (!parse_value(v, l[n])) return false;
        ++n;
    }
    l.resize(n);
    return true;
}

bool jsonl_reader::impl::read_id(od::value& v, const char* what, std::uint32_t& id_out) {
    std::int64_t id = -1;
    if (v.get_int64().get(id) || id < 0 || id >= static_cast<std::int64_t>(pending_ref)) {
        std::string_view raw = v.raw_json_token();  // the value's own text, read or not
        const char* where = raw.data();
        while (!raw.empty() && (raw.back() == ' ' || raw.back() == '\t'))
            raw.remove_suffix(1);
        if (raw.size() > 32) raw = raw.substr(0, 32);
        return fail(where, std::string("\"") + what +
                               "\" must be an integer from 0 to 2147483647 (the object's "
                               "number), not " +
                               std::string(raw));
    }
    id_out = static_cast<std::uint32_t>(id);
    return true;
}

std::uint32_t jsonl_reader::impl::find_object(std::uint32_t id) const {
    if (id < dense_id_limit) return id < dense_ids_.size() ? dense_ids_[id] : 0;
    auto it = sparse_ids_.find(id);
    return it == sparse_ids_.end() ? 0 : it->second;
}

void jsonl_reader::impl::reset_ids() {
    for (auto id : used_dense_ids_)
        dense_ids_[id] = 0;
    used_dense_ids_.clear();
    if (!sparse_ids_.empty()) sparse_ids_.clear();
}

bool jsonl_reader::impl::parse_object(od::object& o, value& dst) {
    // What the keys read so far make this object.
    enum class kind { empty, after_id, map, record, single };
    kind k = kind::empty;
    const char* single_key = nullptr;  // the marker that must stand alone
    value* target = &dst;              // becomes the object's body after "$id"
    value body;
    std::uint32_t slot = 0;
    record* rec = nullptr;
    map* m = nullptr;
    std::string_view type_name;
    const char* type_at = nullptr;
    std::size_t count = 0;  // map entries or record fields so far
    // The type this record matches so far (fast path); once it differs, the field names are
    // collected in `names` instead.
    known_type candidate;
    std::vector<std::string>* names = nullptr;
    std::size_t level = 0;  // of this record among the records open in the line
    // The list for `names`, taken (and emptied) when the fast path is left: most records never
    // need it.
    auto field_names = [&]() -> std::vector<std::string>& {
        if (names == nullptr) {
            while (names_.size() <= level)
                names_.emplace_back();
            names = &names_[level];
            names->clear();
        }
        return *names;
    };
    // The fast path's view of `candidate` (plain names only): its key patterns, names and
    // field count, and where the fields go (rec->fields, sized for them up front).
    const key_pattern* fast_keys = nullptr;
    const std::string* fast_names = nullptr;
    std::size_t fast_count = 0;
    value* fast_fields = nullptr;

    for (auto field_result : o) {
        if (auto e = field_result.error()) return fail_json(e);
        od::field& f = field_result.value_unsafe();
        od::raw_json_string raw_key = f.key();
        od::value& v = f.value();

        if (count < fast_count && fast_keys[count].matches(raw_key, fast_names[count])) {
            // The common case: same field in the same place as the last record of this type,
            // compared without unescaping the key.
            if (!parse_field(v, fast_fields[count])) return false;
            ++count;
            continue;
        }

        const char* key_at = raw_key.raw() - 1;  // the opening quote
        std::string_view key;                    // unescaped, unless quick_marker() knew it
        marker mk = quick_marker(raw_key);
        if (mk == marker::unknown) {
            if (auto e = f.unescaped_key().get(key)) return fail_json(e);
            mk = marker_of(key);
        }
        if (k == kind::single) {
            if (key.empty()) key = marker_name(mk);
            return fail(key_at, std::string("\"") + single_key +
                                    "\" must be the only key of its object; found \"" +
                                    std::string(key) + "\" next to it");
        }
        if (mk == marker::none) {
            if (!key.empty() && key[0] == '$') key.remove_prefix(1);  // "$$x" is the key "$x"
            if (k == kind::record) {
                if (candidate) {
                    const auto& expected = candidate.fields();
                    if (count >= expected.size() || expected[count] != key) {
                        auto prefix = static_cast<std::ptrdiff_t>(std::min(count, expected.size()));
                        field_names().assign(expected.begin(), expected.begin() + prefix);
                        candidate = {};
                        fast_count = 0;
                    }
                }
                if (!candidate) field_names().emplace_back(key);
                if (count == rec->fields.size()) rec->fields.emplace_back();
                if (!parse_value(v, rec->fields[count])) return false;
                ++count;
                continue;
            }
            if (k != kind::map) {
                m = &reuse_as<map>(*target);
                k = kind::map;
            }
            if (count == m->size()) m->emplace_back();
            auto& entry = (*m)[count];
            entry.first.assign(key);
            if (!parse_value(v, entry.second)) return false;
            ++count;
            continue;
        }

        if (mk == marker::id && k == kind::empty) {
            std::uint32_t id;
            if (!read_id(v, "$id", id)) return false;
            if (find_object(id) != 0) {
                return fail(token_start(v), "duplicate \"$id\": " + std::to_string(id) +
                                                " (another object in this line already has this "
                                                "number; give each object its own \"$id\")");
            }
            slot = object_count_++;
            if (id < dense_id_limit) {
                if (id >= dense_ids_.size()) dense_ids_.resize(id + 1, 0);
                dense_ids_[id] = slot + 1;
                used_dense_ids_.push_back(id);
            } else {
                sparse_ids_.emplace(id, slot + 1);
            }
            auto& objects = out_->objects;
            if (slot < objects.size())
                body = std::move(objects[slot]);  // reuse the last line's storage
            else
                objects.emplace_back();
            target = &body;
            k = kind::after_id;
            continue;
        }
        if (mk == marker::type && (k == kind::empty || k == kind::after_id)) {
            od::json_type t;
            if (auto e = v.type().get(t)) return fail_json(e);
            if (t != od::json_type::string) {
                return fail(token_start(v),
                            std::string("\"$type\" must be a string naming the record "
                                        "type, not ") +
                                json_type_name(t));
            }
            if (auto e = v.get_string().get(type_name)) return fail_json(e);
            type_at = key_at;
            rec = &reuse_as<record>(*target);
            candidate = find_known_type(type_name);
            if (candidate.plain_names) {
                fast_count = candidate.fields().size();
                if (rec->fields.size() < fast_count) rec->fields.resize(fast_count);
                fast_keys = candidate.entry->keys.data();
                fast_names = candidate.fields().data();
                fast_fields = rec->fields.data();
            }
            level = record_depth_++;
            k = kind::record;
            continue;
        }
        if (mk == marker::ref && k == kind::empty) {
            std::uint32_t id;
            if (!read_id(v, "$ref", id)) return false;
            std::uint32_t found = find_object(id);
            if (found != 0) {
                set(*target, object_ref{found - 1});
            } else {
                // Maybe defined later in the line; checked when the line ends.
                pending_.push_back({id, static_cast<std::size_t>(token_start(v) - base_) + 1});
                set(*target,
                    object_ref{pending_ref + static_cast<std::uint32_t>(pending_.size() - 1)});
            }
            k = kind::single;
            single_key = "$ref";
            continue;
        }
        if (mk == marker::bytes && (k == kind::empty || k == kind::after_id)) {
            if (!parse_bytes(v, *target)) return false;
            k = kind::single;
            single_key = "$bytes";
            continue;
        }
        if (mk == marker::float_ && (k == kind::empty || k == kind::after_id)) {
            const char* where = token_start(v);
            std::string_view s;
            bool is_string = !v.get_string().get(s);
            if (is_string && s == "nan") {
                *target = std::numeric_limits<double>::quiet_NaN();
            } else if (is_string && s == "inf") {
                *target = std::numeric_limits<double>::infinity();
            } else if (is_string && s == "-inf") {
                *target = -std::numeric_limits<double>::infinity();
            } else {
                return fail(where,
                            "\"$float\" must be \"nan\", \"inf\" or \"-inf\" (finite "
                            "numbers are plain JSON numbers)");
            }
            k = kind::single;
            single_key = "$float";
            continue;
        }
        if (mk == marker::value && k == kind::after_id) {
            if (!parse_value(v, *target)) return false;
            k = kind::single;
            single_key = "$value";
            continue;
        }
        return fail(key_at, misplaced_marker_message(mk, key));
    }

    switch (k) {
        case kind::empty:
        case kind::after_id:
            reuse_as<map>(*target).clear();
            break;
        case kind::map:
            m->resize(count);
            break;
        case kind::record:
            if (candidate && count == candidate.fields().size()) {
                if (rec->type != candidate.type()) rec->type = candidate.type();
                if (rec->fields.size() != count) rec->fields.resize(count);
            } else {
                if (candidate) {  // a prefix of the last type of this name
                    const auto& expected = candidate.fields();
                    field_names().assign(expected.begin(),
                                         expected.begin() + static_cast<std::ptrdiff_t>(count));
                }
                if (!finish_record(type_name, field_names(), type_at, *rec)) return false;
            }
            --record_depth_;
            break;
        case kind::single:
            break;
    }
    if (target == &body) {
        out_->objects[slot] = std::move(body);
        set(dst, object_ref{slot});
    }
    return true;
}

bool jsonl_reader::impl::parse_bytes(od::value& v, value& dst) {
    const char* where = token_start(v);
    std::string_view s;
    if (v.get_string().get(s)) return fail(where, "\"$bytes\" must be a string of base64");
    auto bad = decode_base64(s, reuse_as<bytes>(dst).data);
    if (!bad) return true;
    std::size_t offset = *bad;
    // Point at the bad character, unless escapes make raw and decoded offsets differ.
    bool escaped = std::memchr(where, '\\', s.size() + 1) != nullptr;
    const char* at = escaped ? where : where + 1 + offset;
    std::string msg = "\"$bytes\" is not valid base64 (";
    if (offset < s.size() && s[offset] != '=')
        msg += "unexpected character '" + std::string(1, s[offset]) + "'";
    else if (offset < s.size())
        msg += "'=' padding before the end";
    else
        msg += "length " + std::to_string(s.size()) + " is not a multiple of 4";
    return fail(at, msg + "); use standard base64 (A-Z a-z 0-9 + /) with '=' padding");
}

std::string jsonl_reader::impl::misplaced_marker_message(marker mk, std::string_view key) {
    std::string name(key.empty() ? marker_name(mk) : key);
    switch (mk) {
        case marker::value:
            return "\"$value\" is only allowed right after \"$id\"";
        case marker::id:
        case marker::ref:
            return "\"" + name + "\" must be the first key of its object";
        case marker::type:
        case marker::bytes:
        case marker::float_:
            return "\"" + name + "\" must be the first key of its object (after \"$id\" if any)";
        default:
            return "unknown marker \"" + name +
                   "\": keys starting with '$' are reserved for $id, $ref, $type, $bytes, $float "
                   "and $value; write a key that starts with '$' with the '$' doubled (\"$" +
                   name + "\")";
    }
}

auto jsonl_reader::impl::find_known_type(std::string_view name) -> known_type {
    if (last_known_ && name == last_known_name_) return *last_known_;
    auto it = known_types_.find(name);
    if (it == known_types_.end()) return {};
    last_known_name_.assign(name);
    last_known_ = &it->second;
    return it->second;
}

// Finds or makes the type of a record with these field names; `type_at` is its "$type" key.
bool jsonl_reader::impl::finish_record(std::string_view name, const std::vector<std::string>& names,
                                       const char* type_at, record& r) {
    r.fields.resize(names.size());
    signature_.assign(name);
    for (const auto& f : names) {
        signature_.push_back('\0');
        signature_.append(f);
    }
    auto it = types_.find(signature_);
    if (it == types_.end()) {
        if (const auto i = first_duplicate_field(names); i != names.size()) {
            // Points at the record's "$type": the field's own position is gone by now.
            return fail(type_at, "record \"" + std::string(name) + "\" has the field \"" +
                                     names[i] + "\" twice; field names must be unique");
        }
        interned_type entry{make_record_type(std::string(name), names), {}};
        entry.keys.reserve(names.size());
        for (const auto& f : names)
            entry.keys.emplace_back(f);
        it = types_.emplace(signature_, std::move(entry)).first;
    }
    r.type = it->second.type;
    // The next record of this name is compared against this shape first.
    // Raw keys can be compared as they are unless a name needs escaping or '$' doubling.
    known_type k{&it->second, true};
    // One pass over each name (find_first_of with a set costs a memchr per character).
    const auto needs_escaping = [](const std::string& f) {
        return std::any_of(f.begin(), f.end(), [](char c) { return c == '"' || c == '\\'; });
    };
    for (const auto& f : names)
        if ((!f.empty() && f[0] == '$') || needs_escaping(f)) k.plain_names = false;
    auto last = known_types_.find(name);
    if (last == known_types_.end())
        known_types_.emplace(std::string(name), std::move(k));
    else
        last->second = std::move(k);
    return true;
}

bool jsonl_reader::impl::resolve_pending(message& out) {
    for (auto& p : pending_) {
        std::uint32_t found = find_object(p.id);
        if (found == 0) {
            err_column_ = p.column;
            err_message_ = "unknown $ref " + std::to_string(p.id) +
                           " (no object with \"$id\": " + std::to_string(p.id) + " in this line)";
            return false;
        }
        p.id = found - 1;  // now the slot
    }
    fix_pending(out.root);
    for (auto& o : out.objects)
        fix_pending(o);
    // The objects were numbered in "$id" order; a forward "$ref" means canonical order
    // differs.
    out = canonical(out);
    return true;
}

void jsonl_reader::impl::fix_pending(value& v) {
    switch (v.type()) {
        case value::kind::list:
            for (auto& e : v.get<list>())
                fix_pending(e);
            break;
        case value::kind::map:
            for (auto& [k, e] : v.get<map>())
                fix_pending(e);
            break;
        case value::kind::record:
            for (auto& e : v.get<record>().fields)
                fix_pending(e);
            break;
        case value::kind::object_ref: {
            auto& r = v.get<object_ref>();
            if (r.index >= pending_ref) r.index = pending_[r.index - pending_ref].id;
            break;
        }
        default:
            break;
    }
}

bool jsonl_reader::impl::fail(const char* where, std::string msg) {
    if (quiet_) return false;  // the line is parsed again alone, which reports the error
    if (where && where >= base_ && where <= base_ + line_size_)
        err_column_ = static_cast<std::size_t>(where - base_) + 1;
    else
        err_column_ = 1;
    err_message_ = std::move(msg);
    return false;
}

bool jsonl_reader::impl::fail_json(simdjson::error_code e, const char* at) {
    if (quiet_) return false;  // as in fail(); and doc_ is not the document being read
    std::string_view line(base_, line_size_);
    std::size_t i;
    switch (e) {
        case simdjson::INCOMPLETE_ARRAY_OR_OBJECT:
        case simdjson::TRAILING_CONTENT:
            // simdjson says this for both a cut-off line and text after the value.
            i = root_value_end(line);
            while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
                ++i;
            if (i < line.size()) return fail_trailing(base_ + i);
            return fail(base_ + line_size_,
                        "truncated JSON: the line ends before every object and array is closed");
        case simdjson::UTF8_ERROR:
            i = find_invalid_utf8(line);
            if (i == std::string_view::npos) return fail(nullptr, "invalid UTF-8");
            return fail(base_ + i, "invalid UTF-8: byte " +
                                       hex_byte(static_cast<unsigned char>(line[i])) +
                                       " does not start a valid UTF-8 sequence (the text must be "
                                       "UTF-8 encoded)");
        case simdjson::UNCLOSED_STRING:
            i = find_unclosed_string(line);
            return fail(i == std::string_view::npos ? nullptr : base_ + i,
                        "truncated JSON: this string is never closed (the line ends inside it)");
        case simdjson::UNESCAPED_CHARS:
            i = find_unescaped_control(line);
            if (i == std::string_view::npos) return fail(nullptr, "unescaped control character");
            return fail(base_ + i, "control character " +
                                       hex_byte(static_cast<unsigned char>(line[i])) +
                                       " inside a string must be escaped (\\n, \\t or \\u00XX)");
        default:
            break;
    }
    if (!at && doc_.current_location().get(at)) at = base_ + line_size_;
    switch (e) {
        case simdjson::TAPE_ERROR:
        case simdjson::INCORRECT_TYPE:
            return fail(at, "invalid JSON: unexpected character, or a missing ',' ':' '}' or ']'");
        case simdjson::NUMBER_ERROR:
            return fail(at, "invalid JSON number");
        case simdjson::T_ATOM_ERROR:
        case simdjson::F_ATOM_ERROR:
        case simdjson::N_ATOM_ERROR:
            return fail(at, "invalid JSON literal (expected true, false or null)");
        case simdjson::STRING_ERROR:
            return fail(at, "invalid JSON string (bad escape sequence or lone surrogate)");
        case simdjson::DEPTH_ERROR:
            return fail(at, "JSON nested deeper than " + std::to_string(max_depth) +
                                " levels of arrays and objects");
        default:
            return fail(at, std::string("invalid JSON: ") + simdjson::error_message(e));
    }
}

bool jsonl_reader::impl::fail_trailing(const char* at) {
    return fail(at,
                "unexpected text after the JSON value (a line holds exactly one value; put "
                "the next one on its own line)");
}

jsonl_reader::jsonl_reader(std::string_view text, std::size_t first_line_number)
    : impl_(std::make_unique<impl>(text, first_line_number)) {}
jsonl_reader::~jsonl_reader() = default;
jsonl_reader::jsonl_reader(jsonl_reader&&) noexcept = default;
jsonl_reader& jsonl_reader::operator=(jsonl_reader&&) noexcept = default;

bool jsonl_reader::next(message& out) {
    return impl_->next(out);
}
const std::optional<json_error>& jsonl_reader::error() const {
    return impl_->error_;
}
std::size_t jsonl_reader::line() const {
    return impl_->line_;
}
std::size_t jsonl_reader::offset() const {
    return impl_->pos_;
}
static_assert(jsonl_reader::padding >= simdjson::SIMDJSON_PADDING);
void jsonl_reader::continue_with(std::string_view text, bool padded) {
    impl& r = *impl_;
    r.input_start_ = r.input_start_ && r.text_.empty();  // nothing was given before
    r.text_ = text;
    r.padding_ = padded ? padding : 0;
    r.pos_ = 0;
    r.block_end_ = 0;
    r.streaming_ = false;
    r.error_.reset();
}

}  // namespace objwire
