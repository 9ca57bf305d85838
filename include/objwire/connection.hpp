// The client library: one connection to objwired that sends messages and waits for their
// acknowledgements. A blocking API over the sans-I/O proto::sender - messages are batched into
// frames, each frame goes out in one write, acks are read as they arrive, and send() blocks
// while the send window is full - flow.max_in_flight bytes unacknowledged, or the daemon's
// credit if that is smaller - so a slow daemon slows its producer.
//
//   objwire::client::connection c(settings);
//   if (auto ec = c.open()) ...;          // connect + handshake
//   c.send(message);                      // any number of times
//   if (auto ec = c.close()) ...;         // flush, wait for every ack and the goodbye
#pragma once

#include <asio.hpp>
#include <chrono>
#include <cstdint>
#include <string>
#include <system_error>
#include <type_traits>

#include "client/lib/link_meter.hpp"
#include "client/lib/retry_window.hpp"
#include "client/lib/transport.hpp"
#include "config/settings.hpp"
#include "proto/sender.hpp"

namespace objwire::typed {
template <class T>
class record_source;  // include/objwire/typed.hpp
}

namespace objwire::client {

// Errors of the connection itself; protocol refusals come as objwire.proto codes.
enum class client_errc {
    connect_failed = 1,
    timed_out,
    connection_lost,
    not_open,
    input_mismatch,  // a rerun's input is not the one its sender id stored (skip_stored)
};
const std::error_category& client_category() noexcept;
inline std::error_code make_error_code(client_errc e) noexcept {
    return {static_cast<int>(e), client_category()};
}

// A sender state after its welcome: streaming, or closing when a connection broke inside
// close() and was resumed (the replay queues the goodbye again).
bool welcomed(sender::state st);

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
    // The send window: min(flow.max_in_flight, the daemon's credit, welcome field 11).
    std::uint64_t window_bytes = 0;
    // The most data-frame bytes written and unacknowledged at once: at most window_bytes, or
    // one frame when a single frame is larger than the window.
    std::uint64_t peak_unacked_bytes = 0;
};

class connection {
  public:
    explicit connection(config::client_settings settings, std::string client_name = "objwire");
    ~connection();
    connection(const connection&) = delete;
    connection& operator=(const connection&) = delete;

    std::error_code open();
    std::error_code send(const message& m);
    // A message written straight from the program's data (proto/typed_writer.hpp).
    std::error_code send(const typed_source& m);
    // A described struct (include/objwire/typed.hpp, which must be included): encoded from its
    // fields into the frame, the same bytes as send(typed::to_message(object)).
    template <class T>
    requires(!std::is_convertible_v<const T&, const message&> &&
             !std::is_base_of_v<typed_source, T>) std::error_code send(const T& object) {
        return send(static_cast<const typed_source&>(typed::record_source<T>(object)));
    }
    // Writes the open batch now instead of waiting for batch.max_bytes or batch.linger.
    std::error_code flush();
    // Sends what is left, waits for every acknowledgement and the daemon's goodbye.
    std::error_code close();
    // Takes in the daemon's replies, waiting up to `wait` for some to arrive: for callers that
    // interleave sending with watching stats().objects_acked (the daemon's forward sink).
    // Also the idle flush: a batch that has waited batch.linger is written (the wait ends
    // then), so a producer that goes quiet calls poll() - or flush() - for its last objects.
    std::error_code poll(std::chrono::milliseconds wait);

    const welcome& server() const { return core_.peer(); }
    // The sender's half of the back-reference table (hits, misses, evictions, resets...).
    const table_stats& table() const { return core_.table(); }
    const connection_stats& stats() const;
    // The compression policy's decision and inputs (estimated link, ratio, speeds, counts).
    compression_stats compression() const { return core_.compression().stats(); }
    // What went wrong, for people: the daemon's reason when it refused us.
    std::string last_error() const { return last_error_; }
    // Whether send() can go on: false before open(), after close(), and once the connection
    // broke and could not be resumed (an error of send() for one message leaves it open).
    bool is_open() const { return open_; }
    // The stream's id in the daemon (client.sender_id, or the random one it got).
    const std::string& sender_id() const { return settings_.sender_id; }

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
    void skip_stored(bool on) { skip_stored_ = on; }
    // At open(): objects of this sender id the daemon held (welcome field 17).
    std::uint64_t stored_objects() const { return stored_at_open_; }
    // Messages send() took as already stored so far.
    std::uint64_t skipped_objects() const { return skipped_; }

  private:
    template <class Source>  // message or typed_source
    std::error_code send_source(const Source& m);
    // Writes every sealed frame, waiting for acks while the window is full.
    std::error_code write_output();
    // Writes what the sender offers now (resuming the connection if the write fails).
    std::error_code write_released();
    std::error_code write_all(std::span<const std::uint8_t> bytes);
    std::error_code wait_writable();
    // Feeds the compression policy: the link's bandwidth from TCP_INFO and our blocked time.
    void measure(bool congested);
    void apply_socket_options();
    std::error_code read_replies(bool block);
    std::error_code fail(std::error_code ec, std::string text);
    // Resume (client/lib/connection_resume.cpp). Resolves, connects, sets the socket options.
    std::error_code connect_socket();
    // Sends the hello (and nothing else) and reads until the welcome.
    std::error_code handshake();
    // The connection broke with `ec`: reconnect with backoff for resume.retry_for and resume
    // the stream, or give up with `ec` and `text`.
    std::error_code resume_after(std::error_code ec, std::string text);
    template <class Start>
    std::error_code run_with_deadline(Start&& start, std::chrono::milliseconds timeout,
                                      std::size_t* bytes = nullptr);

    // Reruns (client/lib/connection_rerun.cpp): a message the daemon already holds, checked and
    // dropped; at open(), what the welcome says is stored.
    std::error_code skip_message(const message& m);
    void learn_stored();
    std::error_code check_skipped_all();

    bool named_id_ = false;  // client.sender_id was set: the stream can be rerun
    config::client_settings settings_;
    asio::io_context io_;
    asio::ip::tcp::socket socket_;
    transport stream_{socket_};  // TLS over socket_ when tls.enabled (client/lib/transport.*)
    sender core_;
    mutable connection_stats stats_;
    std::string last_error_;
    bool lingered() const;               // the open batch has waited batch.linger
    std::uint64_t batch_opened_ns_ = 0;  // coarse clock: when the open batch got its first message
    link_meter link_;
    std::uint64_t interval_start_ns_ = 0;        // the policy's current interval began
    std::uint64_t interval_blocked_ns_ = 0;      // waiting for room in the socket's buffer
    std::uint64_t interval_ack_blocked_ns_ = 0;  // waiting for acks: max_in_flight reached
    std::uint64_t last_link_sample_ns_ = 0;
    bool waited_since_sample_ = false;  // the socket's buffer was full since the last sample
    bool open_ = false;
    bool resuming_ = false;      // inside resume_after: failures are returned, never resumed
    bool welcomed_ = false;      // open() succeeded once: from then on a break is resumed
    std::string attempt_error_;  // why the last reconnect attempt failed
    // resume.retry_for, counted from the last acknowledged progress (client/lib/retry_window.hpp).
    retry_window window_{settings_.resume_retry_for};
    void observe_progress(bool idle = false);
    std::uint64_t written_messages_ = 0;  // messages_sealed() at the last write
    bool skip_stored_ = false;
    bool input_mismatch_ = false;
    std::uint64_t stored_at_open_ = 0;
    std::uint64_t stored_digest_ = 0;  // welcome field 18 at open(): 0 unknown
    std::uint64_t to_skip_ = 0;
    std::uint64_t skipped_ = 0;
    std::uint64_t skip_digest_ = 0;  // the input digest of the messages skipped so far
};

}  // namespace objwire::client

template <>
struct std::is_error_code_enum<objwire::client::client_errc> : std::true_type {};
