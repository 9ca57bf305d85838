#include "proto/json_writer.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string_view>
#include <utility>
#include <vector>

#include "proto/base64.hpp"
#include "proto/errors.hpp"
#include "proto/lazy_value.hpp"

namespace objwire {

namespace {

constexpr std::uint32_t unseen = std::numeric_limits<std::uint32_t>::max();

// 1 for bytes a JSON string must escape: '"', '\\' and the control characters below 0x20.
constexpr auto escape_table = [] {
    std::array<std::uint8_t, 256> t{};
    for (int c = 0; c < 0x20; ++c)
        t[c] = 1;
    t['"'] = 1;
    t['\\'] = 1;
    return t;
}();

// Index of the first byte of `w` (little-endian order) that needs escaping, or 8. The classic
// "has a zero byte" / "has a byte below n" tricks can flag false bytes only above a true one,
// so the lowest flag is exact.
inline unsigned first_escape_in_word(std::uint64_t w) {
    constexpr std::uint64_t ones = 0x0101010101010101ULL;
    constexpr std::uint64_t highs = 0x8080808080808080ULL;
    auto below = [](std::uint64_t x, std::uint64_t n) { return (x - ones * n) & ~x & highs; };
    std::uint64_t mask = below(w, 0x20) | below(w ^ (ones * '"'), 1) | below(w ^ (ones * '\\'), 1);
    if (mask == 0) return 8;
    if constexpr (std::endian::native == std::endian::little)
        return static_cast<unsigned>(std::countr_zero(mask)) / 8;
    else
        return static_cast<unsigned>(std::countl_zero(mask)) / 8;
}

// Offset of the first byte of `s` that needs escaping, or s.size().
std::size_t first_escape(std::string_view s) {
    const char* p = s.data();
    std::size_t n = s.size(), i = 0;
    for (; i + 8 <= n; i += 8) {
        std::uint64_t w;
        std::memcpy(&w, p + i, 8);
        if (unsigned k = first_escape_in_word(w); k < 8) return i + k;
    }
    for (; i < n; ++i)
        if (escape_table[static_cast<std::uint8_t>(p[i])]) return i;
    return n;
}

// Appends to a std::string through a raw cursor: the string grows in chunks and is trimmed
// by finish(), so a small write is one bounds check and a store instead of a string call.
class output {
  public:
    explicit output(std::string& s) : s_(s) { p_ = end_ = s_.data() + s_.size(); }
    ~output() { finish(); }  // also when a write throws: no zero fill is left behind
    output(const output&) = delete;
    output& operator=(const output&) = delete;

    void ensure(std::size_t n) {
        if (static_cast<std::size_t>(end_ - p_) < n) [[unlikely]]
            grow(n);
    }
    // put() and put_raw() need a prior ensure(); the others ensure themselves.
    void put(char c) { *p_++ = c; }
    void put_raw(const char* d, std::size_t n) {
        std::memcpy(p_, d, n);
        p_ += n;
    }
    template <std::size_t N>
    void literal(const char (&s)[N]) {
        ensure(N - 1);
        put_raw(s, N - 1);
    }
    void byte(char c) {
        ensure(1);
        put(c);
    }
    char* cursor() { return p_; }
    void advance_to(char* p) { p_ = p; }
    // Trims the string to what was written; writing may continue after it.
    void finish() {
        s_.resize(static_cast<std::size_t>(p_ - s_.data()));
        end_ = p_;
    }

  private:
    [[gnu::noinline]] void grow(std::size_t n) {
        auto used = static_cast<std::size_t>(p_ - s_.data());
        // std::string grows its capacity geometrically; the chunk only bounds the zero fill.
        s_.resize(used + std::max<std::size_t>(n, 512));
        p_ = s_.data() + used;
        end_ = s_.data() + s_.size();
    }

    std::string& s_;
    char* p_;
    char* end_;
};

// The string body without quotes, escaped.
void put_escaped(std::string_view s, output& out) {
    std::size_t clean = first_escape(s);
    out.ensure(s.size());
    out.put_raw(s.data(), clean);
    if (clean == s.size()) return;
    static constexpr char hex[] = "0123456789abcdef";
    for (std::size_t i = clean; i < s.size(); ++i) {
        auto c = static_cast<std::uint8_t>(s[i]);
        out.ensure(6 + s.size() - i);
        if (!escape_table[c]) {
            out.put(static_cast<char>(c));
            continue;
        }
        out.put('\\');
        switch (c) {
            case '"':
                out.put('"');
                break;
            case '\\':
                out.put('\\');
                break;
            case '\n':
                out.put('n');
                break;
            case '\r':
                out.put('r');
                break;
            case '\t':
                out.put('t');
                break;
            default:
                out.put_raw("u00", 3);
                out.put(hex[c >> 4]);
                out.put(hex[c & 15]);
        }
    }
}

void put_string(std::string_view s, output& out) {
    out.byte('"');
    put_escaped(s, out);
    out.byte('"');
}

// A map key or record field name: a leading '$' is doubled so it cannot read as a marker.
void put_key(std::string_view k, output& out) {
    out.ensure(2);
    out.put('"');
    if (!k.empty() && k.front() == '$') out.put('$');
    put_escaped(k, out);
    out.ensure(2);
    out.put_raw("\":", 2);
}

void put_int(std::int64_t i, output& out) {
    out.ensure(24);
    out.advance_to(std::to_chars(out.cursor(), out.cursor() + 24, i).ptr);
}

// Fast path for the common doubles with at most three decimals (latencies, prices, rates):
// d == k / 1000 exactly as doubles, not integral, |d| < 2^33. Then the shortest round-trip
// digits are those of k / 1000: any decimal with fewer significant digits is at least 0.001
// away, and the rounding interval of d is far narrower (ulp < 2^-19); and the fixed notation
// is never longer than the scientific one for such a value, so std::to_chars would print
// the same text. Returns false when the value does not qualify.
bool put_milli_double(double d, output& out) {
    if (!(std::fabs(d) < 8589934592.0)) return false;  // also rejects NaN
    auto k = static_cast<std::int64_t>(std::nearbyint(d * 1000.0));
    if (k % 1000 == 0 || static_cast<double>(k) / 1000.0 != d) return false;
    out.ensure(32);
    if (k < 0) {
        out.put('-');
        k = -k;
    }
    out.advance_to(std::to_chars(out.cursor(), out.cursor() + 24, k / 1000).ptr);
    auto frac = static_cast<int>(k % 1000);
    out.put('.');
    out.put(static_cast<char>('0' + frac / 100));
    if (frac % 100 != 0) out.put(static_cast<char>('0' + frac / 10 % 10));
    if (frac % 10 != 0) out.put(static_cast<char>('0' + frac % 10));
    return true;
}

void put_double(double d, output& out) {
    if (std::isnan(d)) return out.literal(R"({"$float":"nan"})");
    if (std::isinf(d)) {
        if (d > 0) return out.literal(R"({"$float":"inf"})");
        return out.literal(R"({"$float":"-inf"})");
    }
    if (put_milli_double(d, out)) return;
    out.ensure(32);
    char* begin = out.cursor();
    char* end = std::to_chars(begin, begin + 30, d).ptr;
    out.advance_to(end);
    // The shortest form may be integral ("1", "-0", "123456789012345680000"); keep it a double.
    for (char* p = begin; p < end; ++p)
        if (*p == '.' || *p == 'e') return;
    out.put_raw(".0", 2);
}

void put_base64(const std::vector<std::uint8_t>& data, output& out) {
    out.ensure(base64_length(data.size()));
    out.advance_to(write_base64(data, out.cursor()));
}

// `"$type":"Name"` and `,"field":`, the fixed parts of a record's text.
void put_type_head(const record_type& type, output& out) {
    out.literal(R"("$type":)");
    put_string(type.name, out);
}

void put_field_key(std::string_view name, output& out) {
    out.byte(',');
    put_key(name, out);
}

// A record type's fixed text rendered once, so a record of a recently seen type costs one
// copy per key instead of escaping each again.
struct rendered_type {
    record_type_ptr type;  // held, so its address cannot be reused by another type
    std::string text;
    std::vector<std::size_t> ends;  // end of the head in `text`, then of each key
    int in_use = 0;                 // records of this type being written right now
};

class rendered_types {
  public:
    // The rendering of `type`, or null if every slot belongs to a record still being written
    // (records nested deeper than the cache). A slot in use is never re-rendered.
    rendered_type* get(const record_type_ptr& type) {
        for (auto& r : slots_)
            if (r.type == type) return &r;
        for (std::size_t tries = 0; tries < slots_.size(); ++tries) {
            rendered_type& r = slots_[next_];
            next_ = (next_ + 1) % slots_.size();
            if (r.in_use == 0) {
                render(type, r);
                return &r;
            }
        }
        return nullptr;
    }

  private:
    static void render(const record_type_ptr& type, rendered_type& r) {
        r.type = type;
        r.text.clear();
        r.ends.clear();
        output out(r.text);
        put_type_head(*type, out);
        r.ends.push_back(static_cast<std::size_t>(out.cursor() - r.text.data()));
        for (const auto& f : type->fields) {
            put_field_key(f, out);
            r.ends.push_back(static_cast<std::size_t>(out.cursor() - r.text.data()));
        }
        out.finish();
    }

    std::array<rendered_type, 8> slots_;  // a few types in turn (e.g. Trip and Point)
    std::size_t next_ = 0;
};

// Writes one message depth first, numbering shared objects in the order canonical() would.
class json_writer {
  public:
    json_writer(const message& m, std::string& out, std::vector<std::uint32_t>& ids,
                rendered_types& types, const decoder_limits& limits)
        : m_(m), out_(out), ids_(ids), types_(types), limits_(limits) {
        ids_.assign(m.objects.size(), unseen);
    }

    std::error_code run() {
        write(m_.root);
        out_.finish();
        return error_;
    }

  private:
    void write(const value& v) {
        switch (v.type()) {
            case value::kind::null:
                out_.literal("null");
                break;
            case value::kind::boolean:
                if (v.get<bool>())
                    out_.literal("true");
                else
                    out_.literal("false");
                break;
            case value::kind::integer:
                put_int(v.get<std::int64_t>(), out_);
                break;
            case value::kind::floating:
                put_double(v.get<double>(), out_);
                break;
            case value::kind::string:
                put_string(v.get<std::string>(), out_);
                break;
            case value::kind::bytes:
                out_.literal(R"({"$bytes":")");
                put_base64(v.get<bytes>().data, out_);
                out_.literal("\"}");
                break;
            case value::kind::list: {
                out_.byte('[');
                bool first = true;
                for (const auto& e : v.get<list>()) {
                    if (!first) out_.byte(',');
                    first = false;
                    write(e);
                }
                out_.byte(']');
                break;
            }
            case value::kind::map:
                out_.byte('{');
                write_map_entries(v.get<map>(), false);
                out_.byte('}');
                break;
            case value::kind::record:
                out_.byte('{');
                write_record_body(v.get<record>());
                out_.byte('}');
                break;
            case value::kind::object_ref:
                write_ref(v.get<object_ref>().index);
                break;
            case value::kind::lazy:
                write_lazy(v.get<lazy_value>());
                break;
        }
    }

    // JSON has no compressed form: the lazy value is expanded (and what it holds, within one
    // budget per message). One that does not expand is a marker no reader accepts.
    void write_lazy(const lazy_value& l) {
        value v = l;
        if (auto ec = expand_lazy_values(v, limits_, 1, lazy_budget_)) {
            if (!error_) error_ = ec;
            out_.literal(R"({"$lazy_error":)");
            put_string(ec.category() == proto_category()
                           ? proto_errc_name(static_cast<proto_errc>(ec.value()))
                           : "error",
                       out_);
            out_.byte('}');
            return;
        }
        write(v);
    }

    void write_map_entries(const map& m, bool after_first) {
        for (const auto& [k, e] : m) {
            if (after_first) out_.byte(',');
            after_first = true;
            put_key(k, out_);
            write(e);
        }
    }

    void write_record_body(const record& r) {
        if (!r.type) return out_.literal(R"("$type":"")");
        rendered_type* t = types_.get(r.type);
        if (!t) {
            put_type_head(*r.type, out_);
            for (std::size_t i = 0; i < r.type->fields.size(); ++i) {
                put_field_key(r.type->fields[i], out_);
                write_field(r, i);
            }
            return;
        }
        struct hold {  // keeps the slot from being re-rendered by nested records
            rendered_type* t;
            explicit hold(rendered_type* t) : t(t) { ++t->in_use; }
            ~hold() { --t->in_use; }
        } guard(t);
        out_.ensure(t->ends[0]);
        out_.put_raw(t->text.data(), t->ends[0]);
        for (std::size_t i = 1; i < t->ends.size(); ++i) {
            std::size_t n = t->ends[i] - t->ends[i - 1];
            out_.ensure(n);
            out_.put_raw(t->text.data() + t->ends[i - 1], n);
            write_field(r, i - 1);
        }
    }

    void write_field(const record& r, std::size_t i) {
        if (i < r.fields.size())
            write(r.fields[i]);
        else
            out_.literal("null");
    }

    void write_ref(std::uint32_t index) {
        std::uint32_t* id = nullptr;
        if (index < ids_.size()) {
            id = &ids_[index];
        } else {
            // A reference past the end of objects: canonical() makes it a null object,
            // shared by every reference to the same index.
            for (auto& [old, n] : dangling_)
                if (old == index) id = &n;
            if (!id) id = &dangling_.emplace_back(index, unseen).second;
        }
        if (*id != unseen) {
            out_.literal(R"({"$ref":)");
            put_int(*id, out_);
            out_.byte('}');
            return;
        }
        *id = next_id_++;
        out_.literal(R"({"$id":)");
        put_int(*id, out_);
        static const value null_value;
        const value& body = index < m_.objects.size() ? m_.objects[index] : null_value;
        switch (body.type()) {
            case value::kind::map:
                write_map_entries(body.get<map>(), true);
                break;
            case value::kind::record:
                out_.byte(',');
                write_record_body(body.get<record>());
                break;
            default:
                out_.literal(R"(,"$value":)");
                write(body);
        }
        out_.byte('}');
    }

    const message& m_;
    output out_;
    std::vector<std::uint32_t>& ids_;  // objects index -> canonical number, or unseen
    rendered_types& types_;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> dangling_;
    std::uint32_t next_id_ = 0;
    const decoder_limits& limits_;
    std::uint64_t lazy_budget_ = limits_.max_frame_bytes;  // raw bytes this message may expand
    std::error_code error_;
};

}  // namespace

std::error_code append_json(const message& m, std::string& out, const decoder_limits& limits) {
    // Reused across calls: a message costs no allocation here beyond the output's growth.
    thread_local std::vector<std::uint32_t> ids;
    thread_local rendered_types types;
    return json_writer(m, out, ids, types, limits).run();
}

void append_json_string(std::string& out, std::string_view s) {
    output o(out);
    put_string(s, o);
}

std::string to_json(const message& m) {
    std::string out;
    append_json(m, out);
    return out;
}

}  // namespace objwire
