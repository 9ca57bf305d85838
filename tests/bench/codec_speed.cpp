// Measures each frame codec on this machine, one core: ratio, compress and decompress speed
// over 64 KiB frames (the default batch.max_bytes), and from those the link bandwidth below
// which compressing pays in the serial model (compress, send, decompress one after another):
// B < (1 - ratio) / (1/c + 1/d). Corpora, about 4 MiB each: `events` (encoded `events`
// messages: back-referenced strings, packed hex), `blobs` (encoded `blobs`: text and random
// bytes), `json` (`events` as JSON lines) and `random` (incompressible). docs/COMPRESSION.md quotes
// its output.
//   codec_speed [ROUNDS]   (default 5; each cell is the median over the rounds)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "client/workloads/workloads.hpp"
#include "proto/codec.hpp"
#include "proto/encoder.hpp"

namespace {

using namespace objwire;
using clock_type = std::chrono::steady_clock;

constexpr std::size_t corpus_bytes = 4 << 20;
constexpr std::size_t frame_bytes = 64 << 10;

std::vector<std::uint8_t> encoded(std::string_view workload) {
    auto w = workloads::make(workload);
    stream_encoder enc{encoder_options{}};
    byte_buffer out;
    message m;
    while (out.size() < corpus_bytes) {
        w->next(m);
        if (enc.encode(m, out)) std::abort();
    }
    return {out.span().begin(), out.span().end()};
}

std::vector<std::uint8_t> json_lines() {
    auto w = workloads::make("events");
    std::string text;
    while (text.size() < corpus_bytes) {
        w->next_json(text);
        text += '\n';
    }
    return {text.begin(), text.end()};
}

std::vector<std::uint8_t> random_bytes() {
    std::mt19937_64 rng(42);
    std::vector<std::uint8_t> out(corpus_bytes);
    for (auto& b : out)
        b = static_cast<std::uint8_t>(rng());
    return out;
}

struct cell {
    double ratio = 0, compress_mb_s = 0, decompress_mb_s = 0;
};

double seconds_since(clock_type::time_point t) {
    return std::chrono::duration<double>(clock_type::now() - t).count();
}

cell measure_once(codec_id codec, int level, const std::vector<std::uint8_t>& corpus) {
    frame_compressor comp;
    frame_decompressor decomp;
    std::vector<byte_buffer> frames;
    std::size_t packed = 0;
    const auto t0 = clock_type::now();
    for (std::size_t at = 0; at < corpus.size(); at += frame_bytes) {
        const std::size_t n = std::min(frame_bytes, corpus.size() - at);
        frames.emplace_back();
        if (comp.compress(codec, level, {corpus.data() + at, n}, frames.back())) std::abort();
        packed += frames.back().size();
    }
    const double c = seconds_since(t0);
    byte_buffer raw;
    const auto t1 = clock_type::now();
    std::size_t at = 0;
    for (const auto& f : frames) {
        const auto n = static_cast<std::uint32_t>(std::min(frame_bytes, corpus.size() - at));
        if (decomp.decompress(codec, f.span(), n, raw)) std::abort();
        at += n;
    }
    const double d = seconds_since(t1);
    const double mb = static_cast<double>(corpus.size()) / 1e6;
    return {static_cast<double>(packed) / static_cast<double>(corpus.size()), mb / c, mb / d};
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    const int rounds = argc > 1 ? std::max(1, std::atoi(argv[1])) : 5;
    const std::pair<const char*, std::vector<std::uint8_t>> corpora[] = {
        {"events", encoded("events")},
        {"blobs", encoded("blobs")},
        {"json", json_lines()},
        {"random", random_bytes()},
    };
    const std::pair<codec_id, int> codecs[] = {
        {codec_id::zlib, 1}, {codec_id::zlib, 6}, {codec_id::lz4, 1},
        {codec_id::zstd, 1}, {codec_id::zstd, 3},
    };
    std::printf(
        "| corpus | codec | ratio | compress MB/s | decompress MB/s | pays below Mbit/s |\n");
    std::printf("|---|---|---:|---:|---:|---:|\n");
    for (const auto& [name, corpus] : corpora) {
        for (const auto& [codec, level] : codecs) {
            if (!has_codec(built_codecs(), codec)) continue;
            std::vector<double> r, c, d;
            for (int i = 0; i < rounds; ++i) {
                const cell x = measure_once(codec, level, corpus);
                r.push_back(x.ratio);
                c.push_back(x.compress_mb_s);
                d.push_back(x.decompress_mb_s);
            }
            const double ratio = median(r), cs = median(c), ds = median(d);
            const double pays = ratio < 1 ? (1 - ratio) / (1 / cs + 1 / ds) * 8 : 0;
            std::printf("| %s | %s-%d | %.3f | %.0f | %.0f | %.0f |\n", name,
                        std::string(codec_name(codec)).c_str(), level, ratio, cs, ds, pays);
        }
    }
    return 0;
}
