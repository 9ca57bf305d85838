#include "proto/input_digest.hpp"

#include <cstring>

namespace objwire {
namespace {

// A word-at-a-time multiply-xorshift hash: a few instructions per 8 bytes.
class hasher {
  public:
    void word(std::uint64_t w) {
        h_ = (h_ ^ w) * 0x9e3779b97f4a7c15ULL;
        h_ ^= h_ >> 29;
    }
    void text(const void* p, std::size_t n) {
        word(n);
        const auto* b = static_cast<const std::uint8_t*>(p);
        for (; n >= 8; n -= 8, b += 8) {
            std::uint64_t w;
            std::memcpy(&w, b, 8);
            word(w);
        }
        if (n) {
            std::uint64_t w = 0;
            std::memcpy(&w, b, n);
            word(w);
        }
    }
    void value(const objwire::value& v);
    std::uint64_t result() const { return h_ ^ (h_ >> 32); }

  private:
    std::uint64_t h_ = 0x243f6a8885a308d3ULL;
};

void hasher::value(const objwire::value& v) {
    word(static_cast<std::uint64_t>(v.type()) + 1);
    switch (v.type()) {
        case value::kind::null:
            return;
        case value::kind::boolean:
            return word(v.get<bool>() ? 1 : 0);
        case value::kind::integer:
            return word(static_cast<std::uint64_t>(v.get<std::int64_t>()));
        case value::kind::floating: {
            std::uint64_t bits;
            const double d = v.get<double>();
            std::memcpy(&bits, &d, 8);
            return word(bits);
        }
        case value::kind::string: {
            const auto& s = v.get<std::string>();
            return text(s.data(), s.size());
        }
        case value::kind::bytes: {
            const auto& b = v.get<bytes>().data;
            return text(b.data(), b.size());
        }
        case value::kind::list:
            word(v.get<list>().size());
            for (const auto& e : v.get<list>())
                value(e);
            return;
        case value::kind::map:
            word(v.get<map>().size());
            for (const auto& [k, e] : v.get<map>()) {
                text(k.data(), k.size());
                value(e);
            }
            return;
        case value::kind::record: {
            const auto& r = v.get<record>();
            if (r.type) {
                text(r.type->name.data(), r.type->name.size());
                for (const auto& f : r.type->fields)
                    text(f.data(), f.size());
            }
            word(r.fields.size());
            for (const auto& e : r.fields)
                value(e);
            return;
        }
        case value::kind::object_ref:
            return word(v.get<object_ref>().index);
        case value::kind::lazy: {
            const auto& l = v.get<lazy_value>();
            word(static_cast<std::uint64_t>(l.codec()));
            word(l.raw_size());
            const auto s = l.stored();
            return text(s.data(), s.size());
        }
    }
}

}  // namespace

std::uint64_t object_digest(const message& m) {
    hasher h;
    h.value(m.root);
    h.word(m.objects.size());
    for (const auto& o : m.objects)
        h.value(o);
    return h.result();
}

std::uint64_t chain_input_digest(std::uint64_t digest, std::uint64_t object) {
    if (digest == 0) return 0;  // after objects of no known digest, none is known
    hasher h;
    h.word(digest);
    h.word(object);
    const std::uint64_t d = h.result();
    return d != 0 ? d : 1;
}

}  // namespace objwire
