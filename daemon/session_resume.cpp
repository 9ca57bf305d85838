// Resume (docs/PROTOCOL.md "Resume", docs/DECISIONS.md): a sender id streams over one
// connection at a time. A connection that arrives for an id another one still holds asks that
// one to stop - it takes in what its socket already holds, stores it and reads no more - and
// waits, bounded, until the id is free and every batch of it is durable or failed; only then
// is "the last durable frame" final, and the new connection resumes after it.
#include <spdlog/spdlog.h>

#include <asio/experimental/as_tuple.hpp>
#include <atomic>

#include "daemon/server.hpp"
#include "daemon/session.hpp"

namespace objwire::daemon {
namespace {

// Long enough for the old connection's last batches to be synced (fsync interval 100 ms by
// default, a slow disk a few seconds); after it the peer is refused with sender_busy and its
// client retries with backoff.
constexpr auto takeover_timeout = std::chrono::seconds(5);

std::atomic<std::uint64_t> next_token{1};

}  // namespace

asio::awaitable<std::optional<std::uint64_t>> session::resume_point() {
    const std::string& id = receiver_.peer().sender_id;
    if (id.empty()) co_return std::uint64_t{0};  // anonymous: a new stream every time
    auto& senders = server_.senders();
    const std::uint64_t token = next_token++;
    const auto deadline = std::chrono::steady_clock::now() + takeover_timeout;
    auto exec = stream_io_.get_executor();
    for (int round = 0;; ++round) {
        auto stop = [weak = weak_from_this()] {
            if (auto self = weak.lock()) self->stop();
        };
        auto on_free = [weak = weak_from_this(), exec] {
            asio::post(exec, [weak] {
                if (auto self = weak.lock()) self->claim_wake_.cancel();
            });
        };
        if (senders.try_claim(id, token, stop, on_free)) break;
        if (round == 0)
            spdlog::info("{}: sender id '{}' is still streaming on another connection: stopping it",
                         peer_, id);
        if (std::chrono::steady_clock::now() >= deadline || stopping_) co_return std::nullopt;
        claim_wake_.expires_at(deadline);
        co_await claim_wake_.async_wait(asio::experimental::as_tuple(asio::use_awaitable));
    }
    resume_token_ = token;
    const std::uint64_t last = senders.last_durable(id);
    if (last > 0) spdlog::info("{}: sender id '{}' resumes after frame {}", peer_, id, last);
    co_return last;
}

void session::release_sender() {
    if (resume_token_ == 0) return;
    server_.senders().release(receiver_.peer().sender_id, std::exchange(resume_token_, 0));
}

}  // namespace objwire::daemon
