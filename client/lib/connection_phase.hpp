// Where one client connection stands: one phase, changed only by the transitions below, each of
// which says whether it applied. No I/O: the connection (client/lib/connection_core.hpp) tells it
// what happened and asks it what may go on; the rules are unit-tested on their own.
//
//   closed, failed -> connecting -> handshaking -> streaming -> draining -> closed
//                                                      |  ^        |  ^
//                                                      v  |        v  |
//                                                      resuming (back to the phase it left)
//   any phase -> failed (a refusal, resume.retry_for passed, close() left objects unacknowledged)
//
// The phase is an atomic: it changes only with the connection's mutex held, and is_open() reads
// it without that mutex, so it never waits behind a send that waits for the window.
#pragma once

#include <atomic>
#include <cstdint>
#include <string_view>

namespace objwire::client {

enum class connection_phase : std::uint8_t {
    closed,       // before open(), and after close() took the last acks and closed the socket
    connecting,   // open(): resolving, connecting, TLS
    handshaking,  // the hello is out: waiting for the welcome
    streaming,    // welcomed: sending, taking in acks
    resuming,     // the connection broke: reconnecting and replaying within resume.retry_for
    draining,     // close(): the goodbye is queued; the last frames and acks go through
    failed,       // refused, lost past resume.retry_for, or closed with objects unacknowledged
};

std::string_view to_string(connection_phase p);

class connection_state {
  public:
    connection_phase phase() const { return phase_.load(std::memory_order_acquire); }

    // closed or failed -> connecting: open(), or open(retry_for) trying again.
    bool connect();
    // connecting -> handshaking: the socket is connected.
    bool connected() { return move(connection_phase::connecting, connection_phase::handshaking); }
    // handshaking -> streaming: the welcome came.
    bool welcomed() { return move(connection_phase::handshaking, connection_phase::streaming); }
    // streaming -> draining: close() queued the goodbye.
    bool drain() { return move(connection_phase::streaming, connection_phase::draining); }
    // draining -> closed: the socket is closed.
    bool close() { return move(connection_phase::draining, connection_phase::closed); }
    // streaming or draining -> resuming; the phase it left is kept for end_resume().
    bool start_resume();
    // resuming -> the phase start_resume() left: the stream goes on there (or fails from there).
    bool end_resume();
    // Any phase -> failed.
    void fail() { set(connection_phase::failed); }

    // The calls that need a connection may go on: from the connect to the end of draining.
    bool is_open() const;
    // A break is resumed: welcomed, and not inside a resume already (an attempt's failure goes
    // back to the resume loop).
    bool resumable() const;
    // The daemon has welcomed this stream: reads wait no longer than the retry window.
    bool after_welcome() const { return resumable() || resuming(); }
    bool resuming() const { return phase() == connection_phase::resuming; }

  private:
    bool move(connection_phase from, connection_phase to);
    void set(connection_phase p) { phase_.store(p, std::memory_order_release); }

    std::atomic<connection_phase> phase_{connection_phase::closed};
    connection_phase resumed_to_ = connection_phase::streaming;
};

}  // namespace objwire::client
