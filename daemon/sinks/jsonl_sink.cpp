#include "daemon/sinks/jsonl_sink.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "proto/json_writer.hpp"

namespace objwire::daemon {
namespace {

class jsonl_stream final : public sink_stream {
  public:
    explicit jsonl_stream(jsonl_sink& sink) : sink_(sink) {}

    std::error_code add(const message& m) override {
        append_json(m, lines_);
        lines_.push_back('\n');
        return {};
    }
    bool empty() const override { return lines_.empty(); }
    std::size_t bytes() const override { return lines_.size(); }
    void mark() override { mark_ = lines_.size(); }
    void rollback() override { lines_.resize(std::min(mark_, lines_.size())); }
    std::error_code commit(std::uint64_t, std::uint64_t, durable_handler on_durable) override {
        auto ec = sink_.write(lines_);
        lines_.clear();
        mark_ = 0;
        if (!ec) on_durable({});
        return ec;
    }

  private:
    jsonl_sink& sink_;
    std::string lines_;
    std::size_t mark_ = 0;
};

}  // namespace

jsonl_sink::jsonl_sink(jsonl_options options) : options_(std::move(options)) {
    if (to_stdout())
        fd_ = STDOUT_FILENO;
    else
        open_error_ = open_file();
}

jsonl_sink::~jsonl_sink() {
    if (fd_ >= 0 && !to_stdout()) ::close(fd_);
}

std::string jsonl_sink::describe() const {
    return to_stdout() ? "jsonl:<stdout>" : "jsonl:" + options_.file.string();
}

std::unique_ptr<sink_stream> jsonl_sink::open_stream(const std::string&) {
    return std::make_unique<jsonl_stream>(*this);
}

std::error_code jsonl_sink::open_file() {
    fd_ = ::open(options_.file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd_ < 0) return {errno, std::generic_category()};
    struct stat st {};
    size_ = ::fstat(fd_, &st) == 0 ? static_cast<std::uint64_t>(st.st_size) : 0;
    return {};
}

// FILE.(keep-1) -> FILE.keep (replacing the oldest), ..., FILE -> FILE.1, then a new FILE.
std::error_code jsonl_sink::rotate() {
    ::close(fd_);
    fd_ = -1;
    const std::string base = options_.file.string();
    auto name = [&](std::uint32_t i) { return base + "." + std::to_string(i); };
    std::error_code ec;
    for (std::uint32_t i = options_.keep; i > 1; --i) {
        std::filesystem::rename(name(i - 1), name(i), ec);  // a gap is fine: skipped
    }
    std::filesystem::rename(options_.file, name(1), ec);
    if (ec) return ec;
    return open_file();
}

std::error_code jsonl_sink::write(std::string_view lines) {
    std::lock_guard lock(mutex_);
    if (fd_ < 0)
        return open_error_ ? open_error_ : std::make_error_code(std::errc::bad_file_descriptor);
    if (!to_stdout() && options_.rotate_bytes > 0 && size_ > 0 &&
        size_ + lines.size() > options_.rotate_bytes) {
        if (auto ec = rotate()) {
            open_error_ = ec;
            return ec;
        }
    }
    while (!lines.empty()) {
        ssize_t n = ::write(fd_, lines.data(), lines.size());
        if (n < 0) {
            if (errno == EINTR) continue;
            return {errno, std::generic_category()};
        }
        lines.remove_prefix(static_cast<std::size_t>(n));
        size_ += static_cast<std::uint64_t>(n);
    }
    return {};
}

}  // namespace objwire::daemon
