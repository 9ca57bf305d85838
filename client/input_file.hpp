// Reading the CLI's input files: a whole file (or stdin for "-") in large blocks, never byte
// by byte, with a message that names the file when it cannot be read.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace objwire::client {

// Appends the file's bytes (stdin for "" or "-") to `out`. On failure returns false with
// "cannot open 'PATH': REASON" (or "cannot read ...") in `error`.
bool read_input(const std::string& path, std::string& out, std::string& error);

// Reads up to `max` more bytes into `out` from `fd`; returns bytes read, 0 at the end, -1 on
// error (errno set). Retries interrupted reads.
long read_some(int fd, std::string& out, std::size_t max);

// A whole input's bytes: a regular file is mapped (no copy, and no zero-filling of a growing
// buffer - reading a 190 MB file that way cost a quarter of `objwire send`'s CPU time);
// stdin and pipes are read into memory.
class input_text {
  public:
    input_text() = default;
    ~input_text();
    input_text(const input_text&) = delete;
    input_text& operator=(const input_text&) = delete;

    // Same errors as read_input().
    bool open(const std::string& path, std::string& error);
    std::string_view view() const;

  private:
    void* map_ = nullptr;
    std::size_t size_ = 0;
    std::string copy_;
};

// What the user calls an input: "<stdin>" for "-".
std::string input_name(const std::string& path);

}  // namespace objwire::client
