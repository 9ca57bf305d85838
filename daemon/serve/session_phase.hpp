// Where one connection of objwired stands: one phase, changed only by the transitions below,
// each of which says whether it applied. No I/O: the session (daemon/serve/session.cpp) asks
// it what to do next and tells it what happened; the rules are unit-tested on their own.
//
//   handshake -> admitting -> streaming <-> paused
//                    |           |  ^-> stalled -> streaming (paused and draining stall too)
//                    |           v
//                    |        draining (stop asked: take in what the socket holds)
//                    v           v
//               handed_over   finishing (no more reads: the last replies become durable, go out)
//   any phase -> failed (the sink or the socket failed: nothing more is stored or sent)
//   any phase -> ended (closed: nothing waits any more)
#pragma once

#include <cstdint>
#include <string_view>
#include <system_error>

namespace objwire::daemon {

enum class session_phase : std::uint8_t {
    handshake,    // TLS when configured, then the hello, within limits.handshake_timeout
    admitting,    // the hello is in: access, the sink, the sender id's claim
    streaming,    // reading, storing, acknowledging
    paused,       // reading waits: the replies waiting for the sink hold too many bytes
    stalled,      // reading waits: the sink is out of space; a batch is retried, nothing acked
    draining,     // a stop was asked: what the socket already holds is taken in, then finishing
    finishing,    // no more reads: the last replies wait to be durable and sent
    handed_over,  // a role's service (reader, stats) runs the connection
    failed,       // the sink or the socket failed: nothing more is stored or sent
    ended,        // closed
};

std::string_view to_string(session_phase p);

class session_state {
  public:
    session_phase phase() const { return phase_; }

    // handshake -> admitting.
    bool hello_received() { return move(session_phase::handshake, session_phase::admitting); }
    // admitting -> streaming, or -> handed_over for a role's connection.
    bool admitted() { return move(session_phase::admitting, session_phase::streaming); }
    bool hand_over() { return move(session_phase::admitting, session_phase::handed_over); }
    // streaming -> paused and back.
    bool pause() { return move(session_phase::streaming, session_phase::paused); }
    bool unpause() { return move(session_phase::paused, session_phase::streaming); }
    // streaming, paused or draining -> stalled, and stalled -> streaming once the batch is
    // stored (a drain ends stalled: its batch is not stored).
    bool stall();
    bool unstall() { return move(session_phase::stalled, session_phase::streaming); }
    // A stop: a connection still reading drains; one admitting or stalled finishes at once (a
    // stalled batch is not stored: it is not acknowledged, the sender sends it again). What it
    // moved from.
    session_phase stop();
    // The reads are over (the peer's goodbye or close, a refusal, a stop drained).
    bool finish();
    void fail();
    void end() { phase_ = session_phase::ended; }

    // Reads may go on: the phases that take bytes in from the socket.
    bool reading() const;
    // The writer may stop once nothing released is left: no reply will be queued any more.
    bool replies_closed() const;
    bool over() const { return phase_ == session_phase::failed || phase_ == session_phase::ended; }

  private:
    bool move(session_phase from, session_phase to);

    session_phase phase_ = session_phase::handshake;
};

// A sink error that a batch kept by the sink survives: the disk or the quota is full. The
// session stalls on it instead of closing (docs/JOURNAL.md, "Disk full").
bool out_of_space(std::error_code ec);

// A read's objects are stored as one batch, split at a frame boundary once a batch passes this
// size, so a read of many well-compressed frames never builds one huge block.
inline constexpr std::size_t batch_split_bytes = 4u << 20;

}  // namespace objwire::daemon
