#include "proto/lazy_value.hpp"

#include <algorithm>

#include "proto/codec.hpp"
#include "proto/decoder.hpp"
#include "proto/encoder.hpp"
#include "proto/wire.hpp"

namespace objwire {
namespace {

// The inner encoding of a lazy value at `depth` gets the levels left below it.
decoder_limits limits_at(const decoder_limits& limits, std::uint32_t depth) {
    decoder_limits inner = limits;
    inner.max_depth = limits.max_depth - (depth - 1);
    return inner;
}

// One value, alone: a fresh encoder (empty table, no field history), no reset ops.
std::error_code encode_alone(const value& v, const encoder_options& options, byte_buffer& out) {
    if (contains_object_refs(v)) return proto_errc::bad_message;
    stream_encoder enc(options);
    return enc.encode(message{v}, out);
}

std::error_code compress_alone(frame_compressor& c, codec_id codec, int level,
                               std::span<const std::uint8_t> raw, byte_buffer& out) {
    if (!lazy_codec_allowed(codec)) return proto_errc::bad_codec;
    return c.compress(codec, level, raw, out);
}

}  // namespace

bool lazy_codec_allowed(codec_id c) {
    return c == codec_id::zlib || c == codec_id::zstd || c == codec_id::lz4;
}

result<lazy_value> pack_lazy(const value& v, codec_id codec, int level,
                             const decoder_limits& limits) {
    if (!lazy_codec_allowed(codec) || !has_codec(built_codecs(), codec))
        return proto_errc::bad_codec;
    encoder_options options;
    options.peer = limits;
    options.reset = reset_policy{};  // nothing carries over anyway: the encoder is fresh
    byte_buffer raw;
    if (auto ec = encode_alone(v, options, raw)) return ec;
    if (raw.size() > limits.max_frame_bytes) return proto_errc::frame_too_large;
    frame_compressor compressor;
    byte_buffer stored;
    if (auto ec = compress_alone(compressor, codec, level, raw.span(), stored)) return ec;
    const auto s = stored.span();
    return lazy_value(codec, static_cast<std::uint32_t>(raw.size()), {s.begin(), s.end()});
}

result<value> expand_lazy(const lazy_value& l, const decoder_limits& limits, std::uint32_t depth) {
    if (depth == 0 || depth > limits.max_depth) return proto_errc::depth_exceeded;
    if (!lazy_codec_allowed(l.codec())) return proto_errc::bad_codec;
    if (l.raw_size() == 0) return proto_errc::bad_message;
    // Checked before anything is allocated: the stated size is the cap on what is decompressed.
    if (l.raw_size() > limits.max_frame_bytes) return proto_errc::frame_too_large;
    // Reused by every expansion on this thread: no context or buffer allocation per value.
    thread_local frame_decompressor decompressor;
    thread_local byte_buffer raw;
    if (auto ec = decompressor.decompress(l.codec(), l.stored(), l.raw_size(), raw)) return ec;
    byte_reader in(raw.span());
    // Exactly one value: a reset op has nothing to reset in a fresh table.
    if (!in.at_end() && *in.position() == wire::tag_reset) return proto_errc::bad_message;
    stream_decoder decoder(limits_at(limits, depth));
    message m;
    bool got = false;
    decoder.begin_frame();
    if (auto ec = decoder.next(in, m, got)) return ec;
    if (!got) return proto_errc::bad_message;
    if (!in.at_end()) return proto_errc::trailing_bytes;
    // A lazy value is a tree: a shared object inside would have nothing to be shared with.
    if (!m.objects.empty()) return proto_errc::bad_message;
    return std::move(m.root);
}

std::error_code expand_lazy_values(value& v, const decoder_limits& limits, std::uint32_t depth,
                                   std::uint64_t& budget) {
    if (depth > limits.max_depth) return proto_errc::depth_exceeded;
    switch (v.type()) {
        case value::kind::lazy: {
            const lazy_value& l = v.get<lazy_value>();
            if (l.raw_size() > budget) return proto_errc::frame_too_large;
            budget -= l.raw_size();
            auto inner = expand_lazy(l, limits, depth);
            if (!inner) return inner.error();
            v = std::move(*inner);
            return expand_lazy_values(v, limits, depth, budget);
        }
        case value::kind::list:
            for (auto& e : v.get<list>())
                if (auto ec = expand_lazy_values(e, limits, depth + 1, budget)) return ec;
            return {};
        case value::kind::map:
            for (auto& [k, e] : v.get<map>())
                if (auto ec = expand_lazy_values(e, limits, depth + 1, budget)) return ec;
            return {};
        case value::kind::record:
            for (auto& e : v.get<record>().fields)
                if (auto ec = expand_lazy_values(e, limits, depth + 1, budget)) return ec;
            return {};
        default:
            return {};
    }
}

std::error_code expand_lazy_values(message& m, const decoder_limits& limits) {
    std::uint64_t budget = limits.max_frame_bytes;
    if (auto ec = expand_lazy_values(m.root, limits, 1, budget)) return ec;
    // A shared object sits at least one level down (it is referenced from the root).
    for (auto& o : m.objects)
        if (auto ec = expand_lazy_values(o, limits, 2, budget)) return ec;
    return {};
}

namespace {

void put_lazy_parts(byte_buffer& out, codec_id codec, std::size_t raw_size,
                    std::span<const std::uint8_t> stored) {
    out.put_u8(wire::tag_lazy);
    out.put_varint(static_cast<std::uint8_t>(codec));
    out.put_varint(raw_size);
    out.put_varint(stored.size());
    out.append(stored.data(), stored.size());
}

}  // namespace

void put_lazy(byte_buffer& out, const lazy_value& l) {
    put_lazy_parts(out, l.codec(), l.raw_size(), l.stored());
}

proto_errc read_lazy(byte_reader& in, const decoder_limits& limits, value& out) {
    const std::uint64_t codec = in.varint();
    const std::uint64_t raw_size = in.varint();
    const std::uint64_t stored_size = in.varint();
    if (!in.ok()) return in.error();
    if (codec > 0xFF || !lazy_codec_allowed(static_cast<codec_id>(codec)))
        return proto_errc::bad_codec;
    if (raw_size > limits.max_frame_bytes) return proto_errc::frame_too_large;
    // Every value takes a byte, and every codec's stream at least one.
    if (raw_size == 0 || stored_size == 0) return proto_errc::bad_message;
    auto stored = in.take(static_cast<std::size_t>(std::min<std::uint64_t>(stored_size, SIZE_MAX)));
    if (!in.ok()) return in.error();
    out = lazy_value(static_cast<codec_id>(codec), static_cast<std::uint32_t>(raw_size),
                     {stored.begin(), stored.end()});
    return proto_errc::ok;
}

struct lazy_packer::scratch {
    encoder_options inner;  // the stream's transient fields; peer set per value
    frame_compressor compressor;
    byte_buffer raw;
    byte_buffer stored;
};

lazy_packer::lazy_packer(lazy_options options, transient_fields transient)
    : options_(std::move(options)), scratch_(std::make_unique<scratch>()) {
    scratch_->inner.transient = std::move(transient);
}

lazy_packer::~lazy_packer() = default;

bool lazy_packer::lazy_field(const record_type_ptr& t, std::uint32_t index) {
    if (options_.fields.empty()) return false;
    auto it = types_.find(t.get());
    if (it == types_.end()) {
        if (types_.size() > 4096) types_.clear();
        type_fields f{t, std::vector<bool>(t->fields.size())};
        for (std::size_t i = 0; i < t->fields.size(); ++i) {
            const std::string name = t->name + "." + t->fields[i];
            f.lazy[i] = std::find(options_.fields.begin(), options_.fields.end(), name) !=
                        options_.fields.end();
        }
        it = types_.emplace(t.get(), std::move(f)).first;
    }
    return index < it->second.lazy.size() && it->second.lazy[index];
}

namespace {

// Adds v's size to `n` until it reaches `limit`; true once it has.
bool reaches(const value& v, std::uint64_t limit, std::uint64_t& n) {
    switch (v.type()) {
        case value::kind::string:
            n += v.get<std::string>().size();
            break;
        case value::kind::bytes:
            n += v.get<bytes>().data.size();
            break;
        case value::kind::lazy:
            n += v.get<lazy_value>().stored().size();
            break;
        case value::kind::list:
            for (const auto& e : v.get<list>())
                if (reaches(e, limit, n)) return true;
            break;
        case value::kind::map:
            for (const auto& [k, e] : v.get<map>()) {
                n += k.size();
                if (reaches(e, limit, n)) return true;
            }
            break;
        case value::kind::record:
            for (const auto& e : v.get<record>().fields)
                if (reaches(e, limit, n)) return true;
            break;
        default:
            break;
    }
    ++n;
    return n >= limit;
}

}  // namespace

bool lazy_packer::large(const value& v) const {
    if (options_.min_bytes == 0) return false;
    switch (v.type()) {
        case value::kind::string:
        case value::kind::bytes:
        case value::kind::list:
        case value::kind::map:
        case value::kind::record: {
            std::uint64_t n = 0;
            return reaches(v, options_.min_bytes, n);
        }
        default:
            return false;
    }
}

bool lazy_packer::pack(const value& v, std::uint32_t depth, value& out) {
    if (v.type() == value::kind::lazy) return false;  // already packed: it travels as it is
    if (!has_codec(built_codecs(), options_.codec)) return false;
    auto& s = *scratch_;
    s.inner.peer = limits_at(*limits_, depth);
    s.raw.clear();
    if (encode_alone(v, s.inner, s.raw)) return false;  // the plain path reports the error
    if (s.raw.size() > limits_->max_frame_bytes) return false;
    s.stored.clear();
    if (compress_alone(s.compressor, options_.codec, options_.level, s.raw.span(), s.stored))
        return false;
    // As a frame: what did not shrink travels plain (the header costs a few bytes too).
    if (s.stored.size() + 8 >= s.raw.size()) return false;
    const auto stored = s.stored.span();
    out = lazy_value(options_.codec, static_cast<std::uint32_t>(s.raw.size()),
                     {stored.begin(), stored.end()});
    ++packed_;
    return true;
}

// Copies a container only once something in it was packed: items before the first change are
// copied as they are, later ones are rewritten in the copy.
template <class Items, class Get, class Lazy>
bool lazy_packer::rewrite_items(const Items& items, std::uint32_t depth, Get get, Lazy lazy,
                                Items& out) {
    for (std::size_t i = 0; i < items.size(); ++i) {
        value packed;
        if (!rewrite(get(items[i]), depth, lazy(i), packed)) continue;
        out = items;
        get(out[i]) = std::move(packed);
        for (std::size_t j = i + 1; j < items.size(); ++j)
            if (rewrite(get(items[j]), depth, lazy(j), packed)) get(out[j]) = std::move(packed);
        return true;
    }
    return false;
}

bool lazy_packer::rewrite(const value& v, std::uint32_t depth, bool configured, value& out) {
    if (depth > limits_->max_depth) return false;  // the encoder refuses it as it is
    // Outermost first: a value packed whole is not looked into.
    if (depth > 1 && (configured || large(v)) && pack(v, depth, out)) return true;
    const auto same = [](auto& x) -> auto& {
        return x;
    };
    const auto no = [](std::size_t) { return false; };
    switch (v.type()) {
        case value::kind::list:
            return rewrite_items(v.get<list>(), depth + 1, same, no, out.ensure<list>());
        case value::kind::map:
            return rewrite_items(
                v.get<map>(), depth + 1, [](auto& kv) -> auto& { return kv.second; }, no,
                out.ensure<map>());
        case value::kind::record: {
            const record& r = v.get<record>();
            if (!r.type || r.type->fields.size() != r.fields.size()) return false;
            std::vector<value> fields;
            const auto lazy = [&](std::size_t i) {
                return lazy_field(r.type, static_cast<std::uint32_t>(i));
            };
            if (!rewrite_items(r.fields, depth + 1, same, lazy, fields)) return false;
            out = record{r.type, std::move(fields)};
            return true;
        }
        default:
            return false;
    }
}

const message& lazy_packer::apply(const message& m, const decoder_limits& limits) {
    limits_ = &limits;
    value root;
    const bool root_changed = rewrite(m.root, 1, false, root);
    // A shared object's depth depends on where it is first met: counted as a root's field.
    std::vector<value> objects;
    const bool objects_changed = rewrite_items(
        m.objects, 2, [](auto& x) -> auto& { return x; }, [](std::size_t) { return false; },
        objects);
    if (!root_changed && !objects_changed) return m;
    copy_.root = root_changed ? std::move(root) : m.root;
    copy_.objects = objects_changed ? std::move(objects) : m.objects;
    copy_.shared_keys = m.shared_keys;
    return copy_;
}

}  // namespace objwire
