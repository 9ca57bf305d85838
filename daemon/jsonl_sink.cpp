#include "daemon/jsonl_sink.hpp"

#include <fcntl.h>
#include <unistd.h>

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
    std::error_code commit(std::uint64_t, std::uint64_t, durable_handler on_durable) override {
        auto ec = sink_.write(lines_);
        lines_.clear();
        if (!ec) on_durable({});
        return ec;
    }

  private:
    jsonl_sink& sink_;
    std::string lines_;
};

}  // namespace

jsonl_sink::jsonl_sink(std::filesystem::path file) : path_(std::move(file)) {
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd_ < 0) open_error_ = std::error_code(errno, std::generic_category());
}

jsonl_sink::~jsonl_sink() {
    if (fd_ >= 0) ::close(fd_);
}

std::unique_ptr<sink_stream> jsonl_sink::open_stream(const std::string&) {
    return std::make_unique<jsonl_stream>(*this);
}

std::error_code jsonl_sink::write(std::string_view lines) {
    std::lock_guard lock(mutex_);
    if (fd_ < 0) return open_error_;
    while (!lines.empty()) {
        ssize_t n = ::write(fd_, lines.data(), lines.size());
        if (n < 0) {
            if (errno == EINTR) continue;
            return {errno, std::generic_category()};
        }
        lines.remove_prefix(static_cast<std::size_t>(n));
    }
    return {};
}

}  // namespace objwire::daemon
