// The JSON-lines sink (sink.kind = "jsonl"): every stored object becomes one line of a file in
// the data directory, or of standard output. Each connection's stream builds the lines of one
// read and appends them with one write; a mutex keeps the batches of concurrent connections
// whole. A batch counts as durable once written (no fsync): the journal is the sink for
// durability. The file rotates by size (FILE -> FILE.1 -> FILE.2 ...), between batches.
#pragma once

#include <cstdint>
#include <filesystem>
#include <mutex>
#include <string>
#include <string_view>
#include <system_error>

#include "daemon/sinks/sink.hpp"

namespace objwire::daemon {

struct jsonl_options {
    std::filesystem::path file;      // "-": standard output
    std::uint64_t rotate_bytes = 0;  // 0: never rotate
    std::uint32_t keep = 5;          // rotated files kept
};

class jsonl_sink final : public sink {
  public:
    // Opens (creating) the file for appending; check error() before use.
    explicit jsonl_sink(jsonl_options options);
    ~jsonl_sink() override;
    jsonl_sink(const jsonl_sink&) = delete;
    jsonl_sink& operator=(const jsonl_sink&) = delete;

    std::error_code error() const { return open_error_; }
    // Appends lines (each ending in '\n') with as few write calls as the kernel allows,
    // rotating the file first if they would take it past rotate_bytes.
    std::error_code write(std::string_view lines);
    const std::filesystem::path& path() const { return options_.file; }
    std::string describe() const override;
    std::unique_ptr<sink_stream> open_stream(const std::string& sender_id) override;

  private:
    bool to_stdout() const { return options_.file == "-"; }
    std::error_code open_file();
    std::error_code rotate();

    jsonl_options options_;
    int fd_ = -1;
    std::uint64_t size_ = 0;  // bytes in the current file
    std::error_code open_error_;
    std::mutex mutex_;
};

}  // namespace objwire::daemon
