// What the NATS sink tests stand on: real nats-server processes on 127.0.0.1 (one, or three
// with cluster routes) with temporary store directories, in-process objwired servers, and a
// reader that takes a JetStream stream back apart into journal blocks and their objects.
#pragma once

#include <asio.hpp>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "config/settings.hpp"
#include "daemon/roles/standard_roles.hpp"
#include "daemon/serve/server.hpp"
#include "proto/journal_block.hpp"
#include "proto/value.hpp"
#include "tests/support/wait_until.hpp"

namespace objwire::test {

// The nats-server program, or "" when it is not installed (the tests are then skipped).
std::string nats_server_program();
// A TCP port on 127.0.0.1 nobody listens on right now.
std::uint16_t free_port();

// One nats-server child process with JetStream.
class nats_server {
  public:
    struct options {
        std::string name;
        std::uint16_t port = 0;
        std::filesystem::path store_dir;
        std::uint16_t cluster_port = 0;     // 0: no cluster
        std::vector<std::uint16_t> routes;  // other servers' cluster ports
    };
    explicit nats_server(options o) : options_(std::move(o)) {}
    ~nats_server() { kill(); }

    // Starts it and waits (bounded) until its client port accepts connections.
    bool start();
    // SIGKILL and reap: nothing is flushed, as when a machine dies.
    void kill();
    bool running() const { return pid_ > 0; }
    std::uint16_t port() const { return options_.port; }
    std::string url() const { return "nats://127.0.0.1:" + std::to_string(options_.port); }
    std::string log() const;

  private:
    options options_;
    int pid_ = -1;
};

// An objwired server running in-process on 127.0.0.1:0.
class daemon_instance {
  public:
    explicit daemon_instance(config::daemon_settings s) : settings_(std::move(s)) {}
    ~daemon_instance() { stop(); }
    bool start();
    void stop();
    std::uint16_t port() const { return port_; }
    daemon::server& server() { return *server_; }

  private:
    config::daemon_settings settings_;
    asio::io_context io_;
    std::unique_ptr<daemon::server> server_;
    std::vector<std::thread> threads_;
    std::uint16_t port_ = 0;
};

// One message of the stream: a verified journal block, kept encoded (a million objects
// decoded at once would not fit a small machine).
struct stream_block {
    std::uint64_t stream_sequence = 0;
    std::string msg_id;
    std::string lane;  // msg id up to its last ':' - one per objwired connection
    journal_block_header header;
    std::string sender_id;
    std::vector<std::uint8_t> bytes;  // the block as formed (decompressed)
    std::size_t stored_bytes = 0;     // the message's payload as stored
    bool compressed = false;          // stored with an Objwire-Codec header
};

// Reads every message of `stream` from the servers at `urls` (bounded retries while the
// cluster elects leaders). Each must be one verified journal block; `error` says otherwise.
// Publishes one message with `headers` on `subject` into JetStream (a forged block) and waits
// for its ack; "" or what failed.
std::string publish_message(const std::string& urls, const std::string& subject,
                            std::span<const std::uint8_t> payload,
                            const std::vector<std::pair<std::string, std::string>>& headers);

std::vector<stream_block> read_stream(const std::string& urls, const std::string& stream,
                                      std::string& error);

// Walks each connection's blocks in the order of their first_offset, checking that they cover
// offsets 0..n once each (no gap, no duplicate), and hands every object to
// on_object(sender_id, message&&) in that order. Stops at the first problem, in `error`.
void for_each_object(const std::vector<stream_block>& blocks,
                     const std::function<void(const std::string&, message&&)>& on_object,
                     std::string& error);

}  // namespace objwire::test
