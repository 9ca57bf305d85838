#include "client/cli/codec_command.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "client/jsonl/jsonl_reader.hpp"
#include "client/pipeline/input_file.hpp"
#include "client/pipeline/message_pipeline.hpp"
#include "proto/journal_block.hpp"
#include "proto/journal_walk.hpp"
#include "proto/json_writer.hpp"

namespace objwire::client {
namespace {

// Blocks of about this much payload: big enough that headers cost nothing, small enough that
// a reader verifies and decodes one at a time in little memory (the daemon's are one frame).
constexpr std::size_t block_target_bytes = 256 * 1024;
constexpr std::size_t write_chunk = 1 << 20;
constexpr const char* not_blocks_hint =
    " - decode reads files written by `objwire encode` and objwired's journal segments "
    "(journal-*.owj)";

// An output file or stdout ("-"), written in large chunks; errors name the file.
class output_file {
  public:
    bool open(const std::string& path) {
        path_ = path;
        file_ = path == "-" ? stdout : std::fopen(path.c_str(), "wb");
        if (!file_)
            std::cerr << "objwire: cannot create '" << path << "': " << std::strerror(errno)
                      << "\n";
        return file_ != nullptr;
    }
    bool write(const void* data, std::size_t n) {
        if (n == 0 || std::fwrite(data, 1, n, file_) == n) return true;
        std::cerr << "objwire: cannot write '" << path_ << "': " << std::strerror(errno) << "\n";
        return false;
    }
    bool close() {
        if (!file_) return true;
        const bool good = std::fflush(file_) == 0 && (file_ == stdout || std::fclose(file_) == 0);
        file_ = nullptr;
        if (!good)
            std::cerr << "objwire: cannot write '" << path_ << "': " << std::strerror(errno)
                      << "\n";
        return good;
    }
    ~output_file() { close(); }

  private:
    std::string path_;
    std::FILE* file_ = nullptr;
};

std::uint64_t now_ms() {
    return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                          std::chrono::system_clock::now().time_since_epoch())
                                          .count());
}

struct encode_flags {
    std::string input = "-";
    std::string output;
    std::string on_error = "stop";
};

// Blocks are numbered as one sender's frames (1, 2, ...) and offsets count messages from 0, as
// in a journal that holds only this file.
class block_file_writer {
  public:
    explicit block_file_writer(output_file& out) : out_(out), writer_("objwire encode") {}
    std::error_code add(const message& m) { return writer_.add(m); }
    bool full() const { return writer_.bytes() >= block_target_bytes; }
    bool flush() {
        if (writer_.empty()) return true;
        ++blocks_;
        const auto block = writer_.finish(blocks_, blocks_, now_ms());
        seal_journal_block(block, offset_);
        offset_ += writer_.messages();
        const bool good = out_.write(block.data(), block.size());
        writer_.clear();
        return good;
    }
    std::uint64_t messages() const { return offset_; }
    std::uint64_t blocks() const { return blocks_; }

  private:
    output_file& out_;
    journal_block_writer writer_;
    std::uint64_t offset_ = 0;
    std::uint64_t blocks_ = 0;
};

int run_encode(const encode_flags& f) {
    input_text text;
    std::string error;
    if (!text.open(f.input, error)) {
        std::cerr << "objwire: " << error << "\n";
        return exit_codes::no_input;
    }
    output_file out;
    if (!out.open(f.output)) return exit_codes::cannot_create;
    block_file_writer blocks(out);
    const std::string name = input_name(f.input);
    std::uint64_t skipped = 0;
    const bool stop_at_error = f.on_error == "stop";
    int failed = exit_codes::ok;  // set when the run stops early: the exit code
    auto skip = [&] {
        ++skipped;
        if (stop_at_error) failed = exit_codes::bad_input;
        return !stop_at_error;
    };
    // The reader parses on a thread of its own (client/pipeline/message_pipeline.hpp); messages and
    // bad lines arrive here in input order.
    auto encode_one = [&](const message& m, std::size_t line) {
        if (auto ec = blocks.add(m)) {
            std::cerr << "objwire: " << name << ":" << line << ": cannot encode: " << ec.message()
                      << "\n";
            if (!skip()) return false;
        }
        if (blocks.full() && !blocks.flush()) {
            failed = exit_codes::usage;
            return false;
        }
        return true;
    };
    auto report = [&](const json_error& e) {
        std::cerr << "objwire: " << name << ":" << e.line << ":" << e.column << ": " << e.message
                  << "\n";
        return skip();
    };
    read_jsonl_pipelined(text.view(), stop_at_error, encode_one, report);
    if (failed != exit_codes::ok) return failed;
    if (!blocks.flush() || !out.close()) return exit_codes::io_error;
    std::cerr << "objwire: encoded " << counted(blocks.messages(), "object") << " in "
              << counted(blocks.blocks(), "block") << " to " << f.output << "\n";
    if (skipped) {
        std::cerr << "objwire: skipped " << counted(skipped, "bad line") << "\n";
        return exit_codes::bad_input;
    }
    return exit_codes::ok;
}

struct fd_closer {
    int fd;
    ~fd_closer() {
        if (fd >= 0) ::close(fd);
    }
};

struct decode_flags {
    std::vector<std::string> inputs;
    std::string output = "-";
};

// Decodes one file of blocks into JSON lines, reading it in chunks so a segment of any size
// takes little memory. Errors name the file and the byte position of the bad block.
int decode_file(const std::string& path, output_file& out, std::uint64_t& objects) {
    const bool is_stdin = path == "-";
    const int fd = is_stdin ? 0 : ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    const std::string name = input_name(path);
    if (fd < 0) {
        std::cerr << "objwire: cannot open '" << path << "': " << std::strerror(errno) << "\n";
        return exit_codes::no_input;
    }
    const fd_closer closer{is_stdin ? -1 : fd};
    std::string buf;
    std::size_t start = 0;       // first unparsed byte of buf
    std::uint64_t position = 0;  // file position of buf[0]
    std::string json;
    bool eof = false;
    for (;;) {
        const auto view = std::span(reinterpret_cast<const std::uint8_t*>(buf.data()) + start,
                                    buf.size() - start);
        // Offsets unchecked: encode's output and segments alike, whatever their numbering.
        const auto s = journal_walker().next(view, eof);
        const auto where = [&] {
            return "objwire: " + name + ": at byte " + std::to_string(position + start) + ": ";
        };
        switch (s.what) {
            case journal_walk::block: {
                auto ec = decode_journal_block(s.block, [&](message&& m) {
                    append_json(m, json);
                    json.push_back('\n');
                    ++objects;
                });
                if (ec) {
                    std::cerr << where() << "cannot decode block: " << ec.message() << "\n";
                    return exit_codes::bad_input;
                }
                start += s.size;
                if (json.size() >= write_chunk) {
                    if (!out.write(json.data(), json.size())) return exit_codes::io_error;
                    json.clear();
                }
                continue;
            }
            case journal_walk::damaged:
            case journal_walk::offset_jump:
                std::cerr << where() << s.error.message()
                          << (s.error == journal_errc::bad_magic ? not_blocks_hint : "") << "\n";
                return exit_codes::bad_input;
            case journal_walk::end:
                return out.write(json.data(), json.size()) ? exit_codes::ok : exit_codes::io_error;
            case journal_walk::torn_tail:
                // Fewer bytes than a header that do not start as a block does are not a block
                // cut short: the file is something else.
                if (!journal_block_prefix_ok(view)) {
                    std::cerr << where() << "not a journal block (bad magic)" << not_blocks_hint
                              << "\n";
                    return exit_codes::bad_input;
                }
                std::cerr << where() << "the last " << s.size
                          << " bytes are not a whole block (a torn or unfinished append); the "
                             "objects before them were decoded\n";
                if (!out.write(json.data(), json.size())) return exit_codes::io_error;
                return exit_codes::bad_input;
            case journal_walk::need_more:
                break;
        }
        buf.erase(0, start);
        position += start;
        start = 0;
        const long n =
            read_some(fd, buf, std::max(write_chunk, s.size - std::min(s.size, buf.size())));
        if (n < 0) {
            std::cerr << "objwire: cannot read '" << name << "': " << std::strerror(errno) << "\n";
            return exit_codes::no_input;
        }
        eof = n == 0;
    }
}

int run_decode(const decode_flags& f) {
    output_file out;
    if (!out.open(f.output)) return exit_codes::cannot_create;
    std::uint64_t objects = 0;
    for (const auto& path : f.inputs) {
        if (int rc = decode_file(path, out, objects)) return rc;
    }
    if (!out.close()) return exit_codes::io_error;
    if (f.output != "-")
        std::cerr << "objwire: decoded " << counted(objects, "object") << " to " << f.output
                  << "\n";
    return exit_codes::ok;
}

}  // namespace

subcommand add_encode_command(CLI::App& app) {
    auto flags = std::make_shared<encode_flags>();
    auto* cmd = app.add_subcommand(
        "encode", "JSON lines to objwire's binary format (journal blocks), offline");
    cmd->add_option("input", flags->input, "file of JSON lines, or - for stdin (default)");
    cmd->add_option("-o,--output", flags->output, "file to write, - for stdout")->required();
    cmd->add_option("--on-error", flags->on_error, "stop|skip: what to do with a bad line")
        ->check(CLI::IsMember({"stop", "skip"}));
    cmd->footer(
        "Example:\n  objwire gen --workload graph -n 1000 -o graph.jsonl\n"
        "  objwire encode graph.jsonl -o graph.owj");
    return {cmd, [flags] { return run_encode(*flags); }};
}

subcommand add_decode_command(CLI::App& app) {
    auto flags = std::make_shared<decode_flags>();
    auto* cmd = app.add_subcommand(
        "decode", "objwire's binary format (encode's output, journal segments) to JSON lines");
    cmd->add_option("input", flags->inputs,
                    "files of blocks, read in order: encode's output or objwired's "
                    "journal-*.owj, or - for stdin")
        ->required();
    cmd->add_option("-o,--output", flags->output, "file to write, - for stdout (default)");
    cmd->footer(
        "Example:\n  objwire gen --workload graph -n 1000 -o graph.jsonl\n"
        "  objwire encode graph.jsonl -o graph.owj\n"
        "  objwire decode graph.owj -o graph-again.jsonl");
    return {cmd, [flags] { return run_decode(*flags); }};
}

}  // namespace objwire::client
