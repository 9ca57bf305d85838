// The connection's implementation behind client::connection (include/objwire/connection.hpp,
// which documents the calls): a blocking sender over the sans-I/O proto::sender, the linger
// thread, the worker of the asynchronous calls, resume and reruns. Internal: the public header
// holds only a pointer to it, so none of this is part of the library's ABI.
#pragma once

#include <asio.hpp>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <type_traits>
#include <vector>

#include <objwire/connection.hpp>

#include "client/lib/batch_linger.hpp"
#include "client/lib/call_mutex.hpp"
#include "client/lib/compression_feed.hpp"
#include "client/lib/connection_phase.hpp"
#include "client/lib/daemon_link.hpp"
#include "client/lib/linger_service.hpp"
#include "client/lib/link_meter.hpp"
#include "client/lib/rerun_check.hpp"
#include "client/lib/resume_rule.hpp"
#include "client/lib/retry_window.hpp"
#include "config/settings.hpp"
#include "proto/sender.hpp"

namespace objwire::client {

// A sender state after its welcome: streaming, or closing when a connection broke inside
// close() and was resumed (the replay queues the goodbye again).
bool welcomed(sender::state st);

class connection_core : linger_service::client {
  public:
    // The calls of client::connection (include/objwire/connection.hpp documents them).
    connection_core(config::client_settings settings, std::string client_name);
    ~connection_core();
    connection_core(const connection_core&) = delete;
    connection_core& operator=(const connection_core&) = delete;

    std::error_code open();
    std::error_code open(std::chrono::milliseconds retry_for);
    std::error_code send(const message& m);
    std::error_code send(const typed_source& m);
    std::error_code flush();
    std::error_code flush(std::chrono::milliseconds timeout);

    // The asynchronous calls (client/lib/connection_async.cpp): each queues its job for the
    // worker thread and returns; `done` runs when it completes.
    using completion = std::function<void(std::error_code)>;
    void start_send(message m, completion done);
    // A typed record: `refused_at` names the field a refusal came from.
    void start_send(std::shared_ptr<const typed_source> source,
                    std::function<std::string()> refused_at, completion done);
    // A batch: `step` sends object i (async_send_many).
    using batch_step =
        std::function<std::error_code(std::size_t, detail::batch_sink&, std::string&)>;
    void start_send_many(std::size_t count, batch_step step, completion done);
    void start_flush(completion done);
    void start_close(completion done);
    // A struct's refusal names its field first: "message refused: Order.items[3].name: ...".
    void name_refused_field(const std::string& path) {
        std::lock_guard lock(mu_);
        name_refused_field_locked(path);
    }
    void name_refused_field_locked(const std::string& path) {
        static constexpr std::string_view refused = "message refused: ";
        if (last_error_.starts_with(refused)) last_error_.insert(refused.size(), path + ": ");
    }
    void set_send_timeout(std::chrono::milliseconds timeout) {
        send_timeout_ms_.store(timeout.count(), std::memory_order_relaxed);
    }
    // Async-signal-safe: a flag and one write(2) to an eventfd that every wait watches.
    void interrupt() noexcept;
    // interrupt() without interrupted_wait.
    void interrupt_now() noexcept;
    void on_reconnect(std::function<void(const reconnect_attempt&)> notice) {
        on_reconnect_ = std::move(notice);
    }
    std::uint64_t unacknowledged() const;
    std::error_code close();
    std::error_code poll(std::chrono::milliseconds wait);

    const welcome& server() const { return core_.peer(); }
    const table_stats& table() const { return core_.table(); }
    connection_stats stats() const;
    compression_stats compression() const {
        std::lock_guard lock(mu_);
        return core_.compression().stats();
    }
    std::string last_error() const {
        std::lock_guard lock(mu_);
        return last_error_;
    }
    // Without the mutex: the phase is an atomic (client/lib/connection_phase.hpp).
    bool is_open() const { return state_.is_open(); }
    const std::string& sender_id() const { return settings_.sender_id; }

    void skip_stored(bool on) {
        std::lock_guard lock(mu_);
        rerun_.skip_stored(on);
    }
    std::uint64_t stored_objects() const {
        std::lock_guard lock(mu_);
        return rerun_.stored_objects();
    }
    std::uint64_t skipped_objects() const {
        std::lock_guard lock(mu_);
        return rerun_.skipped();
    }
    // Options that failed check_options(): open() fails with invalid_options and this text.
    void refuse_options(std::string why) { invalid_options_ = std::move(why); }

  private:
    // `named_id`: client.sender_id was set, so the stream can be rerun. References, so that
    // nothing is moved from before `named_id` is read.
    connection_core(bool named_id, config::client_settings&& settings, std::string&& client_name);
    // One queued asynchronous call: `step` runs with mu_ held and says which count of acked
    // messages completes it (0: done at once).
    struct async_job {
        std::function<std::error_code(std::uint64_t& ack_target)> step;
        completion done;
        bool send = false;    // the send timeout applies
        bool marker = false;  // wait_started_jobs(): completes when reached, takes nothing
    };
    struct waiting_send {
        std::uint64_t target;  // complete once this many messages are acknowledged
        std::chrono::steady_clock::time_point deadline;
        bool timed;  // a send with a timeout (the deadline is not "never")
        completion done;
    };
    struct finished_op {
        completion done;
        std::error_code ec;
    };
    struct locked_sink;  // a batch's objects to send_locked
    void enqueue(async_job job);
    // Queues a send of `objects` objects unless options::max_async_sends are in flight, in
    // which case it completes (from the worker, as always) with too_many_in_flight.
    void enqueue_send(std::uint64_t objects, async_job job);
    void async_loop();
    void run_jobs(std::deque<async_job>& jobs, std::deque<waiting_send>& waiting,
                  std::size_t& timed, std::vector<finished_op>& finished);
    void complete_waiting(std::deque<waiting_send>& waiting, std::size_t& timed, std::error_code ec,
                          std::vector<finished_op>& finished);
    void stop_async();
    // Returns once the worker has run every asynchronous call started before it (close()).
    void wait_started_jobs();
    // One wait for acks: the socket watched unlocked for up to `wait`, then read with mu_ held.
    std::error_code take_acks(std::unique_lock<call_mutex>& lock, std::chrono::milliseconds wait);
    // Waits, taking in acks, until `target` messages are acknowledged or the deadline passes.
    std::error_code wait_acked(std::unique_lock<call_mutex>& lock, std::uint64_t target,
                               std::chrono::steady_clock::time_point deadline);
    template <class Source>  // message or typed_source
    std::error_code send_source(const Source& m);
    // The public calls, with mu_ held.
    template <class Source>
    std::error_code send_locked(const Source& m);
    std::error_code flush_locked();
    std::error_code close_locked();
    std::error_code poll_locked(std::chrono::milliseconds wait);
    // An error the linger thread met, given to the next call (and cleared): the caller hears
    // of it as if its own call had flushed.
    std::error_code take_background_error();
    // A call's outcome: success clears last_error().
    std::error_code settle(std::error_code ec);
    // Linger (client/lib/connection_linger.cpp): the process's linger service times the open
    // batch and watches the socket while the caller makes no call; work that may block runs
    // on a thread of the connection's own, started for it and ended when it is done.
    void start_linger();
    void stop_linger();
    // The service's turn: with mu_ free, what the connection needs next (never blocks).
    void turn() override;
    // mu_ was released by a call during which a turn found it taken: the turn, at the time the
    // call left for it.
    void ask_missed_turn();
    void linger_loop();
    // What linger sees now (client/lib/batch_linger.hpp), with mu_ held.
    linger_view linger_sees() const;
    // With mu_ held, when neither a write nor a read is due now: a time, the socket or nothing
    // for the service to watch.
    void hand_to_service(linger_step step, const linger_view& v);
    // With mu_ held: the linger thread runs `linger_loop()` (joining the one that ended).
    void start_linger_thread();
    // With mu_ held, at the end of every public call: a call that leaves work (a batch, frames
    // awaiting acks) while the service watches for nothing has it look after the caller's quiet.
    void arm_linger();
    // Writes every sealed frame, waiting for acks while the window is full.
    std::error_code write_output();
    // Writes what the sender offers now (resuming the connection if the write fails).
    std::error_code write_released();
    // A write failed: takes in what the daemon may have said before it closed, as an attempt
    // of the resume that follows (nothing resumed, no error recorded but the attempt's).
    void read_last_words();
    std::error_code write_all(std::span<const std::uint8_t> bytes);
    std::error_code wait_writable();
    // Waits until the socket is ready for `events` ({}), `wait` has passed (timed_out) or,
    // when `interruptible`, interrupt() was called (interrupted, at once).
    std::error_code wait_socket(short events, std::chrono::milliseconds wait, bool interruptible);
    // After interrupt(), how long a live connection still waits for a reply or for room in the
    // socket: a daemon that answers does within it.
    static constexpr std::chrono::milliseconds interrupted_wait{500};
    // wait_socket() for the daemon's reply or room in its socket, up to `wait`: interrupt()
    // ends a reconnect's wait at once and cuts a live connection's to interrupted_wait
    // (then interrupted).
    std::error_code wait_for_daemon(short events, std::chrono::milliseconds wait);
    // Sleeps `pause`, cut short by interrupt(); false once interrupted.
    bool pause_unless_interrupted(std::chrono::milliseconds pause);
    // Tells on_reconnect_ about the attempt about to start.
    void notify_reconnect(unsigned attempt, std::chrono::milliseconds pause,
                          const std::string& why);
    // Feeds the compression policy: the link's bandwidth from TCP_INFO and our blocked time.
    void measure(bool congested);
    std::error_code read_replies(bool block);
    std::error_code fail(std::error_code ec, std::string text);
    void close_socket();
    // Resume (client/lib/connection_resume.cpp). Resolves, connects, sets the socket options.
    std::error_code connect_socket();
    // Sends the hello (and nothing else) and reads until the welcome.
    std::error_code handshake();
    // The connection broke with `ec`: reconnect with backoff for resume.retry_for and resume
    // the stream, or give up with `ec` and `text`.
    std::error_code resume_after(std::error_code ec, std::string text);
    // The attempts of a resume until one is welcomed and replayed, or none may follow.
    handshake_verdict reconnect_until_resumed(const std::string& why);
    // One attempt: connect, hello, replay.
    handshake_verdict resume_attempt();
    template <class Start>
    std::error_code run_with_deadline(Start&& start, std::chrono::milliseconds timeout,
                                      std::size_t* bytes = nullptr);

    // Reruns (client/lib/connection_rerun.cpp): a message the daemon already holds, checked and
    // dropped; at open(), what the welcome says is stored.
    std::error_code skip_message(const message& m);
    void learn_stored();
    // close(): a rerun's input that ended before the stored objects did is another input.
    void check_skipped_all();

    std::mutex async_mu_;  // the queue of asynchronous calls
    std::condition_variable async_cv_;
    std::deque<async_job> async_jobs_;
    // Objects of the asynchronous sends started and not completed (options::max_async_sends).
    std::atomic<std::uint64_t> async_in_flight_{0};
    std::thread async_thread_;
    bool async_stop_ = false;
    std::atomic<std::int64_t> send_timeout_ms_{0};  // set by any thread, read by the worker
    // The fields below that change after construction are read and written with mu_ held, but
    // for state_'s phase (an atomic, for is_open()).
    // Every public call, the service's turns and the linger thread: a turn that finds it taken
    // is asked for again when it is released (client/lib/call_mutex.hpp).
    mutable call_mutex mu_;
    // Who looks after linger now: nobody (nothing to do), the service (a time or the socket
    // asked for) or the linger thread.
    enum class linger_owner : std::uint8_t { none, service, thread };
    linger_owner linger_owner_ = linger_owner::none;
    // The service's id for this connection; 0: not enrolled. Atomic: a turn that finds mu_
    // taken reads it to ask for another.
    std::atomic<std::uint64_t> linger_id_{0};
    bool linger_on_socket_ = false;  // the service watches the socket (not a time) for it
    std::thread linger_thread_;      // joined by the next start or stop_linger()
    bool linger_stop_ = false;
    // The coarse clock at the end of the caller's last call: the caller is quiet batch.linger
    // after it. Written by callers with mu_ held; read by the service's turns with it.
    std::uint64_t last_call_ns_ = 0;
    // When the service should look next, as the last call left it: what a call that ends after
    // a missed turn asks for (the batch's due time, or the caller's quiet).
    std::atomic<std::uint64_t> linger_next_ns_{0};
    std::error_code background_error_;
    config::client_settings settings_;
    asio::io_context io_;
    asio::ip::tcp::socket socket_;
    daemon_link stream_{socket_};  // TLS over socket_ when tls.enabled (client/lib/daemon_link.*)
    sender core_;
    connection_state state_;  // the phase (client/lib/connection_phase.hpp)
    mutable connection_stats stats_;
    std::string last_error_;
    // batch.linger, timed from the open batch's first message: the one linger rule of send(),
    // poll() and the linger thread (client/lib/batch_linger.hpp).
    batch_linger linger_{settings_.batch_linger};
    link_meter link_;
    compression_feed feed_;      // the compression policy's intervals and link readings
    bool replied_ = false;       // the daemon has sent bytes on this connection
    std::string attempt_error_;  // why the last reconnect attempt failed
    // resume.retry_for, counted from the last acknowledged progress (client/lib/retry_window.hpp).
    retry_window window_{settings_.resume_retry_for};
    void observe_progress(bool idle);
    void observe_progress();              // idle: everything written is acknowledged
    std::uint64_t written_messages_ = 0;  // messages_sealed() at the last write
    rerun_check rerun_;                   // skip_stored: the stored messages checked and dropped
    std::string invalid_options_;
    std::atomic<bool> interrupted_{false};  // interrupt() was called: no wait lasts from then on
    int interrupt_fd_ = -1;                 // an eventfd interrupt() writes; stays readable
    std::atomic<bool> no_grace_{false};     // interrupt_now(): not even interrupted_wait
    std::function<void(const reconnect_attempt&)> on_reconnect_;
};

}  // namespace objwire::client
