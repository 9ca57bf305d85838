// Where one forward stream's connection to the next hop stands, and until when it may stay
// there. Every state that waits on the hop has a deadline, so no wait of the relay is endless:
//   connecting - until the hop's welcome: client.connect_timeout (the client library's own
//                bound), then the connect failed;
//   streaming  - nothing waits for an ack, or acks came within the last stall_after;
//   stalled    - objects sent and no ack for stall_after: the hop has until the ack window
//                (the hop's resume.retry_for) after its last progress, then it failed;
//   draining   - the upstream stream ended (its session closed, the daemon stopping) with
//                objects still unacknowledged: the hop has drain_window for them, then the
//                stream gives them up (the upstream resends them when it resumes);
//   failed     - the end: nothing more is sent and nothing waited for.
// No I/O and no clock of its own: the stream's worker says what happened and when.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

namespace objwire::daemon {

class hop_phase {
  public:
    using clock = std::chrono::steady_clock;
    enum class state { connecting, streaming, stalled, draining, failed };
    static constexpr std::chrono::milliseconds stall_after{1000};
    static constexpr std::chrono::milliseconds drain_window{500};

    // `ack_window`: how long objects may wait for the hop's next acknowledgement.
    hop_phase(std::chrono::milliseconds connect_window, std::chrono::milliseconds ack_window)
        : connect_window_(connect_window), ack_window_(ack_window) {}

    void on_connecting(clock::time_point now);
    void on_connected(clock::time_point now);
    // After a send or an ack: `sent` objects sent so far, `acked` acknowledged so far.
    void on_progress(std::uint64_t sent, std::uint64_t acked, clock::time_point now);
    void on_stop(clock::time_point now);
    void on_failed() { failed_ = true; }

    state current(clock::time_point now) const;
    // When the current state ends by itself (none: it waits on the upstream, not the hop).
    std::optional<clock::time_point> deadline() const;
    // The reason the hop failed, once a deadline has passed at `now`; it is then failed.
    std::optional<std::string> expired(clock::time_point now);

  private:
    bool waiting_for_acks() const { return acked_ < sent_; }

    std::chrono::milliseconds connect_window_;
    std::chrono::milliseconds ack_window_;
    bool connecting_ = false;
    bool connected_ = false;
    bool draining_ = false;
    bool failed_ = false;
    std::uint64_t sent_ = 0;
    std::uint64_t acked_ = 0;
    clock::time_point since_{};  // connect start, last ack progress or the stop
};

const char* to_string(hop_phase::state s);

}  // namespace objwire::daemon
