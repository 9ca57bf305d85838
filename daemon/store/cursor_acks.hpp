// What a cursor reader's acks leave to store, without I/O (docs/PROTOCOL.md 1.2, "Acks"):
// acks only ever move a cursor forward, so while one position is being written (or waits for
// its turn) a newer ack replaces it - the newest offset wins - and a cursor is written (staged
// for the journal's next sync: cursor_store.hpp) at most once per `interval`, however often
// its reader acks. A reader acking every object then costs one write per interval, as one
// acking every 1,000 does. What is pending is written before the reader's goodbye is
// answered and when its connection ends, so no acknowledged position is dropped.
//
//   cursor_acks acks(20ms, start);
//   acks.acked(500);                            // the reader's ack
//   if (auto at = acks.take_due(now)) store(*at), acks.stored(*at, now);
//   else timer(acks.due_at());                  // later, for what is pending
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <utility>

namespace objwire::daemon {

class cursor_acks {
  public:
    using clock = std::chrono::steady_clock;

    // `at`: where the cursor stands now (acks at or below it change nothing).
    explicit cursor_acks(clock::duration interval, std::uint64_t at = 0)
        : interval_(interval), stored_(at) {}

    // An ack up to `next_offset`: pending unless the cursor is already there or beyond.
    void acked(std::uint64_t next_offset) {
        ++acks_;
        if (next_offset <= newest()) return;
        pending_ = next_offset;
    }
    // The position to write now (taken: no longer pending), when one is pending and the last
    // write was at least `interval` ago; nullopt otherwise.
    std::optional<std::uint64_t> take_due(clock::time_point now) {
        if (!pending_ || now < due_at()) return std::nullopt;
        return take();
    }
    // The pending position whatever the interval says (a goodbye, the connection's end).
    std::optional<std::uint64_t> take() { return std::exchange(pending_, std::nullopt); }
    // `next_offset` was written at `now`.
    void stored(std::uint64_t next_offset, clock::time_point now) {
        if (next_offset > stored_) stored_ = next_offset;
        last_write_ = now;
        ++writes_;
    }
    // When a pending position may be written (meaningful while pending()).
    clock::time_point due_at() const {
        return writes_ == 0 ? clock::time_point::min() : last_write_ + interval_;
    }
    bool pending() const { return pending_.has_value(); }
    std::uint64_t acks() const { return acks_; }
    std::uint64_t writes() const { return writes_; }

  private:
    std::uint64_t newest() const { return pending_ ? *pending_ : stored_; }

    clock::duration interval_;
    std::optional<std::uint64_t> pending_;
    std::uint64_t stored_ = 0;
    clock::time_point last_write_{};
    std::uint64_t acks_ = 0;
    std::uint64_t writes_ = 0;
};

}  // namespace objwire::daemon
