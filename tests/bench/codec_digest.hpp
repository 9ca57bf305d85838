// The encoder's output digest per workload and setting (tests/bench/codec_digest.cpp prints
// them; tests/unit/proto/encoder_fast_paths_test.cpp pins some): built from two versions of the
// encoder, equal digests show a change altered no output byte. Each line: workload, setting,
// bytes, FNV-1a 64 of the bytes, the table's hits/misses/inserts/evictions (its own account
// must not change either) and messages refused.
#pragma once

#include <cstdio>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "client/workloads/workloads.hpp"
#include "proto/columns.hpp"
#include "proto/encoder.hpp"

namespace objwire::codec_digest {

struct digest {
    std::uint64_t h = 0xcbf29ce484222325ull;
    std::uint64_t bytes = 0;
    void add(std::span<const std::uint8_t> b) {
        for (std::uint8_t c : b)
            h = (h ^ c) * 0x100000001b3ull;
        bytes += b.size();
    }
};

struct setting {
    const char* name;
    std::function<void(encoder_options&)> apply;
    bool columns = false;
};

// Strings the workloads never carry: every length 0..40, lowercase and uppercase hex, text,
// multi-byte UTF-8 and (rarely) invalid UTF-8, some recurring; integers near and far from the
// last; nested lists and maps. Deterministic (splitmix64).
class synthetic {
  public:
    void next(message& m) {
        static const record_type_ptr type = make_record_type("Syn", {"a", "b", "c", "d", "e"});
        record r;
        r.type = type;
        r.fields.emplace_back(text(below(4) == 0 ? 41 : below(12)));
        r.fields.emplace_back(text(below(41)));
        r.fields.emplace_back(static_cast<std::int64_t>(below(3) == 0 ? next_u64() : below(64)));
        list l;
        for (std::uint64_t i = below(4); i > 0; --i)
            l.emplace_back(text(below(41)));
        r.fields.emplace_back(std::move(l));
        map mp;
        std::string key = text(below(20));  // drawn before the value, whatever the compiler
        mp.emplace_back(std::move(key), value{text(below(41))});
        r.fields.emplace_back(std::move(mp));
        m = message{};
        m.root = value{std::move(r)};
    }

  private:
    std::uint64_t next_u64() {
        std::uint64_t z = (s_ += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    std::uint64_t below(std::uint64_t n) { return next_u64() % n; }
    // len 41: one of a few recurring strings.
    std::string text(std::uint64_t len) {
        if (len == 41) return "recurring-" + std::to_string(below(8));
        std::string s;
        const std::uint64_t style = below(6);
        static constexpr std::string_view hex = "0123456789abcdef";
        static constexpr std::string_view upper = "0123456789ABCDEF";
        while (s.size() < len) {
            switch (style) {
                case 0:
                case 1:
                    s.push_back(hex[below(16)]);
                    break;
                case 2:
                    s.push_back(upper[below(16)]);
                    break;
                case 3:
                    s.push_back(static_cast<char>(' ' + below(95)));
                    break;
                case 4:
                    s += below(3) == 0 ? "\xc3\xa9" : "x";
                    break;
                default:
                    s.push_back(below(500) == 0 ? '\xff' : static_cast<char>('a' + below(26)));
            }
        }
        if (style == 0 && below(2) == 0 && !s.empty()) s[below(s.size())] = 'g';
        return s;
    }
    std::uint64_t s_ = 7;
};

inline std::string run(std::string_view workload, std::uint64_t n, const setting& s) {
    encoder_options options;
    s.apply(options);
    stream_encoder enc{options};
    auto w = workload == "synthetic" ? nullptr : workloads::make(workload);
    synthetic syn;
    message m;
    byte_buffer out;
    column_sections sections;
    digest d;
    std::uint64_t failures = 0;
    for (std::uint64_t i = 0; i < n; ++i) {
        if (w)
            w->next(m);
        else
            syn.next(m);
        const std::error_code ec = s.columns ? enc.encode(m, out, sections) : enc.encode(m, out);
        if (ec) ++failures;
        if (out.size() >= 64 * 1024 || i + 1 == n) {
            d.add(out.span());
            out.clear();
            for (auto& f : sections.fields()) {
                d.add(f.span());
                f.clear();
            }
        }
    }
    const table_stats& t = enc.table();
    char line[256];
    std::snprintf(
        line, sizeof line,
        "%-7s %-16s %10llu %016llx hits %llu misses %llu inserts %llu evictions %llu "
        "failures %llu\n",
        std::string(workload).c_str(), s.name, static_cast<unsigned long long>(d.bytes),
        static_cast<unsigned long long>(d.h), static_cast<unsigned long long>(t.hits),
        static_cast<unsigned long long>(t.misses), static_cast<unsigned long long>(t.inserts),
        static_cast<unsigned long long>(t.evictions), static_cast<unsigned long long>(failures));
    return line;
}

inline std::vector<setting> settings() {
    return {
        {"default", [](encoder_options&) {}},
        {"checked", [](encoder_options& o) { o.strings_checked = true; }},
        {"never", [](encoder_options& o) { o.reset.mode = reset_policy::kind::never; }},
        {"every:100",
         [](encoder_options& o) {
             o.reset.mode = reset_policy::kind::every_messages;
             o.reset.every = 100;
         }},
        {"small-table", [](encoder_options& o) { o.peer.table_budget = 2048; }},
        {"small-never",
         [](encoder_options& o) {
             o.peer.table_budget = 2048;
             o.reset.mode = reset_policy::kind::never;
         }},
        {"tiny-table", [](encoder_options& o) { o.peer.table_budget = 200; }},
        {"ref-allowance", [](encoder_options& o) { o.peer.max_reference_bytes = 12; }},
        {"max-indexed-8", [](encoder_options& o) { o.max_indexed_string = 8; }},
        {"short-strings", [](encoder_options& o) { o.peer.max_string_bytes = 12; }},
        {"transient",
         [](encoder_options& o) {
             o.transient["Event"] = {"host"};
             o.transient["Person"] = {"surname"};
         }},
        {"columns", [](encoder_options&) {}, true},
    };
}

// The digest of `workload`'s first n messages (graph n / 100, blobs n / 50: their messages are
// large) under the setting called `name`.
inline std::string run(std::string_view workload, std::uint64_t n, std::string_view name) {
    const std::uint64_t count = workload == "blobs" ? n / 50 : workload == "graph" ? n / 100 : n;
    for (const auto& s : settings())
        if (s.name == name) return run(workload, count, s);
    return "no setting " + std::string(name);
}

}  // namespace objwire::codec_digest
