// A follower of `objwire bench --readers N`: one reader connection from the journal's durable
// end (docs/PROTOCOL.md 1.2) that counts each stored block's objects from its header into a
// delivery_tally and decodes none of them. The library's reader (include/objwire/reader.hpp)
// decodes every object it hands out; ten of those in the bench process would be ten decoders
// against one encoder on the same cores, and the bench would measure its own followers rather
// than objwired serving them (docs/PERFORMANCE.md, "Latency"). Blocks are still verified
// (their checksum, by proto/read_client.hpp). No reconnection: a lost connection ends it.
#pragma once

#include <asio.hpp>
#include <atomic>
#include <optional>
#include <string>
#include <system_error>

#include "client/cli/delivery_tally.hpp"
#include "client/lib/daemon_link.hpp"
#include "config/settings.hpp"
#include "proto/read_client.hpp"

namespace objwire::client {

class bench_follower {
  public:
    bench_follower(config::client_settings settings, std::string client_name);
    ~bench_follower();
    bench_follower(const bench_follower&) = delete;
    bench_follower& operator=(const bench_follower&) = delete;

    // Connects and says hello as a follower from the durable end; `why` says what failed.
    std::error_code open(std::string& why);
    // The offset the stream starts at, after open().
    std::uint64_t start() const { return core_ ? core_->peer().read_start : 0; }
    // Counts the blocks that arrive into `tally` until it holds `total` objects of the
    // bench's senders, or the stop flag is set. Empty, or why the follow ended early.
    std::string follow(delivery_tally& tally, std::uint64_t total, const std::atomic<bool>& stop);
    // Says goodbye (best effort) and closes.
    void close();

  private:
    // Reads what the daemon sent next, waiting at most `wait`; empty, or why it failed.
    std::string read_more(std::chrono::milliseconds wait);

    config::client_settings settings_;
    std::string client_name_;
    asio::io_context io_;
    asio::ip::tcp::socket socket_;
    daemon_link link_;
    std::optional<read_client> core_;
};

}  // namespace objwire::client
