#include "proto/json_writer.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string_view>
#include <utility>
#include <vector>

namespace objwire {

namespace {

constexpr std::uint32_t unseen = std::numeric_limits<std::uint32_t>::max();

// 1 for bytes a JSON string must escape: '"', '\\' and the control characters below 0x20.
constexpr auto escape_table = [] {
    std::array<std::uint8_t, 256> t{};
    for (int c = 0; c < 0x20; ++c) t[c] = 1;
    t['"'] = 1;
    t['\\'] = 1;
    return t;
}();

// True if any of the 8 bytes in `w` needs escaping. Exact as a yes/no answer (the classic
// "has a zero byte" and "has a byte below n" tricks); the caller then finds the byte.
inline bool word_needs_escape(std::uint64_t w) {
    constexpr std::uint64_t ones = 0x0101010101010101ULL;
    constexpr std::uint64_t highs = 0x8080808080808080ULL;
    auto has_zero = [](std::uint64_t x) { return (x - ones) & ~x & highs; };
    std::uint64_t below_space = (w - ones * 0x20) & ~w & highs;
    return (below_space | has_zero(w ^ (ones * '"')) | has_zero(w ^ (ones * '\\'))) != 0;
}

void append_escape(std::uint8_t c, std::string& out) {
    static constexpr char hex[] = "0123456789abcdef";
    switch (c) {
        case '"': out.append("\\\"", 2); break;
        case '\\': out.append("\\\\", 2); break;
        case '\n': out.append("\\n", 2); break;
        case '\r': out.append("\\r", 2); break;
        case '\t': out.append("\\t", 2); break;
        default: {
            const char u[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
            out.append(u, 6);
        }
    }
}

void append_escaped(std::string_view s, std::string& out) {
    const char* p = s.data();
    const char* end = p + s.size();
    const char* run = p;  // start of the bytes not yet copied
    while (p < end) {
        // Most strings have nothing to escape: check 8 bytes at a time, copy in one go.
        if (end - p >= 8) {
            std::uint64_t w;
            std::memcpy(&w, p, 8);
            if (!word_needs_escape(w)) {
                p += 8;
                continue;
            }
        }
        for (const char* stop = end - p >= 8 ? p + 8 : end; p < stop; ++p) {
            auto c = static_cast<std::uint8_t>(*p);
            if (!escape_table[c]) continue;
            out.append(run, p);
            append_escape(c, out);
            run = p + 1;
        }
    }
    out.append(run, end);
}

void append_string(std::string_view s, std::string& out) {
    out.push_back('"');
    append_escaped(s, out);
    out.push_back('"');
}

// A map key or record field name: a leading '$' is doubled so it cannot read as a marker.
void append_key(std::string_view k, std::string& out) {
    out.push_back('"');
    if (!k.empty() && k.front() == '$') out.push_back('$');
    append_escaped(k, out);
    out.append("\":", 2);
}

void append_int(std::int64_t i, std::string& out) {
    char buf[24];
    auto r = std::to_chars(buf, buf + sizeof buf, i);
    out.append(buf, r.ptr);
}

void append_double(double d, std::string& out) {
    if (std::isnan(d)) {
        out.append(R"({"$float":"nan"})");
        return;
    }
    if (std::isinf(d)) {
        out.append(d > 0 ? R"({"$float":"inf"})" : R"({"$float":"-inf"})");
        return;
    }
    char buf[32];
    auto r = std::to_chars(buf, buf + sizeof buf, d);
    out.append(buf, r.ptr);
    // Shortest form may be integral ("1", "-0", "1234567890123456800000"); keep it a double.
    if (std::memchr(buf, '.', r.ptr - buf) == nullptr &&
        std::memchr(buf, 'e', r.ptr - buf) == nullptr)
        out.append(".0", 2);
}

void append_base64(const std::vector<std::uint8_t>& data, std::string& out) {
    static constexpr char alphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::size_t n = data.size();
    std::size_t at = out.size();
    out.resize(at + (n + 2) / 3 * 4);
    char* o = out.data() + at;
    const std::uint8_t* in = data.data();
    std::size_t i = 0;
    for (; i + 3 <= n; i += 3) {
        std::uint32_t v = (std::uint32_t{in[i]} << 16) | (std::uint32_t{in[i + 1]} << 8) | in[i + 2];
        *o++ = alphabet[v >> 18];
        *o++ = alphabet[(v >> 12) & 63];
        *o++ = alphabet[(v >> 6) & 63];
        *o++ = alphabet[v & 63];
    }
    if (n - i == 1) {
        std::uint32_t v = std::uint32_t{in[i]} << 16;
        *o++ = alphabet[v >> 18];
        *o++ = alphabet[(v >> 12) & 63];
        *o++ = '=';
        *o++ = '=';
    } else if (n - i == 2) {
        std::uint32_t v = (std::uint32_t{in[i]} << 16) | (std::uint32_t{in[i + 1]} << 8);
        *o++ = alphabet[v >> 18];
        *o++ = alphabet[(v >> 12) & 63];
        *o++ = alphabet[(v >> 6) & 63];
        *o++ = '=';
    }
}

// Writes one message depth first, numbering shared objects in the order canonical() would.
class json_writer {
public:
    json_writer(const message& m, std::string& out, std::vector<std::uint32_t>& ids)
        : m_(m), out_(out), ids_(ids) {
        ids_.assign(m.objects.size(), unseen);
    }

    void run() { write(m_.root); }

private:
    void write(const value& v) {
        switch (v.type()) {
            case value::kind::null: out_.append("null", 4); break;
            case value::kind::boolean:
                v.get<bool>() ? out_.append("true", 4) : out_.append("false", 5);
                break;
            case value::kind::integer: append_int(v.get<std::int64_t>(), out_); break;
            case value::kind::floating: append_double(v.get<double>(), out_); break;
            case value::kind::string: append_string(v.get<std::string>(), out_); break;
            case value::kind::bytes:
                out_.append(R"({"$bytes":")");
                append_base64(v.get<bytes>().data, out_);
                out_.append("\"}", 2);
                break;
            case value::kind::list: {
                out_.push_back('[');
                bool first = true;
                for (const auto& e : v.get<list>()) {
                    if (!first) out_.push_back(',');
                    first = false;
                    write(e);
                }
                out_.push_back(']');
                break;
            }
            case value::kind::map:
                out_.push_back('{');
                write_map_entries(v.get<map>(), false);
                out_.push_back('}');
                break;
            case value::kind::record:
                out_.push_back('{');
                write_record_body(v.get<record>());
                out_.push_back('}');
                break;
            case value::kind::object_ref: write_ref(v.get<object_ref>().index); break;
        }
    }

    void write_map_entries(const map& m, bool after_first) {
        for (const auto& [k, e] : m) {
            if (after_first) out_.push_back(',');
            after_first = true;
            append_key(k, out_);
            write(e);
        }
    }

    void write_record_body(const record& r) {
        out_.append(R"("$type":)");
        if (!r.type) {
            out_.append("\"\"", 2);
            return;
        }
        append_string(r.type->name, out_);
        const auto& names = r.type->fields;
        for (std::size_t i = 0; i < names.size(); ++i) {
            out_.push_back(',');
            append_key(names[i], out_);
            if (i < r.fields.size())
                write(r.fields[i]);
            else
                out_.append("null", 4);
        }
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
            out_.append(R"({"$ref":)");
            append_int(*id, out_);
            out_.push_back('}');
            return;
        }
        *id = next_id_++;
        out_.append(R"({"$id":)");
        append_int(*id, out_);
        static const value null_value;
        const value& body = index < m_.objects.size() ? m_.objects[index] : null_value;
        switch (body.type()) {
            case value::kind::map: write_map_entries(body.get<map>(), true); break;
            case value::kind::record:
                out_.push_back(',');
                write_record_body(body.get<record>());
                break;
            default:
                out_.append(R"(,"$value":)");
                write(body);
        }
        out_.push_back('}');
    }

    const message& m_;
    std::string& out_;
    std::vector<std::uint32_t>& ids_;  // objects index -> canonical number, or unseen
    std::vector<std::pair<std::uint32_t, std::uint32_t>> dangling_;
    std::uint32_t next_id_ = 0;
};

}  // namespace

void append_json(const message& m, std::string& out) {
    // Reused across calls so a message with shared objects costs no allocation here.
    thread_local std::vector<std::uint32_t> ids;
    json_writer(m, out, ids).run();
}

std::string to_json(const message& m) {
    std::string out;
    append_json(m, out);
    return out;
}

}  // namespace objwire
