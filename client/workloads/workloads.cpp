// The four benchmark workloads (see workloads.hpp for their definitions), one file each. Each
// generator draws one message into plain members, then either copies it into a `message`
// (next) or prints it as a JSON line (next_json); the hot paths format into stack buffers and
// reuse storage so they can feed benchmarks of millions of messages per second.
#include "client/workloads/workloads.hpp"

#include <array>

namespace objwire::workloads {
namespace {

constexpr std::array<std::string_view, 4> workload_names = {"person", "events", "graph", "blobs"};

}  // namespace

std::unique_ptr<workload> make(std::string_view name, std::uint64_t seed) {
    if (name == "person") return make_person_workload();
    if (name == "events") return make_events_workload(seed);
    if (name == "graph") return make_graph_workload(seed);
    if (name == "blobs") return make_blobs_workload(seed);
    return nullptr;
}

std::span<const std::string_view> names() {
    return workload_names;
}

}  // namespace objwire::workloads
