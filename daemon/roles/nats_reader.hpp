// The reader role on a NATS sink (docs/PROTOCOL.md "Reading back", docs/DECISIONS.md): any
// objwired whose sink is the stream serves `objwire read` from it, whichever daemon stored
// the blocks. Offsets are stream sequences: hello.read_from = N serves the blocks with
// stream sequence >= N (0 and 1: from the first stored), each block as formed (decompressed
// when it was stored compressed, daemon/sinks/nats_block_codec.hpp).
//
// nats_block_source holds libnats: its own connection to the cluster and an ordered
// (ephemeral, flow-controlled) consumer from the start sequence, filtered on one sender's
// subject when the reader asks for one sender, read by its own thread into a bounded queue,
// each sender's blocks put back in the order sent (daemon/sinks/nats_reorder.hpp) on the way.
#pragma once

#include <asio.hpp>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "daemon/serve/peer_stream.hpp"
#include "daemon/sinks/nats_reorder.hpp"
#include "daemon/sinks/nats_sink.hpp"
#include "proto/byte_buffer.hpp"
#include "proto/codec.hpp"
#include "proto/control.hpp"

struct __natsMsg;  // libnats' natsMsg, kept out of this header

namespace objwire::daemon {

class server;

class nats_block_source {
  public:
    struct request {
        std::uint64_t from = 0;  // stream sequence
        bool follow = false;
        std::string sender;  // "" = every sender
    };
    enum class status { blocks, empty, finished, failed };

    // Connects and finds where the stream starts and ends; nullptr with `error` when the
    // cluster or the stream cannot be reached. `on_ready` is called from the source's thread
    // whenever it queued blocks.
    static std::unique_ptr<nats_block_source> open(const nats_sink_options& options, request r,
                                                   std::function<void()> on_ready,
                                                   std::string& error);
    ~nats_block_source();

    // The oldest stream sequence stored and the one after the last, when opened.
    std::uint64_t first_sequence() const { return first_; }
    std::uint64_t end_sequence() const { return end_; }
    // Moves queued blocks into `out`, about `max_bytes` at most (one block at least):
    // `blocks`; or says there are none now (`empty`), there will be none (`finished`,
    // without follow), or the stream cannot be read (`failed`, see error()).
    status take(std::vector<ordered_block>& out, std::size_t max_bytes);
    const std::string& error() const { return error_; }

  private:
    struct nats_handles;
    nats_block_source() = default;
    void run();
    bool push(ordered_block b);
    bool unpack(__natsMsg* msg, ordered_block& b);
    bool push_all(std::vector<ordered_block>& blocks);
    void finish(std::string error);

    std::unique_ptr<nats_handles> nats_;
    request request_;
    std::function<void()> on_ready_;
    std::uint64_t first_ = 0;
    std::uint64_t end_ = 0;
    std::uint64_t last_wanted_ = 0;           // without follow: the stream ends after this sequence
    std::chrono::milliseconds hold_time_{0};  // following an idle stream: release held blocks
    block_reorder reorder_{1024, 64u << 20};
    std::size_t max_block_bytes_ = 0;  // a compressed block's raw length, at most
    frame_decompressor decompressor_;
    byte_buffer unpacked_;
    std::thread thread_;

    std::mutex mutex_;
    std::condition_variable room_;
    std::deque<ordered_block> queue_;
    std::size_t queued_bytes_ = 0;
    bool done_ = false;
    bool stopping_ = false;
    std::string error_;
};

// Serves a reader from the sink's stream (daemon/roles/nats_reader_service.cpp).
asio::awaitable<void> serve_stream_reader(server& srv, nats_sink& sink, peer_stream& stream,
                                          const std::string& peer, const hello& h);

}  // namespace objwire::daemon
