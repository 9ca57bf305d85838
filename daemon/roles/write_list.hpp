// What one write of a reader sends, as a list of byte ranges held elsewhere - a frame header of
// the reader's own, then a block's bytes that every follower shares - so that a gathered write
// (writev) sends them without copying them into one buffer. consume() drops what the socket
// took, so the rest is the next write's list. No I/O.
#pragma once

#include <asio/buffer.hpp>
#include <cstdint>
#include <span>
#include <vector>

namespace objwire::daemon {

class write_list {
  public:
    void add(std::span<const std::uint8_t> bytes) {
        if (bytes.empty()) return;
        buffers_.emplace_back(bytes.data(), bytes.size());
        bytes_ += bytes.size();
    }
    // The first `n` bytes were written.
    void consume(std::size_t n) {
        bytes_ -= n;
        std::size_t whole = 0;
        while (whole < buffers_.size() && n >= buffers_[whole].size())
            n -= buffers_[whole++].size();
        buffers_.erase(buffers_.begin(), buffers_.begin() + static_cast<std::ptrdiff_t>(whole));
        if (n > 0) buffers_.front() += n;
    }
    const std::vector<asio::const_buffer>& buffers() const { return buffers_; }
    std::size_t bytes() const { return bytes_; }
    bool empty() const { return bytes_ == 0; }
    void clear() {
        buffers_.clear();
        bytes_ = 0;
    }

  private:
    std::vector<asio::const_buffer> buffers_;
    std::size_t bytes_ = 0;
};

}  // namespace objwire::daemon
