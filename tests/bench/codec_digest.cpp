// Prints a digest of the encoder's output for each workload under several encoder settings
// (codec_digest.hpp), so that a change meant to make the encoder faster can be shown to change
// no output byte: build this against the old and the new encoder and compare the lines.
//   codec_digest [COUNT]
#include "tests/bench/codec_digest.hpp"

#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
    using namespace objwire;
    const std::uint64_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 100000;
    std::vector<std::string_view> names(workloads::names().begin(), workloads::names().end());
    names.push_back("synthetic");
    for (const std::string_view w : names)
        for (const auto& s : codec_digest::settings())
            std::fputs(codec_digest::run(w, n, s.name).c_str(), stdout);
    return 0;
}
