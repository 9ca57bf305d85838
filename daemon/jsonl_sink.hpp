// The JSON-lines sink: every stored object becomes one line of a file in the data directory.
// Sessions hand it whole batches (one write per batch, never per object); a mutex keeps the
// batches of concurrent sessions whole.
#pragma once

#include <filesystem>
#include <mutex>
#include <string>
#include <string_view>
#include <system_error>

namespace objwire::daemon {

class jsonl_sink {
public:
    // Opens (creating) the file for appending; check error() before use.
    explicit jsonl_sink(std::filesystem::path file);
    ~jsonl_sink();
    jsonl_sink(const jsonl_sink&) = delete;
    jsonl_sink& operator=(const jsonl_sink&) = delete;

    std::error_code error() const { return open_error_; }
    // Appends lines (each ending in '\n') with as few write calls as the kernel allows.
    std::error_code write(std::string_view lines);
    const std::filesystem::path& path() const { return path_; }
    std::string describe() const { return "jsonl:" + path_.string(); }

private:
    std::filesystem::path path_;
    int fd_ = -1;
    std::error_code open_error_;
    std::mutex mutex_;
};

}  // namespace objwire::daemon
