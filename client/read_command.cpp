#include "client/read_command.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>
#include <string>

#include "client/progress.hpp"
#include "client/reader.hpp"
#include "config/settings.hpp"
#include "proto/json_writer.hpp"

namespace objwire::client {
namespace {

constexpr std::size_t write_chunk = 1 << 20;

struct read_flags {
    std::string config_file;
    std::string to;
    access_flags access;  // --tls, --tls-ca, --token-file
    std::uint64_t from = 0;
    bool follow = false;
    std::string sender;
    std::string output = "-";
};

// Defaults < file < environment < --to, as for the other subcommands.
bool load(const read_flags& f, config::client_settings& s) {
    return load_client_settings(f.config_file, f.to, s) && apply_access_flags(f.access, s);
}

// JSON lines out, in large writes; a follower flushes whenever it is about to wait.
class jsonl_output {
  public:
    bool open(const std::string& path) {
        path_ = path;
        file_ = path == "-" ? stdout : std::fopen(path.c_str(), "wb");
        if (!file_) report();
        return file_ != nullptr;
    }
    bool add(const message& m) {
        append_json(m, buf_);
        buf_.push_back('\n');
        return buf_.size() < write_chunk || flush();
    }
    bool flush() {
        const bool good =
            buf_.empty() || (std::fwrite(buf_.data(), 1, buf_.size(), file_) == buf_.size() &&
                             std::fflush(file_) == 0);
        buf_.clear();
        if (!good) report();
        return good;
    }
    bool close() {
        bool good = flush();
        if (file_ && file_ != stdout && std::fclose(file_) != 0) good = false, report();
        file_ = nullptr;
        return good;
    }
    ~jsonl_output() {
        if (file_ && file_ != stdout) std::fclose(file_);
    }

  private:
    void report() const {
        std::cerr << "objwire: cannot write '" << path_ << "': " << std::strerror(errno) << "\n";
    }
    std::string path_;
    std::FILE* file_ = nullptr;
    std::string buf_;
};

int run_read(const read_flags& f) {
    config::client_settings settings;
    if (!load(f, settings)) return exit_codes::usage;
    jsonl_output out;
    if (!out.open(f.output)) return exit_codes::usage;
    read_options options;
    options.from = f.from;
    options.follow = f.follow;
    options.sender = f.sender;
    reader r(settings, options);
    if (r.open()) {
        std::cerr << "objwire: " << r.last_error() << "\n";
        return exit_codes::cannot_connect;
    }
    // On a terminal, unless the objects themselves go there.
    const bool show = progress_line::stderr_is_terminal() && (f.output != "-" || !::isatty(1));
    progress_line progress("read", "in", show);
    stored_message m;
    std::size_t gaps_told = 0;
    const auto tell_gaps = [&] {
        for (; gaps_told < r.gaps().size(); ++gaps_told) {
            const auto& g = r.gaps()[gaps_told];
            std::cerr << "objwire: gap: offsets " << g.first << " to " << g.end - 1
                      << " are lost (damaged in the daemon's journal); reading goes on at " << g.end
                      << "\n";
        }
    };
    while (r.next(m)) {
        tell_gaps();
        progress.tick([&] {
            const auto& s = r.stats();
            return progress_sample{s.objects, s.wire_bytes_in, s.objects, false};
        });
        if (!out.add(m.value)) return exit_codes::usage;
        if (f.follow && r.ready() == 0 && !out.flush()) return exit_codes::usage;
    }
    tell_gaps();
    progress.finish();
    if (!out.close()) return exit_codes::usage;
    const auto& s = r.stats();
    if (r.error()) {
        std::cerr << "objwire: " << r.last_error() << " (after " << s.objects << " objects)\n";
        return exit_codes::cannot_connect;
    }
    std::cerr << "objwire: read " << s.objects << " objects in " << s.blocks << " blocks from "
              << r.server().sink << "\n";
    if (!r.gaps().empty()) {
        std::cerr << "objwire: " << r.gaps().size()
                  << " range(s) of offsets were lost in the journal (see above)\n";
        return exit_codes::data_lost;
    }
    return exit_codes::ok;
}

}  // namespace

subcommand add_read_command(CLI::App& app) {
    auto flags = std::make_shared<read_flags>();
    auto* cmd = app.add_subcommand(
        "read", "print the daemon's stored objects as JSON lines (what `send` accepts)");
    cmd->add_option("--to", flags->to, "daemon address HOST:PORT (default 127.0.0.1:7878)");
    add_access_flags(cmd, flags->access);
    cmd->add_option("-c,--config", flags->config_file,
                    "client settings file (see config/objwire.toml)");
    cmd->add_option("--from", flags->from,
                    "the first offset to print: an object offset of a journal, a stream sequence "
                    "(one per block) of a NATS stream (default 0: everything still stored)");
    cmd->add_flag("--follow", flags->follow,
                  "after the stored objects, wait and print new ones as they are stored");
    cmd->add_option("--sender", flags->sender, "only the objects of this sender id");
    cmd->add_option("-o,--output", flags->output, "file to write, - for stdout (default)");
    cmd->footer("Example:\n  objwire read --to 127.0.0.1:7878 --from 0 -o stored.jsonl");
    return {cmd, [flags] { return run_read(*flags); }};
}

}  // namespace objwire::client
