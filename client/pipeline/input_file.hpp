// Reading the CLI's input files (or stdin for "-") in large blocks, never byte by byte, with a
// message that names the file when it cannot be read: whole (input_text) or as a stream of
// line blocks (line_blocks).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

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

// Where a line of several files read as one stream is: the file and its line there. Written by
// the thread that reads, asked by the one that reports (a line already read), so locked.
class input_places {
  public:
    struct place {
        std::string name;  // as the user calls it (input_name)
        std::uint64_t line = 0;
    };
    // The file `name` starts at line `first_line` of the stream.
    void start(std::string name, std::uint64_t first_line);
    // Line `line` of the stream (1-based); a line past the last start is the last file's.
    place at(std::uint64_t line) const;

  private:
    mutable std::mutex mutex_;
    std::vector<std::pair<std::string, std::uint64_t>> starts_;  // name, first line
};

// An input read block by block, for `send`: a file or stdin (a pipe, a terminal, a growing
// log behind `tail -F`), handed out as runs of whole lines from one reused buffer, so memory
// stays at a block (plus the longest line, or limit_lines() plus a block) whatever the input's
// size. Reading may wait for more input; cancel(), from another thread, ends such a wait.
class line_blocks {
  public:
    // `block`: bytes asked for per read.
    explicit line_blocks(std::size_t block = std::size_t{1} << 20);
    ~line_blocks();
    line_blocks(const line_blocks&) = delete;
    line_blocks& operator=(const line_blocks&) = delete;

    // Same errors as read_input().
    bool open(const std::string& path, std::string& error);
    // Several files (or "-" for stdin) read one after the other as one stream of lines; each
    // is opened now, so a missing one is said before anything is read. A file's last line
    // ends at its end, newline or not (the next file's first line is a line of its own).
    bool open(const std::vector<std::string>& paths, std::string& error);
    // Which file a line of the stream is in, and its line there.
    input_places::place place(std::uint64_t line) const { return places_.at(line); }
    bool several_files() const { return next_files_.size() > 1; }
    // The next lines: whole lines, ending in a newline but at the input's end, followed by
    // `padding` readable bytes. Valid until the next call. Waits for input as needed; false at
    // the end of the input, after cancel(), or on a read error (then error() says so).
    bool next(std::string_view& lines, std::size_t padding);
    // Whether next() has input to work with now, without waiting.
    bool ready() const;
    // Lines longer than `bytes` (their newline not counted) are not held: once a line passes
    // it, next() returns an empty run with dropped_line() set, and the rest of that line is
    // read block by block and dropped up to its newline. 0: no limit. `why` names the limit
    // for people ("objwired's limits.max_string_bytes").
    void limit_lines(std::size_t bytes, std::string why) {
        max_line_ = bytes;
        line_limit_why_ = std::move(why);
    }
    std::size_t line_limit() const { return max_line_; }
    const std::string& line_limit_why() const { return line_limit_why_; }
    // Whether the last next() stands for a line over limit_lines() (its run is empty).
    bool dropped_line() const { return dropped_line_; }
    // Makes a next() that waits, or the next one, return false. Safe from any thread.
    void cancel();
    const std::string& error() const { return error_; }
    // Whether next() can wait for more input (a pipe, a terminal), not a regular file.
    bool can_wait() const { return !regular_; }
    // Bytes handed out by next() so far.
    std::uint64_t offset() const { return offset_; }

  private:
    // Drops the held bytes of a line over the limit, then input up to its newline; false at
    // the end of the input, on cancel() or on a read error.
    bool skip_to_newline();
    // Reads a block after the held bytes (waiting for input); false at the end of the input,
    // on cancel() or on a read error (error_ set).
    bool read_block(std::size_t padding);
    // Reads from `fd` (the file `path`) from now on.
    bool use(int fd, const std::string& path, std::string& error);
    // At the end of a file with more to come: on to the next one, its first line a line of its
    // own; false when there is none.
    bool next_file();

    std::string path_;
    int fd_ = -1;
    bool regular_ = false;  // a regular file: never waits, poll() is not needed
    int cancel_pipe_[2] = {-1, -1};
    std::vector<char> buf_;
    std::size_t block_;
    std::size_t given_ = 0;  // bytes at the buffer's start handed out by the last next()
    std::size_t held_ = 0;   // bytes in the buffer (given_ included)
    std::uint64_t offset_ = 0;
    bool eof_ = false;
    std::size_t max_line_ = 0;
    std::string line_limit_why_;
    bool dropped_line_ = false;
    bool skipping_ = false;  // inside a dropped line: its rest is dropped up to the newline
    std::atomic<bool> cancelled_{false};
    std::string error_;
    std::vector<std::pair<int, std::string>> next_files_;  // opened, read after this one
    std::size_t next_file_ = 0;
    std::uint64_t newlines_ = 0;  // in the bytes read so far: the lines before the held ones
    bool in_line_ = false;        // the last byte read was not a newline
    input_places places_;
};

// What the user calls an input: "<stdin>" for "-".
std::string input_name(const std::string& path);

}  // namespace objwire::client
