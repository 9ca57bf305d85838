// A main() for the fuzz targets in builds without libFuzzer (g++, or clang without
// OBJWIRE_FUZZ): runs LLVMFuzzerTestOneInput once on the empty input, then on every file named
// on the command line or found in a directory named there, in name order. This is how
// tests/fuzz/regressions/ and the generated seeds replay under ctest in every build - under
// ASan and UBSan in build-asan. Arguments starting with '-' are libFuzzer flags (ctest passes
// -runs=0 so the same command works with a libFuzzer binary) and are ignored.
//
// Like libFuzzer's -rss_limit_mb, an input that takes the process over 2 GiB of memory fails:
// a few KiB that make a parser allocate gigabytes is a bug even when it ends in a clean error.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include <sys/resource.h>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

constexpr long rss_limit_kib = 2048L * 1024;

int main(int argc, char** argv) {
    namespace fs = std::filesystem;
    std::vector<fs::path> inputs;
    for (int i = 1; i < argc; ++i) {
        if (argv[i][0] == '-') continue;
        const fs::path p(argv[i]);
        std::error_code ec;
        if (fs::is_directory(p, ec)) {
            for (const auto& e : fs::directory_iterator(p))
                if (e.is_regular_file() && e.path().filename().string().front() != '.')
                    inputs.push_back(e.path());
        } else if (fs::is_regular_file(p, ec)) {
            inputs.push_back(p);
        } else {
            std::fprintf(stderr, "replay: no such file or directory: %s\n", argv[i]);
            return 2;
        }
    }
    std::sort(inputs.begin(), inputs.end());
    LLVMFuzzerTestOneInput(nullptr, 0);
    for (const auto& p : inputs) {
        std::ifstream in(p, std::ios::binary);
        const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                                              std::istreambuf_iterator<char>());
        std::fprintf(stderr, "replay: %s (%zu bytes)\n", p.c_str(), bytes.size());
        LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
        rusage usage{};
        getrusage(RUSAGE_SELF, &usage);
        if (usage.ru_maxrss > rss_limit_kib) {
            std::fprintf(stderr, "replay: %s took the process to %ld MiB (limit %ld MiB)\n",
                         p.c_str(), usage.ru_maxrss / 1024, rss_limit_kib / 1024);
            return 1;
        }
    }
    std::printf("replay: %zu inputs ran clean\n", inputs.size());
    return 0;
}
