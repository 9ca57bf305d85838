// The reader's implementation behind client::reader (include/objwire/reader.hpp, which
// documents the calls): the socket, the reader protocol's core, the current block and the
// follower's resume rules. Internal: the public header holds only a pointer to it.
#pragma once

#include <asio.hpp>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <vector>

#include <objwire/reader.hpp>

#include "client/lib/daemon_link.hpp"
#include "client/lib/follow_resume.hpp"
#include "config/settings.hpp"
#include "proto/block_objects.hpp"
#include "proto/control.hpp"
#include "proto/journal_block.hpp"
#include "proto/read_client.hpp"
#include "proto/value.hpp"

namespace objwire::client {

class reader_core {
  public:
    reader_core(config::client_settings settings, read_options options);
    ~reader_core();
    reader_core(const reader_core&) = delete;
    reader_core& operator=(const reader_core&) = delete;

    // Connects and exchanges hello and welcome; a refusal (sink that cannot be read, token)
    // is an error with the daemon's reason in last_error(). Not retried: a follower
    // reconnects only once it has been connected.
    std::error_code open();
    // The next stored message; false at the end of the stream or on an error (see error()).
    // A follower's lost connection is reconnected here first (read_options::reconnect): no
    // object is handed out twice and none is skipped.
    bool next(stored_message& out);
    // Messages next() can hand out without waiting for the daemon (the current block's rest,
    // those below the start included).
    std::size_t ready() const { return objects_.left(); }
    // Ends a following read: says goodbye and closes. A cursor reader waits (up to the idle
    // timeout) for the daemon's answer, which comes once the daemon has let go of the name.
    void close();
    // Connected now (false after the end, a failure, close(), or during a reconnection).
    bool is_open() const { return open_; }
    // A cursor reader: every object below next_offset is written out; the daemon may move the
    // cursor there. Sent before the next wait for the daemon (send_pending_ack).
    std::error_code ack(std::uint64_t next_offset);
    // A cursor reader's clean end: the last ack, a goodbye, and the daemon's goodbye once the
    // cursor is stored and its name let go (objects still arriving are dropped: the cursor is
    // before them). When it returns, another reader may take the cursor.
    std::error_code finish_cursor(std::uint64_t next_offset);
    // The offset the daemon started the stream at (from, the end, the last N or the cursor),
    // on the first connection.
    std::uint64_t start() const { return start_; }
    // The offset a reconnection would start at: after the last object handed out (and the
    // last gap reported).
    std::uint64_t resume_at() const { return resume_.resume_at(); }
    // Connections made after the first (a follower that lost its daemon).
    std::uint64_t reconnections() const { return reconnections_; }
    // The stop flag ended a wait (not an error), for the daemon or between reconnections.
    bool stopped() const { return stopped_; }
    // After a read_request::list_cursors open().
    const cursor_list& cursors() const { return core_ ? core_->cursors() : no_cursors_; }
    // After a read_request::list_senders open(): ascending by id.
    const sender_list& senders() const { return core_ ? core_->senders() : no_senders_; }

    std::error_code error() const { return error_; }
    const std::string& last_error() const { return last_error_; }
    // The daemon's welcome: journal_first_offset and journal_end_offset say what is stored.
    const welcome& server() const { return core_ ? core_->peer() : no_welcome_; }
    // The welcome said offsets count blocks (a NATS stream's sequences), not objects.
    bool offsets_count_blocks() const { return core_ && core_->offsets_are_blocks(); }
    // The daemon said goodbye: everything asked for was delivered.
    bool finished() const { return finished_; }
    // Over every connection.
    const read_stats& stats() const { return stats_; }
    // Gaps the daemon reported so far, in order (a gap frame, docs/PROTOCOL.md 1.2), each
    // once: a reconnection that hears of a gap again does not add it.
    const std::vector<lost_offsets>& gaps() const { return gaps_; }

    // Options that failed check_options(): open() fails with invalid_options and this text.
    void refuse_options(std::string why) { invalid_options_ = std::move(why); }
    // async_next (client/lib/reader_async.cpp): next() on the reader's worker thread, the
    // completions in the order they were started.
    using next_completion = std::function<void(std::error_code, std::optional<stored_message>)>;
    void start_next(next_completion done);

  private:
    bool fail(std::error_code ec, std::string text);
    // One connection: connect, hello, welcome; floor_ set.
    std::error_code connect();
    // next() on the current connection.
    bool next_here(stored_message& out);
    // After next_here() ended on a lost connection: reconnects as follow_resume says. False:
    // not a follower, not worth it, out of time, or stopped meanwhile.
    bool reconnect();
    // Waits `d` unless the stop flag is set meanwhile; false when it is.
    bool wait_unless_stopped(std::chrono::milliseconds d);
    bool stop_requested() const {
        return closing_.load() || (options_.stop && options_.stop->load());
    }
    // Waits (bounded) for the daemon's goodbye after ours: a cursor is let go by then.
    bool await_goodbye();
    // Reads until the protocol core has the daemon's next event; nullopt when the connection
    // failed or the stop flag ended the wait.
    std::optional<read_client::event> next_event();
    bool on_block();
    void on_gap();
    std::error_code flush_output();
    // The newest ack, when one is not yet sent.
    std::error_code send_pending_ack();
    std::error_code write_all(std::span<const std::uint8_t> bytes);

    config::client_settings settings_;
    read_options options_;
    asio::io_context io_;
    asio::ip::tcp::socket socket_;
    daemon_link link_;  // TCP, or TLS when tls.enabled
    // The reader protocol's rules (proto/read_client.hpp); made by open() with the hello.
    std::optional<read_client> core_;
    // The current block, decoded one message per next(): its bytes stay in the core's buffer,
    // which is not read again until the block is used up, so the reader holds one block and
    // one decoded message whatever the block announces (docs/PROTOCOL.md 1.2, "Memory").
    block_objects objects_;
    shared_sender_id block_sender_;
    std::uint64_t block_time_ms_ = 0;
    read_stats stats_;
    std::vector<lost_offsets> gaps_;
    std::error_code error_;
    std::string last_error_;
    bool open_ = false;
    bool finished_ = false;
    bool stopped_ = false;
    std::uint64_t floor_ = 0;  // objects below it are not handed out
    std::uint64_t start_ = 0;  // floor_ of the first connection
    // The last position a cursor reader acknowledged: said again after a reconnection, since a
    // killed daemon may not have stored it.
    std::uint64_t acked_ = 0;
    bool ack_unsent_ = false;  // acked_ moved since the last ack frame
    std::uint64_t reconnections_ = 0;
    std::uint64_t bytes_before_ = 0;  // wire bytes of the connections before this one
    follow_resume resume_;
    std::string invalid_options_;
    // The worker of async_next: started by the first one, stopped by the destructor, which
    // also ends a wait for the daemon within stop_poll (closing_).
    void async_loop();
    void stop_async();
    std::mutex async_mu_;
    std::condition_variable async_cv_;
    std::deque<next_completion> async_jobs_;
    std::thread async_thread_;
    bool async_stop_ = false;
    bool async_started_ = false;
    std::atomic<bool> closing_{false};
    static inline const welcome no_welcome_{};
    static inline const cursor_list no_cursors_{};
    static inline const sender_list no_senders_{};
};

}  // namespace objwire::client
