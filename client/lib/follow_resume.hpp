// What a following reader (include/objwire/reader.hpp) does when it loses its daemon: whether
// it tries again, where the next connection starts, and how long it waits before it. The
// reader drives it; it has no I/O and no clock of its own, so every rule is unit-tested
// (tests/unit/client/follow_resume_test.cpp).
//
//   follow_resume f(settings.resume_retry_for);
//   f.connected(r.start(), r.offsets_count_blocks());
//   ... f.handed_out(m.offset) for each object, f.gap(g.end) for each gap ...
//   if (auto pause = f.after_failure(r.error(), clock::now())) wait(*pause), reconnect at
//   f.resume_at(); else give up.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <optional>
#include <system_error>
#include <utility>

#include "proto/errors.hpp"
#include "proto/util/backoff.hpp"

namespace objwire::client {

class follow_resume {
  public:
    using clock = std::chrono::steady_clock;
    // The first reconnection is at once, then 100 ms, doubling up to 2 s.
    static constexpr std::chrono::milliseconds first_backoff{100};
    static constexpr std::chrono::milliseconds max_backoff{2000};

    // `retry_for` (resume.retry_for): how long failures in a row may last; 0 never reconnects.
    explicit follow_resume(std::chrono::milliseconds retry_for) : retry_for_(retry_for) {}

    // A connection was welcomed and hands out objects from `start` on. Failures are counted
    // anew, and the next loss reconnects at once. A stream whose offsets count blocks (a NATS
    // stream: a block's objects carry no stream position) cannot be resumed inside.
    void connected(std::uint64_t start, bool offsets_count_blocks) {
        next_ = std::max(next_, start);
        blocks_ = offsets_count_blocks;
        failing_ = false;
        backoff_.reset();
    }
    // The object at `offset` was handed out: it is never handed out again.
    void handed_out(std::uint64_t offset) { next_ = std::max(next_, offset + 1); }
    // The daemon reported offsets below `end` lost: they are not asked for again.
    void gap(std::uint64_t end) { next_ = std::max(next_, end); }
    // Where the next connection starts (its from, and the offset below which nothing is
    // handed out when the daemon starts earlier, at a cursor's last stored ack).
    std::uint64_t resume_at() const { return next_; }

    // A failure that reconnecting may cure: the connection's or the socket's (not a protocol
    // error), the daemon shutting down (not_available), or a cursor still held by the
    // connection the daemon has not yet noticed is gone (sender_busy). A refusal (a token, an
    // unknown sender) or a broken protocol is not.
    static bool worth_reconnecting(std::error_code ec) {
        return ec && (ec.category() != proto_category() || ec == proto_errc::not_available ||
                      ec == proto_errc::sender_busy);
    }

    // The connection was lost, or a reconnection failed, with `ec` at `now`: the pause before
    // the next try, or nullopt to give up (not worth it, or failures have lasted retry_for).
    // The pause never goes past the end of retry_for, so the last try is at its end.
    std::optional<std::chrono::milliseconds> after_failure(std::error_code ec,
                                                           clock::time_point now) {
        if (!std::exchange(failing_, true)) since_ = now;
        if (blocks_ || retry_for_.count() <= 0 || !worth_reconnecting(ec)) return std::nullopt;
        const auto left = std::chrono::ceil<std::chrono::milliseconds>(since_ + retry_for_ - now);
        if (left.count() <= 0) return std::nullopt;
        const auto pause = std::min(backoff_.current(), left);
        backoff_.next();
        return pause;
    }

  private:
    std::chrono::milliseconds retry_for_;
    std::uint64_t next_ = 0;
    bool blocks_ = false;
    bool failing_ = false;
    clock::time_point since_{};
    exponential_backoff backoff_{first_backoff, max_backoff};
};

}  // namespace objwire::client
