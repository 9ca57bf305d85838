// Counts what one phase of the codec costs per object, for the CI guard
// (tests/bench/instruction_guard.sh): generates N messages of a workload, encodes them into
// 64 KiB batches and decodes them, and has callgrind count only the phase asked for. Two more
// phases count the client's own work per object: `generate` (the workload's next() into one
// reused message, as `objwire bench` does) and `read` (the JSON-lines reader over the
// workload's JSON lines, as `objwire send` does). `check` counts what decode does for a frame
// the daemon stores whole: stream_decoder::check_payload over the same batches, building no
// message. Run alone it just checks the round trip; under
//   valgrind --tool=callgrind --instr-atstart=no codec_instructions person 200000 encode
// the callgrind output holds the instructions of that phase only.
#include <valgrind/callgrind.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "client/jsonl/jsonl_reader.hpp"
#include "client/workloads/workloads.hpp"
#include "proto/decoder.hpp"
#include "proto/encoder.hpp"

namespace {

using namespace objwire;

std::vector<message> generate(std::string_view workload, std::uint64_t n) {
    auto w = workloads::make(workload);
    std::vector<message> messages(n);
    for (auto& m : messages)
        w->next(m);
    return messages;
}

std::vector<byte_buffer> encode_all(const std::vector<message>& messages, bool count) {
    stream_encoder enc{encoder_options{}};
    std::vector<byte_buffer> batches(1);
    if (count) CALLGRIND_START_INSTRUMENTATION;
    for (const auto& m : messages) {
        if (batches.back().size() >= 64 * 1024) batches.emplace_back();
        if (enc.encode(m, batches.back())) std::abort();
    }
    if (count) CALLGRIND_STOP_INSTRUMENTATION;
    return batches;
}

std::uint64_t decode_all(const std::vector<byte_buffer>& batches, bool count) {
    stream_decoder dec{decoder_limits{}};
    std::uint64_t decoded = 0;
    message out;
    if (count) CALLGRIND_START_INSTRUMENTATION;
    for (const auto& b : batches) {
        byte_reader in(b.span());
        dec.begin_frame();
        bool got = false;
        while (!in.at_end()) {
            if (dec.next(in, out, got)) std::abort();
            decoded += got;
        }
    }
    if (count) CALLGRIND_STOP_INSTRUMENTATION;
    return decoded;
}

// The batches checked as the daemon checks a fresh frame it stores whole.
std::uint64_t check_all(const std::vector<byte_buffer>& batches, bool count) {
    stream_decoder dec{decoder_limits{}};
    std::uint64_t checked = 0;
    if (count) CALLGRIND_START_INSTRUMENTATION;
    for (const auto& b : batches) {
        std::uint64_t n = 0;
        if (dec.check_payload(b.span(), n)) std::abort();
        checked += n;
    }
    if (count) CALLGRIND_STOP_INSTRUMENTATION;
    return checked;
}

// The workload's next() n times into one message, counted.
void generate_counted(std::string_view workload, std::uint64_t n) {
    auto w = workloads::make(workload);
    message m;
    CALLGRIND_START_INSTRUMENTATION;
    for (std::uint64_t i = 0; i < n; ++i)
        w->next(m);
    CALLGRIND_STOP_INSTRUMENTATION;
}

// The workload's n JSON lines through jsonl_reader, counted; returns the messages read.
std::uint64_t read_counted(std::string_view workload, std::uint64_t n) {
    auto w = workloads::make(workload);
    std::string text;
    for (std::uint64_t i = 0; i < n; ++i) {
        w->next_json(text);
        text += '\n';
    }
    jsonl_reader reader(text);
    message m;
    std::uint64_t read = 0;
    CALLGRIND_START_INSTRUMENTATION;
    while (reader.next(m))
        ++read;
    CALLGRIND_STOP_INSTRUMENTATION;
    return reader.error() ? 0 : read;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 4) {
        std::fprintf(stderr,
                     "usage: codec_instructions WORKLOAD COUNT "
                     "encode|decode|check|generate|read\n");
        return 1;
    }
    const std::string_view phase = argv[3];
    if (phase != "encode" && phase != "decode" && phase != "check" && phase != "generate" &&
        phase != "read") {
        std::fprintf(stderr,
                     "codec_instructions: phase must be encode, decode, check, generate or "
                     "read\n");
        return 1;
    }
    const auto n = std::strtoull(argv[2], nullptr, 10);
    if (workloads::make(argv[1]) == nullptr) {
        std::fprintf(stderr, "codec_instructions: no workload %s\n", argv[1]);
        return 1;
    }
    if (phase == "generate") {
        generate_counted(argv[1], n);
        std::printf("%s %llu objects generated\n", argv[1], static_cast<unsigned long long>(n));
        return 0;
    }
    if (phase == "read") {
        const auto read = read_counted(argv[1], n);
        if (read != n) {
            std::fprintf(stderr, "codec_instructions: read %llu of %llu JSON lines\n",
                         static_cast<unsigned long long>(read), static_cast<unsigned long long>(n));
            return 1;
        }
        std::printf("%s %llu JSON lines read\n", argv[1], static_cast<unsigned long long>(n));
        return 0;
    }
    const auto messages = generate(argv[1], n);
    const auto batches = encode_all(messages, phase == "encode");
    std::uint64_t bytes = 0;
    for (const auto& b : batches)
        bytes += b.size();
    const auto decoded =
        phase == "check" ? check_all(batches, true) : decode_all(batches, phase == "decode");
    if (decoded != n) {
        std::fprintf(stderr, "codec_instructions: decoded %llu of %llu\n",
                     static_cast<unsigned long long>(decoded), static_cast<unsigned long long>(n));
        return 1;
    }
    std::printf("%s %llu objects, %.2f bytes/object\n", argv[1], static_cast<unsigned long long>(n),
                static_cast<double>(bytes) / static_cast<double>(n));
    return 0;
}
