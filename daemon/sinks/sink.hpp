// Where objwired puts what its sessions receive. A sink is opened once by the server; each
// connection opens a stream into it, adds the objects of one socket read and commits them as
// one write, and acknowledges them when the sink says they are durable. Implementations: the
// journal (the default, daemon/sinks/journal_sink.hpp), JSON lines (daemon/sinks/jsonl_sink.hpp), a
// NATS JetStream stream several objwired share (daemon/sinks/nats_sink.hpp) and the next objwired
// of a relay (daemon/sinks/forward_sink.hpp); open_sink() picks one by sink.kind.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <system_error>
#include <vector>

#include "config/settings.hpp"
#include "proto/journal_block.hpp"
#include "proto/value.hpp"

namespace objwire::daemon {

class sender_registry;
class metric_writer;
class journal;
class nats_sink;
struct metrics;

class sink_stream {
  public:
    // Called exactly once per successful commit: with no error once the batch is durable by
    // the sink's rule, or with the error that stopped it from becoming durable. It may run
    // before commit() returns or later on another thread: keep it short (post to a strand).
    using durable_handler = std::function<void(std::error_code)>;

    virtual ~sink_stream() = default;
    // Adds one object to the open batch.
    virtual std::error_code add(const message& m) = 0;
    // For sinks whose takes_payloads(): a received frame's payload that decodes on its own
    // (receiver::frame_fresh()), stored whole instead of its objects one by one.
    virtual std::error_code add_payload(std::span<const std::uint8_t> /*payload*/,
                                        std::uint32_t /*messages*/) {
        return std::make_error_code(std::errc::operation_not_supported);
    }
    virtual bool empty() const = 0;
    // Bytes the open batch holds, so a session can commit long batches in parts.
    virtual std::size_t bytes() const = 0;
    // For sinks whose holds_messages() is true: the memory the open batch's decoded messages take
    // (daemon/sinks/held_memory.hpp), which the session charges against the connection's
    // limits.max_buffered_bytes until the batch is durable.
    virtual std::size_t memory() const { return 0; }
    // The objects added so far are whole frames; rollback() drops those added since (a frame
    // that failed part-way after its first objects were added).
    virtual void mark() = 0;
    virtual void rollback() = 0;
    // The sender said goodbye: make what was committed durable soon rather than at the
    // policy's next interval (the journal syncs now). Sinks without an interval ignore it.
    virtual void expedite() {}
    // Nobody waits long for the acks of what is committed any more - the sender left without
    // its goodbye (a resume sends it again), or its connection is closing: a sink that waits
    // on a peer (forward) gives what that peer has not acknowledged within `within` up,
    // failing those batches. Any thread.
    virtual void abandon(std::chrono::milliseconds /*within*/) {}
    // The `within` a session gives when its sender left without goodbye: enough for a hop on
    // a working link to acknowledge what it has.
    static constexpr std::chrono::milliseconds left_window{500};
    // Why the last batch failed, in the words of whoever refused it (a relay's next hop), with
    // its error code; empty when the sink has nothing to add to the code.
    struct failure {
        std::error_code code;
        std::string text;
    };
    virtual failure last_failure() const { return {}; }
    // The sender stream's record the next commit() stores with its batch, for sinks that keep
    // one (the journal: docs/JOURNAL.md 2.1); others ignore it.
    virtual void set_record(const journal_stream_record& /*record*/) {}
    // Stores the open batch - the objects of frames first_sequence..last_sequence of this
    // connection - with one write and starts the next. On error nothing was stored and
    // on_durable is not called.
    virtual std::error_code commit(std::uint64_t first_sequence, std::uint64_t last_sequence,
                                   durable_handler on_durable) = 0;
};

class sink {
  public:
    virtual ~sink() = default;
    // For people: the welcome and the logs say where objects go ("journal:/var/lib/...").
    virtual std::string describe() const = 0;
    // Sinks that store the value encoding (the journal) take fresh frames' payloads as they
    // came (sink_stream::add_payload), so senders are told to start frames fresh.
    virtual bool takes_payloads() const { return false; }
    // Sinks that keep decoded messages until they are durable (a relay's queue): their
    // connections are charged what those messages take in memory, not only their wire bytes.
    virtual bool holds_messages() const { return false; }
    // A stream for one connection; sender_id is the one its hello gave (may be empty).
    virtual std::unique_ptr<sink_stream> open_stream(const std::string& sender_id) = 0;
    // The same for a stream that already passed the relays `relay_path` (hello field 17):
    // a relay passes them on, with itself added.
    virtual std::unique_ptr<sink_stream> open_relayed_stream(
        const std::string& sender_id, const std::vector<std::string>& relay_path) {
        (void)relay_path;
        return open_stream(sender_id);
    }
    // This daemon's id in relay paths (daemon/sinks/relay_path.hpp); "" for a sink that sends
    // nothing on.
    virtual std::string relay_id() const { return {}; }
    // Why a new sender stream cannot be taken now, with when to retry (empty: it can). A relay
    // whose next hop is down says so; the hello is refused with not_available and this text.
    virtual std::string refuse_stream() { return {}; }
    // At start: tells `senders` the last frame stored of every sender id the sink still
    // holds, so streams resume across restarts. The journal reads its block headers; a sink
    // that keeps nothing to read back (JSON lines) remembers nothing.
    virtual std::error_code recall_senders(sender_registry&) { return {}; }
    // True for a sink several objwired write (NATS): the last frame of a sender may have been
    // stored by another daemon, so a connection's resume point is asked of the sink itself
    // with last_stored_frame() - a blocking request, made off the connection's strand.
    virtual bool shared() const { return false; }
    // The last frame of `sender_id` the sink holds; nullopt when it cannot tell now (the
    // connection is then refused with sender_busy, which a resuming client retries).
    virtual std::optional<std::uint64_t> last_stored_frame(const std::string&) {
        return std::uint64_t{0};
    }
    // Appends the sink's own figures to the daemon's metrics (docs/OPERATIONS.md lists them):
    // the journal its gaps, NATS its publishing. `m`: the server's metrics. Most sinks have none.
    virtual void write_metrics(metric_writer& /*out*/, const metrics& /*m*/) const {}
    // Connections the sink holds open to other daemons now: a relay's to its next hop (one
    // per upstream stream that has sent something), counted in objwire_connections_by_role
    // as role "forward".
    virtual std::int64_t outgoing_connections() const { return 0; }
};

// What readers read back of what the sink stores, one interface per store: its journal
// (sink.kind = "journal"), or its JetStream stream ("nats"); neither for a sink that keeps
// nothing readable (JSON lines, forward). open_sink() fills it: it knows what it opened.
struct readable_store {
    daemon::journal* journal = nullptr;
    nats_sink* stream = nullptr;
};

// Opens the sink `settings` configure (sink.kind) in the data directory, logging why not, and
// says in `readable` what readers can read of it.
std::unique_ptr<sink> open_sink(const config::daemon_settings& settings, std::error_code& ec,
                                readable_store& readable);

}  // namespace objwire::daemon
