// Throughput of the JSON text form: jsonl_reader (JSON lines -> messages) and append_json
// (messages -> JSON lines) on the workloads of docs/WORKLOADS.md. Bytes processed are JSON text
// bytes.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "client/jsonl/jsonl_reader.hpp"
#include "client/workloads/workloads.hpp"
#include "proto/json_writer.hpp"

namespace {

// A sample of each workload: how many messages to use from it.
std::uint64_t sample_size(std::string_view name) {
    if (name == "graph") return 1'000;
    if (name == "blobs") return 2'000;
    return 100'000;
}

// The workload's JSON lines, as its generator writes them (the CLI's input files).
const std::string& lines_of(std::string_view name) {
    static std::vector<std::pair<std::string, std::string>> cache;
    for (const auto& [n, text] : cache)
        if (n == name) return text;
    auto w = objwire::workloads::make(name);
    std::string text;
    for (std::uint64_t i = 0, n = sample_size(name); i < n; ++i) {
        w->next_json(text);
        text.push_back('\n');
    }
    return cache.emplace_back(std::string(name), std::move(text)).second;
}

const std::vector<objwire::message>& messages_of(std::string_view name) {
    static std::vector<std::pair<std::string, std::vector<objwire::message>>> cache;
    for (const auto& [n, ms] : cache)
        if (n == name) return ms;
    auto w = objwire::workloads::make(name);
    std::vector<objwire::message> ms(sample_size(name));
    for (auto& m : ms)
        w->next(m);
    return cache.emplace_back(std::string(name), std::move(ms)).second;
}

void read_lines(benchmark::State& state, std::string_view name) {
    const std::string& text = lines_of(name);
    objwire::message m;
    std::uint64_t count = 0;
    for (auto _ : state) {
        objwire::jsonl_reader reader(text);
        while (reader.next(m))
            ++count;
        if (reader.error()) state.SkipWithError(reader.error()->message.c_str());
        benchmark::DoNotOptimize(m);
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * text.size()));
    state.SetItemsProcessed(static_cast<std::int64_t>(count));
}

void write_lines(benchmark::State& state, std::string_view name) {
    const auto& ms = messages_of(name);
    std::string out;
    std::size_t bytes = 0;
    for (auto _ : state) {
        out.clear();
        for (const auto& m : ms) {
            objwire::append_json(m, out);
            out.push_back('\n');
        }
        bytes += out.size();
        benchmark::DoNotOptimize(out.data());
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(bytes));
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * ms.size()));
}

BENCHMARK_CAPTURE(read_lines, events, "events")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(read_lines, person, "person")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(read_lines, graph, "graph")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(read_lines, blobs, "blobs")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(write_lines, events, "events")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(write_lines, person, "person")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(write_lines, graph, "graph")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(write_lines, blobs, "blobs")->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
