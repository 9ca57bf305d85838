// Encode/decode cost and the reset-cadence curve, measured on the sans-I/O codec alone (no
// sockets): for each workload, ns/object to encode and to decode, bytes/object, and the
// receiver's table peak under each reset policy. Prints markdown tables for
// docs/PERFORMANCE.md.
//
//   table_bench [--objects-scale F]   (F < 1 shortens every run, for a quick look)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "client/workloads/workloads.hpp"
#include "proto/decoder.hpp"
#include "proto/encoder.hpp"

namespace {

using namespace objwire;
using clock_type = std::chrono::steady_clock;

struct measurement {
    double encode_ns = 0;
    double decode_ns = 0;
    double bytes_per_object = 0;
    std::uint64_t receiver_peak = 0;
    std::uint64_t resets = 0;
    std::uint64_t evictions = 0;
};

// Generates all messages first so generation is not timed, then times encode and decode
// separately over 64 KiB batches, as frames would carry them.
measurement measure(std::string_view workload, std::uint64_t n, const reset_policy& policy,
                    std::uint64_t budget) {
    auto w = workloads::make(workload);
    std::vector<message> messages(n);
    for (auto& m : messages)
        w->next(m);
    decoder_limits limits;
    limits.table_budget = budget;
    encoder_options opts;
    opts.peer = limits;
    opts.reset = policy;
    stream_encoder enc(opts);
    std::vector<byte_buffer> batches(1);
    std::uint64_t bytes = 0;
    const auto t0 = clock_type::now();
    for (const auto& m : messages) {
        if (batches.back().size() >= 64 * 1024) batches.emplace_back();
        if (enc.encode(m, batches.back())) std::abort();
    }
    const auto t1 = clock_type::now();
    stream_decoder dec(limits);
    std::uint64_t decoded = 0;
    message out;
    for (const auto& b : batches) {
        bytes += b.size();
        byte_reader in(b.span());
        dec.begin_frame();
        bool got = false;
        while (!in.at_end()) {
            if (dec.next(in, out, got)) std::abort();
            decoded += got;
        }
    }
    const auto t2 = clock_type::now();
    if (decoded != n) std::abort();
    measurement r;
    r.encode_ns =
        std::chrono::duration<double, std::nano>(t1 - t0).count() / static_cast<double>(n);
    r.decode_ns =
        std::chrono::duration<double, std::nano>(t2 - t1).count() / static_cast<double>(n);
    r.bytes_per_object = static_cast<double>(bytes) / static_cast<double>(n);
    r.receiver_peak = dec.table().peak_bytes;
    r.resets = enc.table().resets;
    r.evictions = enc.table().evictions;
    return r;
}

std::uint64_t scaled(std::uint64_t n, double scale) {
    return std::max<std::uint64_t>(10, static_cast<std::uint64_t>(static_cast<double>(n) * scale));
}

}  // namespace

int main(int argc, char** argv) {
    double scale = 1.0;
    for (int i = 1; i + 1 < argc; ++i)
        if (std::strcmp(argv[i], "--objects-scale") == 0) scale = std::atof(argv[i + 1]);

    std::printf("### Encode and decode, one thread, default policy (adaptive, 4 MiB budget)\n\n");
    std::printf(
        "| workload | objects | encode ns/object | decode ns/object | encode+decode objects/s | "
        "bytes/object |\n");
    std::printf("|---|---:|---:|---:|---:|---:|\n");
    struct run {
        const char* name;
        std::uint64_t n;
    };
    const run runs[] = {
        {"person", 1'500'000}, {"events", 1'000'000}, {"graph", 10'000}, {"blobs", 20'000}};
    for (const auto& r : runs) {
        const std::uint64_t n = scaled(r.n, scale);
        auto m = measure(r.name, n, {}, 4u << 20);
        std::printf("| %s | %llu | %.1f | %.1f | %.2f M | %.2f |\n", r.name,
                    static_cast<unsigned long long>(n), m.encode_ns, m.decode_ns,
                    1e3 / (m.encode_ns + m.decode_ns), m.bytes_per_object);
    }

    std::printf("\n### Reset cadence: bytes/object and receiver table peak (4 MiB budget)\n\n");
    std::printf(
        "| workload | policy | bytes/object | receiver table peak | resets | evictions |\n");
    std::printf("|---|---|---:|---:|---:|---:|\n");
    const char* policies[] = {"every:1",     "every:10", "every:100", "every:1000",
                              "every:10000", "never",    "adaptive"};
    for (const char* w : {"person", "events"}) {
        const std::uint64_t n =
            scaled(std::string_view(w) == "person" ? 1'500'000 : 1'000'000, scale);
        for (const char* p : policies) {
            auto m = measure(w, n, *reset_policy::parse(p), 4u << 20);
            std::printf("| %s | %s | %.2f | %llu | %llu | %llu |\n", w, p, m.bytes_per_object,
                        static_cast<unsigned long long>(m.receiver_peak),
                        static_cast<unsigned long long>(m.resets),
                        static_cast<unsigned long long>(m.evictions));
        }
    }
    return 0;
}
