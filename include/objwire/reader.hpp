// Reading stored objects back from objwired (docs/PROTOCOL.md, "Reading back"): connects,
// says hello as a reader and yields every stored message with its journal offset and the id
// of the sender that stored it, decoded from the journal blocks the daemon serves exactly as
// stored. Blocking, like client::connection. Without follow the stream ends at what was
// durable when the reader connected; with follow next() waits for new objects, and with
// reconnect too, when the daemon goes away or restarts, it reconnects (with backoff, for
// resume.retry_for) and goes on at the next offset it has not handed out
// (client/lib/follow_resume.hpp; docs/LIBRARY.md, "Following and reconnecting"). TLS and
// the auth token come from the settings as for client::connection
// (client/lib/daemon_link.hpp).
//
// The implementation lives behind a pointer (client/lib/reader_core.hpp), as the
// connection's does.
//
//   client::reader r(options, {.from = 1000});
//   if (auto ec = r.open()) report(r.last_error());
//   client::stored_message m;
//   while (r.next(m)) use(m.offset, m.value);
//   if (r.error()) report(r.last_error());
#pragma once

#include <asio/associated_executor.hpp>
#include <asio/async_result.hpp>
#include <asio/dispatch.hpp>
#include <asio/execution/outstanding_work.hpp>
#include <asio/prefer.hpp>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include <objwire/errors.hpp>
#include <objwire/options.hpp>
#include <objwire/vocabulary.hpp>

namespace objwire::client {

struct read_options {
    // The first offset wanted: an object offset of a journal, a stream sequence (a block) of
    // a NATS stream.
    std::uint64_t from = 0;
    bool follow = false;  // after the stored objects, wait for new ones
    std::string sender;   // only this sender's objects (empty: every sender)
    // Instead of `from`: the durable end (only objects stored from now on), or the last N
    // objects (of `sender`, if given).
    bool at_end = false;
    std::uint64_t last = 0;
    // Or the first block stored at or after this time: milliseconds since the Unix epoch (0:
    // not by time). A journal only.
    std::uint64_t since_ms = 0;
    // A named durable cursor: the stream starts where its last ack left it (a new one where
    // from/at_end/last say), and ack() moves it.
    std::string cursor;
    // Instead of reading: list the cursors or delete `cursor` (cursors() after open()), move
    // (or make) `cursor` to `from` (set_cursor: open() fails with past_end, nothing changed,
    // beyond the daemon's durable end), or list the sender ids whose objects the daemon holds
    // (senders() after open()).
    read_request request = read_request::none;
    // Objects below this offset are not handed out: a reconnecting reader's next offset, when
    // the daemon starts before it (at a cursor's last ack).
    std::uint64_t skip_below = 0;
    // Set from a signal handler: a waiting next() then returns false and stopped() is true.
    const std::atomic<bool>* stop = nullptr;
    // With `stop`: called each time a wait for the daemon has lasted another 200 ms (a cursor
    // reader acknowledges then what it wrote before it went idle).
    std::function<void()> on_wait;
    std::string client_name = "objwire read";
    // The largest frame accepted: one stored block and its frame header. The daemon's blocks
    // are one read of a sender's connection (a few MiB at most with the default limits). The
    // settings' read.max_block_bytes caps it further.
    std::uint32_t max_frame_bytes = 256u << 20;
    // How long the daemon may stay silent before the read fails: without follow (it sends
    // without pause until the end), and with follow (0: wait for new objects forever).
    std::chrono::milliseconds idle_timeout{30'000};
    std::chrono::milliseconds follow_idle_timeout{0};
    // With follow: a lost connection (the daemon stopped, restarted or was killed) is
    // reconnected inside next(), at once and then after 100 ms doubling to 2 s, while the
    // failures in a row last less than the settings' resume.retry_for (0: never), and the read
    // goes on at the next offset. False (the default, as before it existed): the loss ends
    // next() with the error. `objwire read --follow` sets it.
    bool reconnect = false;
    // With `stop`: a descriptor that becomes readable when the stop flag is set (the read end
    // of a pipe the signal handler writes a byte to). Every wait - the connect, the daemon's
    // data, the pause between reconnections - then ends at once; without it, within 200 ms.
    int stop_fd = -1;
    // Called before each wait for a reconnection: why the last connection or try failed, and
    // the offset the next connection starts at.
    std::function<void(const std::string& why, std::uint64_t resume_at)> on_reconnect;
};

// The sender id of a stored block, held once for every object decoded from it: a block of
// millions of objects under a 4 KiB id costs the id once, not once per object. Reads as a
// const std::string.
class shared_sender_id {
  public:
    shared_sender_id() = default;
    explicit shared_sender_id(std::string id)
        : id_(std::make_shared<const std::string>(std::move(id))) {}
    const std::string& str() const { return id_ ? *id_ : none(); }
    operator const std::string&() const { return str(); }  // NOLINT: reads as the string
    bool empty() const { return str().empty(); }
    std::size_t size() const { return str().size(); }
    const char* c_str() const { return str().c_str(); }
    friend bool operator==(const shared_sender_id& a, std::string_view b) { return a.str() == b; }
    friend bool operator==(const shared_sender_id& a, const shared_sender_id& b) {
        return a.str() == b.str();
    }
    friend std::ostream& operator<<(std::ostream& os, const shared_sender_id& s) {
        return os << s.str();
    }

  private:
    static const std::string& none() {
        static const std::string empty;
        return empty;
    }
    std::shared_ptr<const std::string> id_;
};

struct stored_message {
    // The journal offset; from a NATS stream, the object's place in its connection's blocks.
    std::uint64_t offset = 0;
    shared_sender_id sender_id;
    message value;
    // When the daemon stored the object's block: milliseconds since the Unix epoch (the
    // journal block header's time, docs/JOURNAL.md), the same for every object of a block.
    // Last, so that {offset, sender, value} still builds one.
    std::uint64_t time_ms = 0;
};

// Offsets the daemon's journal lost to damage: [first, end). The objects around them read.
struct lost_offsets {
    std::uint64_t first = 0;
    std::uint64_t end = 0;
};

struct read_stats {
    std::uint64_t objects = 0;  // handed out by next()
    std::uint64_t blocks = 0;   // journal_block frames received
    std::uint64_t wire_bytes_in = 0;
};

class reader_core;  // client/lib/reader_core.hpp

class reader {
  public:
    // Options out of range are refused by open() (client_errc::invalid_options, with
    // last_error() naming the key).
    reader(const options& opts, read_options read);
    ~reader();
    // Movable (its worker threads hold the implementation, which does not move); a moved-from
    // reader may only be destroyed or assigned to.
    reader(reader&&) noexcept;
    reader& operator=(reader&&) noexcept;
    reader(const reader&) = delete;
    reader& operator=(const reader&) = delete;

    // Connects and exchanges hello and welcome; a refusal (sink that cannot be read, token)
    // is an error with the daemon's reason in last_error(). Not retried: a follower
    // reconnects only once it has been connected.
    std::error_code open();
    // The next stored message; false at the end of the stream or on an error (see error()).
    // A follower's lost connection is reconnected here first (read_options::reconnect): no
    // object is handed out twice and none is skipped.
    bool next(stored_message& out);
    // next() on the reader's own worker thread, with any asio completion token and the
    // signature void(std::error_code, std::optional<stored_message>): the message, or none at
    // the end of the stream or after a stop (the error code then says whether it failed).
    // The caller's executor never waits on the daemon; the completion runs on the handler's
    // associated executor (a plain callback's: on the worker, with nothing of the reader
    // locked). One at a time with the other calls: start the next once the last completed.
    // The destructor ends a pending one within 200 ms (asio::error::operation_aborted).
    template <class Token>
    auto async_next(Token&& token) {
        using signature = void(std::error_code, std::optional<stored_message>);
        return asio::async_initiate<Token, signature>(
            [this](auto handler) {
                auto work = asio::prefer(asio::get_associated_executor(handler),
                                         asio::execution::outstanding_work.tracked);
                auto h = std::make_shared<decltype(handler)>(std::move(handler));
                start_next([h, work](std::error_code ec, std::optional<stored_message> m) {
                    asio::dispatch(work, [h, ec, m = std::move(m)]() mutable {
                        std::move (*h)(ec, std::move(m));
                    });
                });
            },
            token);
    }
    // Messages next() can hand out without waiting for the daemon (the current block's rest,
    // those below the start included).
    std::size_t ready() const;
    // Ends a following read: says goodbye and closes. A cursor reader waits (up to the idle
    // timeout) for the daemon's answer, which comes once the daemon has let go of the name.
    void close();
    // Connected now (false after the end, a failure, close(), or during a reconnection).
    bool is_open() const;
    // A cursor reader: every object below next_offset is written out; the daemon may move the
    // cursor there. Sent before the reader next waits for the daemon, or with close(),
    // finish_cursor() or the reader's end: acks in between coalesce (the newest wins), so
    // acking every object is as cheap as acking every 1,000.
    std::error_code ack(std::uint64_t next_offset);
    // A cursor reader's clean end: the last ack, a goodbye, and the daemon's goodbye once the
    // cursor is stored and its name let go (objects still arriving are dropped: the cursor is
    // before them). When it returns, another reader may take the cursor.
    std::error_code finish_cursor(std::uint64_t next_offset);
    // The offset the daemon started the stream at (from, the end, the last N or the cursor),
    // on the first connection.
    std::uint64_t start() const;
    // The offset a reconnection would start at: after the last object handed out (and the
    // last gap reported).
    std::uint64_t resume_at() const;
    // Connections made after the first (a follower that lost its daemon).
    std::uint64_t reconnections() const;
    // The stop flag ended a wait (not an error), for the daemon or between reconnections.
    bool stopped() const;
    // After a read_request::list_cursors open().
    const cursor_list& cursors() const;
    // After a read_request::list_senders open(): ascending by id.
    const sender_list& senders() const;

    std::error_code error() const;
    const std::string& last_error() const;
    // The daemon's welcome: journal_first_offset and journal_end_offset say what is stored.
    const welcome& server() const;
    // The welcome said offsets count blocks (a NATS stream's sequences), not objects.
    bool offsets_count_blocks() const;
    // The daemon said goodbye: everything asked for was delivered.
    bool finished() const;
    // Over every connection.
    const read_stats& stats() const;
    // Gaps the daemon reported so far, in order (a gap frame, docs/PROTOCOL.md 1.2), each
    // once: a reconnection that hears of a gap again does not add it.
    const std::vector<lost_offsets>& gaps() const;

  private:
    using next_completion = std::function<void(std::error_code, std::optional<stored_message>)>;
    void start_next(next_completion done);
    std::unique_ptr<reader_core> core_;
};

}  // namespace objwire::client
