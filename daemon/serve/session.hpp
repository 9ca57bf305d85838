// One connection of objwired: a thin driver around the sans-I/O receiver. It reads the socket
// in blocks straight into the receiver's buffer, hands each read's decoded objects to its sink
// stream as one batch (one write), and keeps the receiver's replies for that read - the ack,
// and an error or goodbye after it - until the sink says the batch is durable; a writer
// coroutine sends released replies in order. Reading goes on meanwhile, so a sync in progress
// (journal fsync interval or always) delays acknowledgements, never the intake. Both
// coroutines run on the socket's strand, and the session ends when both have: where it stands
// is one phase (daemon/serve/session_phase.hpp), its replies a reply_queue.
#pragma once

#include <array>
#include <asio.hpp>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "daemon/serve/connection_guard.hpp"
#include "daemon/serve/link_estimator.hpp"
#include "daemon/serve/peer_stream.hpp"
#include "daemon/serve/reply_queue.hpp"
#include "daemon/serve/session_phase.hpp"
#include "daemon/serve/store_allowance.hpp"
#include "daemon/serve/table_budget_pool.hpp"
#include "daemon/sinks/sink.hpp"
#include "daemon/store/sender_registry.hpp"
#include "daemon/telemetry/metrics.hpp"
#include "proto/byte_buffer.hpp"
#include "proto/receiver.hpp"

namespace objwire::daemon {

class server;

class session : public std::enable_shared_from_this<session> {
  public:
    session(server& srv, asio::ip::tcp::socket socket);
    ~session();  // lets go of the sender id if run() ended by an exception

    // The connection's whole life; however it ends, the socket is closed when it returns.
    asio::awaitable<void> run();
    // Graceful stop: finish what is buffered, acknowledge it once durable, close. Any thread.
    void stop();
    // Forced stop: close the socket now; what is not yet acknowledged the sender sends again.
    // Any thread.
    void abort();
    // Other senders came: a sender connection whose share shrank is told so now, without
    // waiting for an ack of new frames (daemon/serve/credit_share.hpp). Any thread.
    void notice_credit();
    const std::string& peer() const { return peer_; }
    // What the connection is doing (objwire_connections_by_role); the server counts it in
    // handshake when it starts the session and takes it out of its last role when it ends.
    connection_role role() const { return role_; }
    asio::any_io_executor run_executor() { return stream_io_.get_executor(); }
    // The server counts this connection as waiting for its hello under `id` (pending_hellos).
    void waiting_as(std::uint64_t id) { pending_id_ = id; }
    // Closes the connection if it still waits for its hello, sending an error frame
    // too_many_connections with `why` (the caps on connections waiting for their hello were
    // reached and this was the oldest). Any thread.
    void shed(std::string why);
    // A sender that completed no frame since this time (its welcome, or its last read), while
    // it streams and was not shed; nullopt for any other connection. Any thread.
    std::optional<std::chrono::steady_clock::time_point> idle_since() const;
    // Closes a streaming sender, sending an error frame too_many_connections with `why` after
    // the replies it is owed (daemon/serve/idle_shedding.hpp: it was idle longest when the
    // descriptors ran out). Any thread.
    void shed_idle(std::string why);
    // After a reload changed the users: a session whose user is gone, or lost the permission
    // its hello needs, ends with the reason (a reader at its next round, a sender now); the
    // others go on with their user's new permissions. Any thread.
    void reconsider(std::shared_ptr<const user_directory> next,
                    std::shared_ptr<const user> anonymous);

  private:
    // The connection after the handshake: reading and storing, and sending the replies, as
    // two coroutines on the socket's strand that end together (the session ends with both).
    asio::awaitable<void> serve();
    asio::awaitable<void> read_side();
    asio::awaitable<void> write_side();
    // After the reads, while replies wait for the sink: the sender closing the connection.
    asio::awaitable<void> watch_for_hangup();
    // Closes the socket, cancels every wait of the session and settles its counts (once).
    void end();
    // Takes in n bytes just read: decode, store, queue the replies. What the receiver says
    // comes next.
    receiver::step consume(std::size_t n);
    // consume's parts: the read's objects into the open batch, a frame that failed part-way
    // taken out again, the read's replies held for its batch (false: the sink failed).
    receiver::step decode_and_store(std::error_code& store_error);
    void roll_back_failed_frame();
    bool reply_to_read(std::uint64_t frames_before);
    // Before a frame's first object or its whole payload is added: opens the sink stream,
    // commits a long open batch, marks the frame's start (once per frame).
    void begin_frame(std::error_code& store_error);
    // Feeds the link estimator with a read of n bytes (filled: it took all the space offered)
    // and publishes a new estimate in the metrics.
    void measure_link(std::size_t n, bool filled);
    // A parked receiver's first n bytes (in first_bytes_) into its read block, with what the
    // socket holds already when they filled it; returns the bytes the block got.
    std::size_t unpark(std::size_t n, bool filled);
    // After the hello: checks access, then either welcomes a sender where its stream resumes
    // or hands the connection to its role (reader, stats). False when reading is over.
    asio::awaitable<bool> admit();
    asio::awaitable<bool> admit_sender();
    void refuse(std::error_code ec, const std::string& detail);
    // Moves the connection from its role to `next` in objwire_connections_by_role.
    void become(connection_role next);
    // Where a sender's stream resumes (daemon/serve/session_resume.cpp): the last frame of
    // this sender already stored (0: a new stream), once this connection is the sender id's
    // only one; else why not.
    struct resume_answer {
        std::optional<std::uint64_t> last_frame;
        std::error_code refusal;  // sender_busy or sender_fenced when there is no last_frame
        std::string why;
    };
    asio::awaitable<resume_answer> resume_point();
    // resume_point's parts: the claim of the sender id (nullopt: claimed), its refusals, and
    // the frame the claimed stream resumes after.
    asio::awaitable<std::optional<resume_answer>> claim_sender(const std::string& id, bool resuming,
                                                               const std::string& fresh_token);
    static resume_answer busy(std::string why);
    static resume_answer fenced(const std::string& id);
    resume_answer held_elsewhere(const std::string& id, bool resuming);
    asio::awaitable<resume_answer> resume_after_claim(const std::string& id, bool resuming);
    asio::awaitable<std::optional<std::uint64_t>> ask_sink_last_frame(const std::string& id);
    // This connection streams no more for its sender id (idempotent).
    void release_sender();
    // Stores `fence` as the owner of sender id `id`; false (released) if it cannot.
    bool record_owner(const std::string& id, const stream_fence& fence,
                      sender_registry::fence_change change);
    // Queues the receiver's pending output as a reply released at once.
    void queue_ready_reply();
    std::error_code commit_batch(std::uint64_t last_sequence, std::uint64_t reply_id);
    asio::awaitable<void> drain();
    // The reads are over: what is still to be acknowledged goes out through the writer.
    void finish_reading();
    void on_durable(std::uint64_t id, std::error_code ec, std::uint64_t objects);
    void pass_refusal(const sink_stream::failure& why);
    void fail();
    // reconsider()'s verdict: the connection ends with `why` (the user lost its permission).
    void end_revoked(std::string why, const std::string& user_name);
    // The user the peer acts as ("" before its hello).
    std::string user_name() const;
    void cancel_read();
    // The wake-up call: every waiter of the strand looks at its condition again.
    void wake();
    using time_point = std::chrono::steady_clock::time_point;
    static constexpr time_point never = time_point::max();
    // Waits for wake(), and at the latest until `until` (the read side alone waits with a
    // deadline: the watchdog wakes it then).
    asio::awaitable<void> wait_for_wake(time_point until = never);
    // Sets one of the session's deadlines; the watchdog looks again at when to wake.
    void set_deadline(time_point& deadline, time_point when);
    // The session's deadlines on one timer: it sleeps until the earliest, acts on those due,
    // and ends with the read side (stop_watchdog).
    asio::awaitable<void> watchdog();
    void stop_watchdog();
    // The hello did not come in time (limits.handshake_timeout).
    void on_handshake_deadline();
    void expedite();
    void on_read_error(const std::error_code& ec);
    void log_close();
    std::string stream_summary() const;
    // Limits against hostile and slow peers (daemon/serve/session_limits.cpp). The guard's tick:
    // idle and slow peers, checked while a stream is read; the next one is due after it.
    void check_guard(time_point now);
    // Before each read: waits while the replies waiting for the sink hold more than
    // limits.max_buffered_bytes (paused), or while the sink is out of space, retrying its
    // batch (stalled). False: the connection failed.
    asio::awaitable<bool> hold_reading();
    // While paused: the sender closed its side; the sink need not wait long for its acks.
    void notice_hangup_while_paused();
    // A commit that failed for want of space and kept its batch: stall (stop reading and
    // acknowledging, retry) instead of closing. False: not such a failure.
    bool stall_on(std::error_code ec, std::uint64_t last_sequence, std::uint64_t reply_id);
    // A stalled batch that will never be stored: its reply and those after it are dropped.
    void drop_stalled();
    void queue_held_reply(std::span<const std::uint8_t> bytes, std::uint64_t received_ns);
    void release_held(std::uint64_t id);
    // Adds to the open batch by `add` and counts what that stored against allowance_; past
    // it, the frame is refused (the receiver sends the error) and nothing more is stored.
    std::error_code store(const std::function<std::error_code()>& add);
    // Of `offered` bytes of read buffer, how many the next read may take: all of them, but for
    // a sink that keeps decoded messages no more than could decode within what is left of
    // limits.max_buffered_bytes (daemon/sinks/held_memory.hpp).
    std::size_t read_size(std::size_t offered) const;
    // This connection's share of limits.max_buffered_bytes among the senders streaming now
    // (daemon/serve/credit_share.hpp): what it may hold not yet durable before reading pauses.
    std::uint64_t credit() const;
    // On the strand: notice_credit()'s work.
    void announce_credit();
    // For such a sink: refuses the frame being added once its messages alone take more memory
    // than limits.max_buffered_bytes.
    void check_frame_memory();

    server& server_;
    peer_stream stream_io_;
    session_state state_;
    // The session's two timers. watchdog_ wakes at the earliest of its deadlines - the
    // hello's, the guard's next check, the read side's own (a stall's retry, the end of a wait
    // for the sender id) - and acts on those due. wake_ never expires: cancelling it (wake())
    // wakes every waiter - the writer waiting for released replies, a paused or stalled read
    // side, a wait for the sender id - and each looks at its own condition again, as a
    // condition variable.
    asio::steady_timer watchdog_;
    asio::steady_timer wake_;
    bool watching_ = false;         // the watchdog runs
    bool refused_by_sink_ = false;  // the sink turned the stream away (it logs that itself)
    bool hangup_seen_ = false;      // notice_hangup_while_paused() found the sender gone
    bool refusal_passed_ = false;   // the sink's peer refused the stream; the sender was told
    time_point handshake_deadline_ = never;
    time_point guard_due_ = never;
    time_point read_due_ = never;
    asio::cancellation_signal read_cancel_;
    std::string peer_;
    std::uint64_t pending_id_ = 0;  // while it waits for its hello (server::hello_done)
    // A sender's share of limits.table_budget_total, from its admission (readers and stats
    // connections take none); before receiver_, so the table is freed before it goes back.
    std::optional<table_budget_pool::grant> table_grant_;
    store_allowance allowance_;  // stored bytes per byte received (limits.max_stored_*ratio)
    receiver receiver_;
    receiver_meter meter_;  // what receiver_ has added to the server's metrics
    link_estimator link_;   // this sender's link bandwidth, from the reads
    std::unique_ptr<sink_stream> stream_;
    reply_queue replies_;
    std::uint64_t stored_sequence_ = 0;  // the last frame a committed batch covers
    std::uint64_t adding_sequence_ = 0;  // the frame of the last object added
    std::uint64_t batch_objects_ = 0;    // objects in the open batch
    std::uint64_t marked_objects_ = 0;   // of them, those before the frame being added
    std::uint64_t stored_objects_ = 0;   // objects of this connection durable in the sink
    std::uint64_t bytes_in_ = 0;         // read from the peer, for the closing line
    std::chrono::steady_clock::time_point connected_at_ = std::chrono::steady_clock::now();
    byte_buffer writing_;
    // Where a parked receiver's next bytes land (a hello, a frame header): what an idle
    // connection holds instead of a read block (docs/OPERATIONS.md, "Memory per connection").
    std::array<std::uint8_t, 4096> first_bytes_;
    connection_role role_ = connection_role::handshake;
    // Limits against hostile and slow peers (daemon/serve/session_limits.cpp).
    connection_guard guard_;
    std::uint64_t unreplied_bytes_ = 0;  // read since the last reply was queued
    // For idle_since(): when a streaming sender last read bytes (steady clock ticks; 0: not a
    // streaming sender, or shed), read by the accept loop's thread.
    std::atomic<std::int64_t> active_at_{0};
    void touch_active();  // now, unless 0
    // Memory of the batches committed since the last reply was queued, for a sink that keeps
    // decoded messages (its reply is charged the larger of it and unreplied_bytes_).
    std::uint64_t unreplied_memory_ = 0;
    std::uint64_t frame_memory_start_ = 0;  // the open batch's memory when the frame began
    // While stalled: the batch retried, the reply it releases, since when.
    std::uint64_t stall_sequence_ = 0;
    std::uint64_t stall_reply_id_ = 0;
    std::chrono::steady_clock::time_point stalled_since_{};
    // Resume (daemon/serve/session_resume.cpp): the sender id this connection holds in the
    // server's sender_registry, and the frame its stream resumed after.
    std::uint64_t resume_token_ = 0;  // 0: holds no sender id
    std::uint64_t resumed_after_ = 0;
    // The stream's resume token (in the welcome) and its fence (in every block's record), and
    // where the stream stands: objects stored through the last committed batch, and the input
    // digest its sender reported for them.
    std::string stream_token_;
    stream_fence stream_fence_{};
    std::uint64_t stream_objects_ = 0;
    std::uint64_t stream_digest_ = 0;
    std::uint64_t frame_digest_ = 0;  // the digest the last whole frame's mark gave
};

}  // namespace objwire::daemon
