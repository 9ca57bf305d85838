// Lazy values (docs/PROTOCOL.md 4.1): a sub-value encoded on its own - a fresh, empty
// reference table, no integer-field history, no shared objects - and compressed with zlib, zstd
// or lz4 as one unit. It can therefore be expanded anywhere, at any time, by anyone, without
// the stream it came in: the daemon decodes it as a header and its bytes, stores and forwards
// those bytes unchanged, and only the reader that accesses the value pays to decompress it.
//
//   auto lazy = pack_lazy(big_value, codec_id::zstd);       // library API: build one
//   message m{make_record(doc, {1, "title", *lazy})};      // travels compressed
//   ... on the reader ...
//   auto v = expand_lazy(m.root.get<record>().fields[2].get<lazy_value>(), limits);
//
// Expansion enforces every decoder limit: the stated raw size against max_frame_bytes before
// anything is allocated, decompression that stops at the stated size (more, less or leftover
// input is decompress_failed), then the decoder's own depth, string, element and reference
// limits on the inner encoding. Hostile bytes give an error, never a crash or an unbounded
// allocation.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <system_error>
#include <unordered_map>
#include <vector>

#include <objwire/proto/byte_buffer.hpp>
#include <objwire/proto/byte_reader.hpp>
#include <objwire/proto/limits.hpp>
#include <objwire/proto/result.hpp>
#include <objwire/proto/value.hpp>

namespace objwire {

// Whether a codec may carry a lazy value: zlib, zstd and lz4, which compress a unit on its own
// (zstd_stream needs its connection's context, none would not be lazy).
bool lazy_codec_allowed(codec_id c);

// Encodes `v` on its own and compresses it. `limits` are the reader's, which the encoding
// respects as a message's would (depth counted from the lazy value itself). A value holding
// object references (shared objects) cannot stand alone: bad_message. A codec that is not
// built, or not allowed for lazy values, is bad_codec.
result<lazy_value> pack_lazy(const value& v, codec_id codec, int level = 0,
                             const decoder_limits& limits = {});

// The value inside `l`, one level: lazy values nested in it stay lazy. `depth` is the depth at
// which the value sits (1: the root), so the inner value gets max_depth - depth + 1 levels.
result<value> expand_lazy(const lazy_value& l, const decoder_limits& limits,
                          std::uint32_t depth = 1);

// Expands, in place, every lazy value in `v` and in what they expand to. `budget` is the raw
// bytes still allowed to expand (each lazy value's stated size is charged before it is
// decompressed, frame_too_large when it does not fit): a lazy value full of small lazy values
// that each claim a large size is a nested bomb, and the budget bounds it.
std::error_code expand_lazy_values(value& v, const decoder_limits& limits, std::uint32_t depth,
                                   std::uint64_t& budget);

// Every lazy value of a message (root and shared objects), within one budget of
// limits.max_frame_bytes raw bytes: what a reader does before it looks at all of a message.
std::error_code expand_lazy_values(message& m, const decoder_limits& limits = {});

// Wire form: the tag byte wire::tag_lazy, varint codec, varint raw size, varint stored size,
// the stored bytes. put_lazy writes all of it; read_lazy reads what follows the tag.
void put_lazy(byte_buffer& out, const lazy_value& l);
// Checks the header against `limits` (codec, raw size against max_frame_bytes, stored size
// within the input) before copying the stored bytes; decompresses nothing.
proto_errc read_lazy(byte_reader& in, const decoder_limits& limits, value& out);

// When the encoder packs values it was handed as plain values ([lazy] in the client config).
struct lazy_options {
    // Record fields packed whenever they are sent, as "Type.field".
    std::vector<std::string> fields;
    // Any value below the message root (a field, an element, a map value) whose size - the
    // bytes of its strings and byte strings plus one per other item - reaches this is packed.
    // 0: no size rule.
    std::uint64_t min_bytes = 0;
    codec_id codec = codec_id::zlib;
    int level = 0;  // 0: the codec's default
    bool active() const { return min_bytes > 0 || !fields.empty(); }
};

// The encoder's side of lazy_options: finds the values to pack and packs them, reusing its
// buffers. A value that would not shrink, or holds object references, is left plain. Working
// on the message before the encoder sees it keeps the encoder's own path untouched: with
// [lazy] off it costs one test per message.
class lazy_packer {
  public:
    using transient_fields = std::map<std::string, std::vector<std::string>, std::less<>>;
    // `transient`: the stream's transient fields, dropped inside packed values too.
    lazy_packer(lazy_options options, transient_fields transient);
    ~lazy_packer();

    // `m` itself when nothing in it is packed; else a copy (valid until the next call) in which
    // the values to pack are lazy values, encoded for a reader with `limits`.
    const message& apply(const message& m, const decoder_limits& limits);
    std::uint64_t packed() const { return packed_; }

  private:
    struct scratch;
    // Whether field `index` of records of type `t` is configured lazy.
    bool lazy_field(const record_type_ptr& t, std::uint32_t index);
    // Whether `v` reaches min_bytes (stops counting as soon as it does).
    bool large(const value& v) const;
    // Sets `out` and returns true when `v`, sitting at `depth`, or something inside it was
    // packed; leaves `out` alone otherwise. `configured`: a lazy field's value.
    bool rewrite(const value& v, std::uint32_t depth, bool configured, value& out);
    template <class Items, class Get, class Lazy>
    bool rewrite_items(const Items& items, std::uint32_t depth, Get get, Lazy lazy, Items& out);
    bool pack(const value& v, std::uint32_t depth, value& out);

    lazy_options options_;
    std::unique_ptr<scratch> scratch_;
    const decoder_limits* limits_ = nullptr;  // of the current apply()
    message copy_;
    struct type_fields {
        record_type_ptr type;  // keeps the key pointer alive
        std::vector<bool> lazy;
    };
    std::unordered_map<const record_type*, type_fields> types_;
    std::uint64_t packed_ = 0;
};

}  // namespace objwire
