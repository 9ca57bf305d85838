// The NATS sink's publisher: one connection to the cluster shared by every sender stream of
// the sink, publishing journal blocks asynchronously on JetStream within nats.publish_window,
// republishing what is not acknowledged in time, and completing each connection's batches in
// commit order once every block of a batch is acknowledged. It also compresses blocks by the
// policy of nats.compression, the link measured from the acks.
// Internal to the NATS sink (daemon/sinks/nats_sink.cpp): includes libnats.
#pragma once

#include <nats/nats.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "daemon/sinks/nats_sink.hpp"
#include "proto/batch_compressor.hpp"

namespace objwire::daemon {

class nats_publisher : public std::enable_shared_from_this<nats_publisher> {
  public:
    using steady = std::chrono::steady_clock;
    // The blocks of one connection, completed in commit order.
    struct lane;
    struct entry {
        std::vector<std::uint8_t> bytes;  // as published: the block, maybe compressed
        codec_id codec = codec_id::none;  // none: `bytes` is the block as formed
        std::uint32_t raw_len = 0;        // the block's length before compression
        std::string msg_id;
        std::string subject;                   // nats.subject + "." + the sender's token
        sink_stream::durable_handler handler;  // set on a batch's last block only
        std::shared_ptr<lane> order;
        steady::time_point committed;
        steady::time_point sent;
        steady::time_point not_before;  // retry backoff
        std::uint32_t attempt = 0;      // publishes so far
        bool in_flight = false;
        bool acked = false;
    };
    struct lane {
        std::deque<std::shared_ptr<entry>> entries;
    };

    explicit nats_publisher(nats_sink_options o)
        : options_(std::move(o)), packer_(options_.compression) {
        // Each stored block must decompress alone: no zstd-stream context across blocks.
        packer_.policy().set_accepted(built_codecs() &
                                      ~(1u << static_cast<unsigned>(codec_id::zstd_stream)));
    }
    ~nats_publisher() { shutdown(); }

    std::error_code connect();
    void start() {
        thread_ = std::thread([this] { run(); });
    }
    void shutdown();

    // Takes `bytes` of nats.buffer_bytes for a batch, or says no (the bound that holds while
    // the cluster is away). One batch is always taken when nothing is held: it could never
    // fit later.
    bool reserve(std::size_t bytes);
    // Queues the blocks of a batch that reserved `reserved` bytes; on_durable runs once all
    // are acknowledged.
    std::error_code submit(std::vector<std::shared_ptr<entry>> blocks,
                           sink_stream::durable_handler on_durable, std::size_t reserved);
    std::size_t part_limit() const { return part_limit_.load(std::memory_order_relaxed); }
    // Puts a sealed block into `e` as it will be stored: compressed when the policy says so.
    void pack(std::span<const std::uint8_t> block, entry& e);
    // The last frame of `sender_id` in the stream: the last_sequence of the newest block on
    // its subject. nullopt when JetStream cannot be asked now.
    std::optional<std::uint64_t> last_stored_frame(const std::string& sender_id);
    nats_sink_stats stats() const;
    const nats_sink_options& options() const { return options_; }

  private:
    void run();
    bool ensure_stream();
    void publish(const std::shared_ptr<entry>& e, std::uint32_t attempt);
    void on_ack(natsMsg* msg, jsPubAck* pa, jsPubAckErr* pae);
    void on_failed(const std::shared_ptr<entry>& e, std::unique_lock<std::mutex>& lock);
    void complete_ready(const std::shared_ptr<lane>& l, std::unique_lock<std::mutex>& lock);
    void reclaim_stale(steady::time_point now);
    void fail_all(std::error_code ec);
    void warn_unless_captured(const jsStreamInfo* si) const;
    void log_trouble(const std::string& what);
    void measure_link(std::size_t bytes, bool window_full, steady::time_point now);

    // libnats callbacks: each finds its publisher among the live ones first.
    static void ack_cb(jsCtx*, natsMsg* msg, jsPubAck* pa, jsPubAckErr* pae, void* self);
    static void disconnected_cb(natsConnection* nc, void* self);
    static void disconnected_cb_live(natsConnection*, void* self);
    static void reconnected_cb(natsConnection* nc, void* self);
    static void reconnected_cb_live(natsConnection*, void* self);
    static void connected_cb(natsConnection* nc, void* self);
    static void connected_cb_live(natsConnection*, void* self);
    static void mark_connected(natsConnection* nc, void* self, const char* how);

    nats_sink_options options_;
    natsConnection* conn_ = nullptr;
    jsCtx* js_ = nullptr;
    std::thread thread_;
    std::atomic<std::size_t> part_limit_{(1u << 20) / 2};

    mutable std::mutex mutex_;
    std::condition_variable wake_;
    std::deque<std::shared_ptr<entry>> queue_;                        // to publish, in order
    std::unordered_map<std::string, std::shared_ptr<entry>> flying_;  // by msg id
    bool stopping_ = false;
    nats_sink_stats stats_;
    steady::time_point last_trouble_log_{};
    std::uint64_t trouble_suppressed_ = 0;
    std::atomic<bool> connected_{false};

    // Compression: one policy for the one link to JetStream, used by every connection's commit.
    mutable std::mutex pack_mutex_;  // taken alone or inside mutex_, never around it
    batch_compressor packer_;
    byte_buffer pack_buf_;
    // Link samples: bytes JetStream acknowledged since `sample_start_`, and whether the window
    // was full at every ack meanwhile (a full sample) or not (a lower bound).
    steady::time_point sample_start_{};
    std::uint64_t sample_bytes_ = 0;
    bool sample_full_ = true;
};

}  // namespace objwire::daemon
