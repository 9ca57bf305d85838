#include "client/cli/gen_command.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>
#include <string>

namespace objwire::client {
namespace {

struct gen_flags {
    std::string workload = "events";
    std::uint64_t count = 0;
    std::string output = "-";
};

int run_gen(const gen_flags& f) {
    auto w = make_workload(f.workload);
    if (!w) return exit_codes::usage;
    FILE* out = f.output == "-" ? stdout : std::fopen(f.output.c_str(), "wb");
    if (!out) {
        std::cerr << "objwire: cannot create '" << f.output << "': " << std::strerror(errno)
                  << "\n";
        return exit_codes::cannot_create;
    }
    const std::uint64_t n = f.count ? f.count : w->default_count();
    std::string buf;
    bool good = true;
    for (std::uint64_t i = 0; good && i < n; ++i) {
        w->next_json(buf);
        buf.push_back('\n');
        if (buf.size() >= (1 << 20)) {
            good = std::fwrite(buf.data(), 1, buf.size(), out) == buf.size();
            buf.clear();
        }
    }
    good = good && std::fwrite(buf.data(), 1, buf.size(), out) == buf.size();
    good = std::fflush(out) == 0 && good;
    if (out != stdout && std::fclose(out) != 0) good = false;
    if (good) return exit_codes::ok;
    std::cerr << "objwire: cannot write '" << f.output << "': " << std::strerror(errno) << "\n";
    return exit_codes::io_error;
}

}  // namespace

std::unique_ptr<workloads::workload> make_workload(const std::string& name) {
    auto w = workloads::make(name);
    if (!w)
        std::cerr << "objwire: unknown workload '" << name << "' (person, events, graph, blobs)\n";
    return w;
}

subcommand add_gen_command(CLI::App& app) {
    auto f = std::make_shared<gen_flags>();
    auto* gen = app.add_subcommand("gen", "write a benchmark workload as JSON lines");
    gen->add_option("--workload", f->workload, "person|events|graph|blobs")
        ->check(CLI::IsMember({"person", "events", "graph", "blobs"}));
    gen->add_option("-n,--count", f->count, "objects (default: the workload's size)");
    gen->add_option("-o,--output", f->output, "file to write, - for stdout (default)");
    gen->footer("Example:\n  objwire gen --workload events -n 100000 -o events.jsonl");
    return {gen, [f] { return run_gen(*f); }};
}

}  // namespace objwire::client
