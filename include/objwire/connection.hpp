// The client library: one connection to objwired that sends messages and waits for their
// acknowledgements. A blocking API over the sans-I/O proto::sender - messages are batched into
// frames, each frame goes out in one write, acks are read as they arrive, and send() blocks
// while the send window is full - flow.max_in_flight bytes unacknowledged, or the daemon's
// credit if that is smaller - so a slow daemon slows its producer.
//
// Linger is a timer: a batch that has waited batch.linger is written and its acknowledgements
// taken in while the caller makes no call, so a producer that goes quiet needs no further call
// for its last objects to leave (client/lib/connection_linger.cpp; one thread per process
// watches every connection).
//
// Threads: one connection may be used from several threads at once. Every public call holds
// the connection's mutex, so calls are serialized (one at a time, in the order they take it)
// and the messages of one thread keep their order; a send() that waits for the window holds
// the others back, as the window intends.
//
// The implementation lives behind a pointer (client/lib/connection_core.hpp): this header
// holds no socket, protocol state or setting of the library's own, so they may change without
// changing the ABI (docs/LIBRARY.md, "Versions and ABI"). asio is part of the surface by design:
// the asynchronous calls take its completion tokens.
//
//   objwire::client::connection c(options);
//   if (auto ec = c.open()) ...;          // connect + handshake
//   c.send(message);                      // any number of times
//   if (auto ec = c.close()) ...;         // flush, wait for every ack and the goodbye
#pragma once

#include <asio/associated_executor.hpp>
#include <asio/async_result.hpp>
#include <asio/dispatch.hpp>
#include <asio/execution/outstanding_work.hpp>
#include <asio/prefer.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <system_error>
#include <type_traits>
#include <vector>

#include <objwire/errors.hpp>
#include <objwire/options.hpp>
#include <objwire/vocabulary.hpp>

namespace objwire::typed {
template <class T>
class record_source;  // include/objwire/typed.hpp

// Whether include/objwire/typed.hpp was included: only then is record_source complete.
template <class T>
concept typed_layer_included = requires {
    sizeof(record_source<T>);
};
}  // namespace objwire::typed

namespace objwire::client {

namespace detail {
// Where a batch of async_send_many hands its objects, one at a time, on the worker thread.
class batch_sink {
  public:
    virtual std::error_code put(const message& m) = 0;
    virtual std::error_code put(const typed_source& m) = 0;

  protected:
    ~batch_sink() = default;
};
}  // namespace detail

struct connection_stats {
    std::uint64_t objects_sent = 0;
    std::uint64_t objects_acked = 0;
    std::uint64_t frames = 0;
    std::uint64_t wire_bytes_out = 0;  // every byte written to the socket
    std::uint64_t wire_bytes_in = 0;
    std::uint64_t write_calls = 0;  // write system calls on the socket, each one counted
    std::uint64_t blocked_ns = 0;   // time spent waiting for the socket or for acks
    std::uint64_t receiver_table_peak_bytes = 0;
    std::uint64_t reconnects = 0;     // broken connections resumed (resume.retry_for)
    std::uint64_t frames_resent = 0;  // frames sent again after a reconnect
    // The send window: min(flow.max_in_flight, the daemon's credit) - the credit of its
    // welcome (field 11), then of the last ack that carried one (field 7) as other senders
    // come and go.
    std::uint64_t window_bytes = 0;
    // The most data-frame bytes written and unacknowledged at once: at most the largest
    // window_bytes, or one frame when a single frame is larger than the window.
    std::uint64_t peak_unacked_bytes = 0;
    // Data-frame bytes written and not yet acknowledged now: a window that shrank holds new
    // frames back until acks bring this under it.
    std::uint64_t unacked_bytes = 0;
};

class connection_core;  // client/lib/connection_core.hpp

// A reconnect about to be tried (resume.retry_for): why the connection or the last attempt
// failed, the attempt's number since the break (1: at once), the pause before it, and what is
// left of the retry window.
struct reconnect_attempt {
    std::string why;
    unsigned attempt = 0;
    std::chrono::milliseconds pause{0};
    std::chrono::milliseconds window_left{0};
};

class connection {
  public:
    // Options out of range are not refused here but by open() (client_errc::invalid_options,
    // with last_error() naming the field).
    explicit connection(const options& opts, std::string client_name = "objwire");
    ~connection();
    // Movable (its worker threads hold the implementation, which does not move); a moved-from
    // connection may only be destroyed or assigned to.
    connection(connection&&) noexcept;
    connection& operator=(connection&&) noexcept;
    connection(const connection&) = delete;
    connection& operator=(const connection&) = delete;

    std::error_code open();
    // open(), trying again while the daemon cannot be reached (not listening yet, restarting):
    // at once, then with a backoff from 50 ms doubling to 1 s, until `retry_for` has passed.
    // A refusal (a bad token, a protocol error) is returned at once.
    std::error_code open(std::chrono::milliseconds retry_for);
    std::error_code send(const message& m);
    // A message written straight from the program's data (proto/typed_writer.hpp).
    std::error_code send(const typed_source& m);
    // A described struct (include/objwire/typed.hpp, which must be included): encoded from its
    // fields into the frame, the same bytes as send(typed::to_message(object)).
    template <class T>
    requires(!std::is_convertible_v<const T&, const message&> &&
             !std::is_base_of_v<typed_source, T>) std::error_code send(const T& object) {
        if constexpr (!typed::typed_layer_included<T>) {
            // Only this message: the discarded branch below would add "incomplete type".
            static_assert(typed::typed_layer_included<T>,
                          "sending a struct needs #include <objwire/typed.hpp> (typed records)");
            return {};
        } else {
            const typed::record_source<T> source(object);
            const std::error_code ec = send(static_cast<const typed_source&>(source));
            if (ec && !source.refused_at().empty()) name_refused_field(source.refused_at());
            return ec;
        }
    }
    // Writes the open batch now instead of waiting for batch.max_bytes or batch.linger.
    std::error_code flush();
    // Writes the open batch and waits until every object sent so far is acknowledged as
    // durable: timed_out if that takes longer than `timeout` (the objects stay in the stream
    // and may still be stored; unacknowledged() says how many are not yet).
    std::error_code flush(std::chrono::milliseconds timeout);

    // Asynchronous calls (client/lib/connection_async.cpp). Each takes any asio completion
    // token - a callback, asio::use_awaitable, asio::use_future, asio::experimental::deferred -
    // with the signature void(std::error_code). Starting one only queues it for the
    // connection's own worker thread, so the caller's executor is never blocked; the
    // completion runs on the handler's associated executor (a coroutine's, or one bound with
    // asio::bind_executor); a plain callback runs on the worker thread, with no lock of the
    // connection held. Operations run in the order they were started.
    //
    // async_send completes when the message is acknowledged as durable (it leaves with its
    // batch, within batch.linger), or with timed_out when set_send_timeout() is set and passed
    // first, or with the error that ended the connection - or at once with too_many_in_flight
    // when options::max_async_sends objects of asynchronous sends are started and not
    // completed (it is then not queued).
    template <class Token>
    auto async_send(message m, Token&& token) {
        return asio::async_initiate<Token, void(std::error_code)>(
            [this](auto handler, message msg) {
                start_send(std::move(msg), completion_for(std::move(handler)));
            },
            token, std::move(m));
    }
    // A described struct (include/objwire/typed.hpp), taken by value: the worker encodes it
    // from its fields as send(object) does, so nothing is built in between. A refusal names
    // the field in last_error(), as send(object) does.
    template <class T, class Token>
    requires(!std::is_convertible_v<const T&, const message&> &&
             !std::is_base_of_v<typed_source, T>) auto async_send(T object, Token&& token) {
        static_assert(typed::typed_layer_included<T>,
                      "sending a struct needs #include <objwire/typed.hpp> (typed records)");
        return asio::async_initiate<Token, void(std::error_code)>(
            [this](auto handler, T obj) {
                auto owned = std::make_shared<owned_record<T>>(std::move(obj));
                std::shared_ptr<const typed_source> source(owned, &owned->source);
                auto refused_at = [owned] { return owned->source.refused_at(); };
                start_send(std::move(source), refused_at, completion_for(std::move(handler)));
            },
            token, std::move(object));
    }
    // A batch of messages or described structs, sent in order by one job of the worker, with
    // one completion once every one of them is acknowledged as durable: the cost of an
    // asynchronous send (a hand-off, a completion) paid once per batch instead of once per
    // object. A refusal ends the batch there - the objects before it are in the stream - and
    // last_error() names the index and the field: "message refused: batch[3] Order.id: ...".
    template <class T, class Token>
    auto async_send_many(std::vector<T> batch, Token&& token) {
        return asio::async_initiate<Token, void(std::error_code)>(
            [this](auto handler, std::vector<T> objects) {
                const auto count = objects.size();
                start_send_many(count, batch_step_for(std::move(objects)),
                                completion_for(std::move(handler)));
            },
            token, std::move(batch));
    }
    // Completes when everything sent before it is acknowledged as durable.
    template <class Token>
    auto async_flush(Token&& token) {
        return asio::async_initiate<Token, void(std::error_code)>(
            [this](auto handler) { start_flush(completion_for(std::move(handler))); }, token);
    }
    // close() on the worker thread: completes once every ack and the goodbye are in.
    template <class Token>
    auto async_close(Token&& token) {
        return asio::async_initiate<Token, void(std::error_code)>(
            [this](auto handler) { start_close(completion_for(std::move(handler))); }, token);
    }
    // How long an async_send may wait for its acknowledgement; zero (the default) waits as
    // long as the connection lives.
    void set_send_timeout(std::chrono::milliseconds timeout);
    // Objects given to send() that the daemon has not acknowledged: after a failure, these
    // are the last ones sent (a rerun with the same client.sender_id and skip_stored(true)
    // sends exactly them again, docs/LIBRARY.md).
    std::uint64_t unacknowledged() const;
    // Sends what is left - the asynchronous sends started before it included - waits for every
    // acknowledgement and the daemon's goodbye.
    std::error_code close();
    // Takes in the daemon's replies, waiting up to `wait` for some to arrive: for callers that
    // interleave sending with watching stats().objects_acked (the daemon's forward sink).
    // A batch that has waited batch.linger is written here too, as linger would.
    std::error_code poll(std::chrono::milliseconds wait);

    // The daemon's welcome: its limits, codecs, credit, sink.
    const welcome& server() const;
    // The sender's half of the back-reference table (hits, misses, evictions, resets...).
    const table_stats& table() const;
    // A copy, taken under the connection's mutex (linger may be taking in acks).
    connection_stats stats() const;
    // The compression policy's decision and inputs (estimated link, ratio, speeds, counts).
    compression_stats compression() const;
    // What went wrong, for people: the daemon's reason when it refused us, a peer that is not
    // objwired, a call before open(). Set by every call that fails; cleared by a later call
    // that succeeds, so it always speaks of the last failure still in force.
    std::string last_error() const;
    // Whether send() can go on: false before open(), after close(), and once the connection
    // broke and could not be resumed (an error of send() for one message leaves it open).
    bool is_open() const;
    // The stream's id in the daemon (client.sender_id, or the random one it got).
    const std::string& sender_id() const;

    // Reruns (docs/PROTOCOL.md 1.1, "Reruns"; client/lib/connection_rerun.cpp). Called before
    // open(): the messages given to send() are the whole stream of the configured sender id,
    // from its first object - a rerun of an input, or of an input that grew since. open()
    // learns how many objects the id has stored (stored_objects()); send() then takes that
    // many first messages as already stored - it checks their digest against the one stored
    // with them and sends nothing for them - and sends the rest. An input that is not the one
    // stored (another file, an edited prefix, fewer objects) fails with input_mismatch before
    // any of its objects is sent: with that many messages (or at close(), for a shorter one).
    // Each input object is then stored exactly once in all. A digest cannot be checked for
    // objects stored without one (by a client that reported none): those are skipped unchecked.
    void skip_stored(bool on);
    // At open(): objects of this sender id the daemon held (welcome field 17).
    std::uint64_t stored_objects() const;
    // Messages send() took as already stored so far.
    std::uint64_t skipped_objects() const;

    // Ends the connection's waits for the daemon, from then on: a reconnect (its pause, connect,
    // TLS handshake, the wait for the welcome) gives up at once; a send(), flush() or close()
    // waiting for room in the send window, for the socket or for a reply waits at most 500 ms
    // more - a daemon that answers does within it, so what is in flight still gets acknowledged
    // - and then returns client_errc::interrupted, leaving the connection closed (what was
    // acknowledged stays counted in stats()). poll() and flush(timeout) still wait as long as
    // their caller says. Async-signal-safe, for a SIGINT or SIGTERM handler (a flag and one
    // write(2) to an eventfd every wait watches); callable from any thread.
    void interrupt() noexcept;
    // As interrupt(), without the 500 ms more for replies: a wait for the daemon ends at once,
    // what is in flight stays unacknowledged. For a caller that must answer a signal at once
    // (the Python module's Ctrl-C) rather than count the acknowledgements still coming.
    void interrupt_now() noexcept;
    // Called before each reconnect attempt, on the thread that resumes (the caller's, or the
    // one linger started for the connection), with the connection's lock held: it must not call the
    // connection. Set before open().
    void on_reconnect(std::function<void(const reconnect_attempt&)> notice);

  private:
    using completion = std::function<void(std::error_code)>;
    // Runs the handler on its associated executor, keeping that executor's work counted
    // until then (an io_context's run() does not return under a pending send). Dispatched:
    // the completion always comes from the worker thread, never from inside the call that
    // started it, so a handler whose executor may run it anywhere (a plain callback's system
    // executor) runs at once on the worker - no thread woken per acknowledged send - and an
    // io_context's or a strand's gets it posted.
    template <class Handler>
    static completion completion_for(Handler handler) {
        auto work = asio::prefer(asio::get_associated_executor(handler),
                                 asio::execution::outstanding_work.tracked);
        auto h = std::make_shared<Handler>(std::move(handler));
        return [h, work](std::error_code ec) {
            asio::dispatch(work, [h, ec]() mutable { std::move (*h)(ec); });
        };
    }
    // A struct and the writer of its fields, alive until the worker has encoded it.
    template <class T>
    struct owned_record {
        explicit owned_record(T v) : value(std::move(v)) {}
        T value;
        typed::record_source<T> source{value};
    };
    void start_send(message m, completion done);
    void start_send(std::shared_ptr<const typed_source> source,
                    std::function<std::string()> refused_at, completion done);
    // Sends object `index` of a batch to `out`; a struct's refusal leaves its field path in
    // `refused_at`.
    using batch_step = std::function<std::error_code(std::size_t index, detail::batch_sink& out,
                                                     std::string& refused_at)>;
    template <class T>
    static batch_step batch_step_for(std::vector<T> objects) {
        auto owned = std::make_shared<std::vector<T>>(std::move(objects));
        return [owned](std::size_t i, detail::batch_sink& out, std::string& refused_at) {
            if constexpr (std::is_convertible_v<const T&, const message&>) {
                return out.put(static_cast<const message&>((*owned)[i]));
            } else {
                static_assert(
                    typed::typed_layer_included<T>,
                    "sending a struct needs #include <objwire/typed.hpp> (typed records)");
                const typed::record_source<T> source((*owned)[i]);
                const std::error_code ec = out.put(static_cast<const typed_source&>(source));
                if (ec) refused_at = source.refused_at();
                return ec;
            }
        };
    }
    void start_send_many(std::size_t count, batch_step step, completion done);
    void start_flush(completion done);
    void start_close(completion done);
    // A struct's refusal names its field first: "message refused: Order.items[3].name: ...".
    void name_refused_field(const std::string& path);

    std::unique_ptr<connection_core> core_;
};

}  // namespace objwire::client
