// Inputs for the compression tests: text that compresses, bytes that do not, and frames built
// by hand with any codec byte and raw_len a hostile peer might claim.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "proto/byte_buffer.hpp"
#include "proto/codec.hpp"
#include "proto/frame.hpp"

namespace objwire::test {

inline std::vector<std::uint8_t> text_bytes(std::size_t n, unsigned seed = 1) {
    static const char* words[] = {"frame ",  "object ",     "stream ",  "Heinz ",
                                  "Kabutz ", "level=info ", "host-17 ", "latency_ms=12 "};
    std::mt19937 rng(seed);
    std::vector<std::uint8_t> out;
    while (out.size() < n) {
        const std::string w = words[rng() % 8];
        out.insert(out.end(), w.begin(), w.end());
    }
    out.resize(n);
    return out;
}

inline std::vector<std::uint8_t> random_bytes(std::size_t n, unsigned seed = 2) {
    std::mt19937 rng(seed);
    std::vector<std::uint8_t> out(n);
    for (auto& b : out)
        b = static_cast<std::uint8_t>(rng());
    return out;
}

// Every codec this build has, none excluded.
inline std::vector<codec_id> compressing_codecs() {
    std::vector<codec_id> out;
    for (auto c : {codec_id::zlib, codec_id::zstd, codec_id::lz4})
        if (has_codec(built_codecs(), c)) out.push_back(c);
    return out;
}

inline std::vector<std::uint8_t> compressed(codec_id c, std::span<const std::uint8_t> raw,
                                            int level = 0) {
    frame_compressor z;
    byte_buffer out;
    if (z.compress(c, level, raw, out)) throw std::runtime_error("compress failed");
    return {out.data(), out.data() + out.size()};
}

// A data frame with this codec byte, raw_len and payload, checksum correct.
inline std::vector<std::uint8_t> data_frame(std::uint64_t seq, codec_id c, std::uint32_t raw_len,
                                            std::span<const std::uint8_t> payload) {
    byte_buffer f;
    f.resize(frame_header_size);
    f.append(payload);
    seal_frame(f.span(), frame_kind::data, seq, c, raw_len);
    return {f.data(), f.data() + f.size()};
}

}  // namespace objwire::test
