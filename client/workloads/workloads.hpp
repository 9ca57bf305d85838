// Deterministic generators of the four benchmark workloads of docs/WORKLOADS.md (person,
// events, graph, blobs). For a given seed each yields the same messages, and the same JSON
// lines, on every machine and standard library (all randomness is splitmix64, as defined in
// docs/WORKLOADS.md), so bytes on the wire compare between runs and implementations.
//
// Definitions (message i = 0, 1, 2, ...; `rng` is one splitmix64 stream whose initial state is
// the seed, drawn in the order written; below(n) = next() mod n):
//   person  Person{firstName:"Heinz", surname:"Kabutz", age:i}; no draws.
//   events  exactly docs/WORKLOADS.md, "`events`, exactly".
//   graph   Trip{id:i, stops, back}: draws 100 points (x = below(10000), y = below(10000)),
//           then 1,000 stops, each below(100) naming one of them. Object 0 is the Trip (the
//           root is a reference to it, `back` refers to it), objects 1.. are the points in
//           order of first appearance in `stops` (points never drawn as a stop are left out),
//           so the message is in canonical() form.
//   blobs   Doc{id:i, title, body, thumb}: title "Document <i>: " and 2-5 words; body exactly
//           16,384 bytes of sentences over a 320-word vocabulary (drawn from the seed when the
//           workload is made, with a Zipf-like word choice and a usual successor per word, so
//           that zlib compresses it about 3.5x); thumb 4,096 bytes, the little-endian bytes of
//           512 draws of next().
//
// JSON lines are what a general writer produces for the message: records as
// {"$type":name,fields...}, shared objects as {"$id":N,...} on first sight and {"$ref":N}
// after, bytes as {"$bytes":"<base64, standard alphabet, padded>"}; `events` writes
// latency_ms with exactly 3 decimals, as its definition says.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "proto/value.hpp"

namespace objwire::workloads {

class workload {
  public:
    virtual ~workload() = default;

    virtual std::string_view name() const = 0;
    // Messages in the benchmark's standard run: person 1,500,000; events 1,000,000;
    // graph 10,000; blobs 20,000.
    virtual std::uint64_t default_count() const = 0;

    // Overwrites `out` with the next message, reusing its storage: when `out` holds the previous
    // message of the same workload, strings are assigned in place and vectors keep their buffers.
    virtual void next(message& out) = 0;
    // Appends the next message as one JSON line (no newline) to `out`. Advances the same
    // sequence as next(): call one or the other per message.
    virtual void next_json(std::string& out) = 0;
};

// The workload called `name`, or nullptr if there is none by that name.
std::unique_ptr<workload> make(std::string_view name, std::uint64_t seed = 42);

// {"person", "events", "graph", "blobs"}
std::span<const std::string_view> names();

// Each generator, in its own file (client/<name>_workload.cpp).
std::unique_ptr<workload> make_person_workload();
std::unique_ptr<workload> make_events_workload(std::uint64_t seed);
std::unique_ptr<workload> make_graph_workload(std::uint64_t seed);
std::unique_ptr<workload> make_blobs_workload(std::uint64_t seed);

}  // namespace objwire::workloads
