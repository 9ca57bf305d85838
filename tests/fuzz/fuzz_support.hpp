// Helpers shared by the libFuzzer targets of tests/fuzz: cutting one fuzz input into several
// parts, and a check that stops the run with a message when an invariant breaks (a crash
// libFuzzer records, and a failing regression test in the replay build).
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string_view>
#include <vector>

namespace objwire::fuzz {

// Parts of one input are separated by these four bytes, so a target can feed several payloads
// in a row (a decoder with a live table, a receiver after its hello). tests/fuzz/make_seeds.cpp
// writes seeds the same way.
inline constexpr std::uint8_t separator[4] = {0xFE, 0xED, 0xFA, 0xCE};

inline std::vector<std::span<const std::uint8_t>> split(std::span<const std::uint8_t> in) {
    std::vector<std::span<const std::uint8_t>> parts;
    std::size_t start = 0;
    for (std::size_t i = 0; i + sizeof separator <= in.size();) {
        if (in[i] == separator[0] && in[i + 1] == separator[1] && in[i + 2] == separator[2] &&
            in[i + 3] == separator[3]) {
            parts.push_back(in.subspan(start, i - start));
            i += sizeof separator;
            start = i;
        } else {
            ++i;
        }
    }
    parts.push_back(in.subspan(start));
    return parts;
}

[[noreturn]] inline void invariant_failed(const char* what, const char* file, int line) {
    std::fprintf(stderr, "%s:%d: fuzz invariant failed: %s\n", file, line, what);
    std::abort();
}

inline std::string_view as_text(std::span<const std::uint8_t> s) {
    return {reinterpret_cast<const char*>(s.data()), s.size()};
}

}  // namespace objwire::fuzz

// Unlike assert(), also checked in Release builds.
#define FUZZ_CHECK(cond) \
    ((cond) ? static_cast<void>(0) : ::objwire::fuzz::invariant_failed(#cond, __FILE__, __LINE__))
