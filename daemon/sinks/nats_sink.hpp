// The NATS JetStream sink (sink.kind = "nats"): several objwired publish into one replicated
// stream instead of each keeping a local journal. Each connection's batch becomes journal
// blocks (proto/journal_block.hpp, the journal's own format) published asynchronously on
// nats.subject, at most nats.publish_window of them unacknowledged; a batch is durable - and
// its frames acknowledged to the sender - only once JetStream acknowledged every block of it.
// A block's Nats-Msg-Id names its sender stream and frame sequence range, so a block published
// again after an ack timeout or a lost server is discarded by the stream's duplicate window.
// While the cluster is unreachable nothing becomes durable: blocks wait (up to
// nats.buffer_bytes), are republished, and the sink logs until the cluster is back.
// The publisher (daemon/sinks/nats_publisher.hpp) keeps the connection; libnats stays inside it and
// the NATS files that include daemon/sinks/nats_options.hpp.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include "config/settings.hpp"
#include "daemon/sinks/sink.hpp"
#include "proto/compression_policy.hpp"
#include "proto/metric_families.hpp"

namespace objwire::daemon {

struct nats_sink_options {
    std::vector<std::string> servers;  // nats://host:port URLs
    std::string subject = "objwire.blocks";
    std::string stream = "OBJWIRE";
    std::uint32_t replicas = 1;    // of a stream the sink creates
    std::string credentials_file;  // "" = none
    std::uint32_t publish_window = 256;
    std::uint64_t buffer_bytes = 256ull << 20;
    std::chrono::milliseconds ack_timeout{5000};
    std::chrono::milliseconds duplicate_window{120000};  // of a stream the sink creates
    // Blocks compressed by the client's rule, the link measured from JetStream's acks
    // (daemon/sinks/nats_block_codec.hpp has the stored form).
    compression_options compression{};
    // A compressed block read back may claim at most this many raw bytes (limits.max_frame_bytes).
    std::size_t max_block_bytes = 64u << 20;
};

// The options `settings` configure ([nats]).
nats_sink_options nats_options_from(const config::daemon_settings& settings);

// Plain counters for the metrics endpoint (daemon/telemetry/metrics.*): a snapshot, any thread.
struct nats_sink_stats {
    bool connected = false;             // to some server of the cluster now
    bool stream_ready = false;          // the stream was found or created
    std::string connected_url;          // the server it is connected to ("" when none)
    std::uint64_t blocks_acked = 0;     // blocks JetStream acknowledged (first ack of each)
    std::uint64_t bytes_acked = 0;      // their bytes
    std::uint64_t publishes = 0;        // publish calls, first attempts and retries
    std::uint64_t retries = 0;          // blocks published again (timeout, error, lost server)
    std::uint64_t duplicates = 0;       // acks JetStream flagged as duplicate (a retry that
                                        // found the block already stored)
    std::uint64_t publish_errors = 0;   // failed publish calls and negative acks
    std::uint64_t window_in_use = 0;    // blocks published and not yet acknowledged, now
    std::uint64_t window_peak = 0;      // the most at once so far
    std::uint64_t window_limit = 0;     // nats.publish_window
    std::uint64_t buffered_bytes = 0;   // bytes of blocks held (queued + unacknowledged), now
    std::uint64_t buffer_limit = 0;     // nats.buffer_bytes
    std::uint64_t refused_batches = 0;  // commits put off because the buffer was full
    // Commit to JetStream ack of each block: the publish latency senders feel.
    std::uint64_t latency_count = 0;
    std::uint64_t latency_sum_ns = 0;
    std::uint64_t latency_max_ns = 0;
    // nats.compression: what the policy decided and what it gave.
    bool compressing = false;             // auto's current decision
    double link_mbit = 0;                 // link estimate from acks (0 while none)
    std::uint64_t blocks_compressed = 0;  // blocks stored compressed
    std::uint64_t raw_bytes = 0;          // blocks' bytes before compression
    std::uint64_t stored_bytes = 0;       // as published
};

// The stats as metric families (objwire_nats_*): what nats_sink::write_metrics adds to the
// daemon's metrics; nats_metric_families gives them alone.
void write_nats_metrics(metric_writer& out, const nats_sink_stats& s);
std::vector<metric_family> nats_metric_families(const nats_sink_stats& s);

class nats_publisher;

class nats_sink final : public sink {
  public:
    // Connects (or keeps trying in the background when no server answers yet) and starts the
    // publishing thread, which finds or creates the stream before it publishes. Fails only on
    // options libnats refuses (a bad URL, an unreadable credentials file).
    static std::unique_ptr<nats_sink> open(nats_sink_options options, std::error_code& ec);
    ~nats_sink() override;

    std::string describe() const override;
    std::unique_ptr<sink_stream> open_stream(const std::string& sender_id) override;
    nats_sink_stats stats() const;
    void write_metrics(metric_writer& out, const metrics& m) const override;
    // Shared by every objwired on the stream: a connection's resume point is read from it.
    bool shared() const override { return true; }
    std::optional<std::uint64_t> last_stored_frame(const std::string& sender_id) override;
    const nats_sink_options& options() const;

  private:
    explicit nats_sink(std::shared_ptr<nats_publisher> p) : publisher_(std::move(p)) {}
    std::shared_ptr<nats_publisher> publisher_;
};

// The Nats-Msg-Id of a block: "<sender>:<connection>:<first>-<last>", with ".<part>" when a
// batch had to be split to fit the server's max_payload. <sender> is the hello's sender id
// when it is short and plain, else a hash of it ("anon" when empty); <connection> is random
// per connection (see docs/DECISIONS.md: until streams resume across connections, frame
// numbers restart at 1 on each).
std::string nats_sender_key(const std::string& sender_id);
// The subject a sender's blocks are published on: "<nats.subject>.<token>", the token being the
// sender id when it is short and plain (letters, digits, '-', '_'), else "h" and a hash of
// it ("anon" when empty). The stream captures "<nats.subject>.>"; the newest message on a
// sender's subject holds its last stored frame (resume), and a reader of one sender filters
// on it.
std::string nats_sender_subject(const std::string& subject, const std::string& sender_id);
std::string nats_msg_id(const std::string& stream_prefix, std::uint64_t first_sequence,
                        std::uint64_t last_sequence, std::uint32_t part, std::uint32_t parts);

}  // namespace objwire::daemon
