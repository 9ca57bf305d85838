// The JSON-lines sink (sink.kind = "jsonl"): every stored object becomes one line of a file in
// the data directory. Each connection's stream builds the lines of one read and appends them
// with one write; a mutex keeps the batches of concurrent connections whole. A batch counts
// as durable once written (no fsync): the journal is the sink for durability.
#pragma once

#include <filesystem>
#include <mutex>
#include <string>
#include <string_view>
#include <system_error>

#include "daemon/sink.hpp"

namespace objwire::daemon {

class jsonl_sink final : public sink {
  public:
    // Opens (creating) the file for appending; check error() before use.
    explicit jsonl_sink(std::filesystem::path file);
    ~jsonl_sink() override;
    jsonl_sink(const jsonl_sink&) = delete;
    jsonl_sink& operator=(const jsonl_sink&) = delete;

    std::error_code error() const { return open_error_; }
    // Appends lines (each ending in '\n') with as few write calls as the kernel allows.
    std::error_code write(std::string_view lines);
    const std::filesystem::path& path() const { return path_; }
    std::string describe() const override { return "jsonl:" + path_.string(); }
    std::unique_ptr<sink_stream> open_stream(const std::string& sender_id) override;

  private:
    std::filesystem::path path_;
    int fd_ = -1;
    std::error_code open_error_;
    std::mutex mutex_;
};

}  // namespace objwire::daemon
