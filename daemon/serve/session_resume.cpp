// Resume (docs/PROTOCOL.md "Resume", docs/DECISIONS.md): a sender id streams over one
// connection at a time. A connection that arrives for an id another one still holds asks that
// one to stop - it takes in what its socket already holds, stores it and reads no more - and
// waits, bounded, until the id is free and every batch of it is durable or failed; only then
// is "the last durable frame" final, and the new connection resumes after it.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>

#include "daemon/serve/blocking_call.hpp"
#include "daemon/serve/log_text.hpp"
#include "daemon/serve/server.hpp"
#include "daemon/serve/session.hpp"
#include "proto/errors.hpp"

namespace objwire::daemon {
namespace {

// Long enough for the old connection's last batches to be synced (fsync interval 100 ms by
// default, a slow disk a few seconds); after it the peer is refused with sender_busy and its
// client retries with backoff.
constexpr auto takeover_timeout = std::chrono::seconds(5);
// A new stream waits this long for a connection that holds its id to end by itself (one that
// is closing as the new one arrives: a rerun right after its predecessor was killed); a live
// one is never stopped for it (docs/PROTOCOL.md 1.1, "Ownership").
constexpr auto new_stream_wait = std::chrono::seconds(1);

std::atomic<std::uint64_t> next_token{1};

}  // namespace

// Like an id still held elsewhere, worth retrying: the stream will answer again.
session::resume_answer session::busy(std::string why) {
    return {std::nullopt, proto_errc::sender_busy, std::move(why)};
}

asio::awaitable<session::resume_answer> session::resume_point() {
    const hello& h = receiver_.peer();
    const std::string& id = h.sender_id;
    if (id.empty()) co_return resume_answer{0, {}, {}};  // anonymous: a new stream every time
    const bool resuming = !h.resume_token.empty();
    std::string fresh_token = resuming ? h.resume_token : new_resume_token();
    auto refused = co_await claim_sender(id, resuming, fresh_token);
    if (refused) co_return std::move(*refused);
    stream_token_ = std::move(fresh_token);
    stream_fence_ = fence_of(stream_token_);
    co_return co_await resume_after_claim(id, resuming);
}

// Claims sender id `id` for this connection (sender_registry::try_claim), waiting - bounded -
// while another connection holds it: a resuming stream's own broken connection is asked to
// stop, a new stream waits for a closing one. nullopt: claimed; else the refusal.
asio::awaitable<std::optional<session::resume_answer>> session::claim_sender(
    const std::string& id, bool resuming, const std::string& fresh_token) {
    auto& senders = server_.senders();
    const std::uint64_t token = next_token++;
    std::optional<stream_fence> resume;
    if (resuming) resume = fence_of(fresh_token);
    const auto deadline =
        std::chrono::steady_clock::now() + (resuming ? takeover_timeout : new_stream_wait);
    const auto stop = [weak = weak_from_this()] {
        if (auto self = weak.lock()) self->stop();
    };
    const auto on_free = [weak = weak_from_this(), exec = stream_io_.get_executor()] {
        asio::post(exec, [weak] {
            if (auto self = weak.lock()) self->wake();
        });
    };
    for (int round = 0;; ++round) {
        auto change = sender_registry::fence_change::same;
        const auto c =
            senders.try_claim(id, token, resume, fence_of(fresh_token), stop, on_free, &change);
        if (c == sender_registry::claim::claimed) {
            resume_token_ = token;
            if (change != sender_registry::fence_change::same &&
                !record_owner(id, fence_of(fresh_token), change))
                co_return busy("the owner of sender id '" + id + "' cannot be stored now");
            co_return std::nullopt;
        }
        if (c == sender_registry::claim::fenced) co_return fenced(id);
        if (round == 0 && resuming)
            spdlog::info("{}: sender id '{}' is still streaming on another connection: stopping it",
                         peer_, log_text(id));
        if (std::chrono::steady_clock::now() >= deadline ||
            state_.phase() != session_phase::admitting)
            co_return held_elsewhere(id, resuming);
        // The id freed (on_free), a stop, or the deadline: each tries again or gives up.
        co_await wait_for_wake(deadline);
    }
}

session::resume_answer session::fenced(const std::string& id) {
    return {std::nullopt, proto_errc::sender_fenced,
            "sender id '" + id +
                "' was taken by another stream since this one's welcome: it may not resume it "
                "(its objects after that are not stored)"};
}

session::resume_answer session::held_elsewhere(const std::string& id, bool resuming) {
    if (!resuming && server_.senders().held(id))
        return busy("sender id '" + id +
                    "' is held by a live connection: a new stream may not take it over (ids "
                    "must be unique per running stream)");
    return busy("sender id '" + id + "' is busy on another connection");
}

// Where the claimed stream goes on: after its last durable frame, as the registry knows it or,
// on a sink several daemons share, as the sink says.
asio::awaitable<session::resume_answer> session::resume_after_claim(const std::string& id,
                                                                    bool resuming) {
    const auto state = server_.senders().state(id);
    std::uint64_t last = state.last_durable;
    stream_objects_ = state.objects;
    stream_digest_ = state.digest;
    if (server_.sink().shared()) {
        const auto stored = co_await ask_sink_last_frame(id);
        if (!stored) {
            release_sender();
            co_return busy("the last stored frame of sender id '" + id + "' cannot be read from " +
                           server_.sink().describe() + " now");
        }
        last = std::max(last, *stored);
    }
    if (last > 0)
        spdlog::info("{}: sender id '{}' {} after frame {} ({} objects stored)", peer_,
                     log_text(id), resuming ? "resumes" : "continues as a new stream", last,
                     stream_objects_);
    co_return resume_answer{last, {}, {}};
}

// Another daemon on the same stream may have stored frames of this sender after this one
// last saw it: the sink's answer decides. The request blocks (a round trip to JetStream, at
// most its timeout), so it runs on its own thread while the strand goes on.
asio::awaitable<std::optional<std::uint64_t>> session::ask_sink_last_frame(const std::string& id) {
    // Named, not a temporary in the co_await: GCC 12 destroys such a temporary twice.
    auto ask = [&sink = server_.sink(), id] { return sink.last_stored_frame(id); };
    const auto answer = co_await blocking_call(stream_io_.get_executor(), std::move(ask));
    co_return answer;
}

// Written before the welcome that hands the stream its token: a daemon restarted before the
// stream stores a block still knows it owns the id (docs/PROTOCOL.md 1.1, "Ownership"). A new
// id's first owner is not waited for on the disk: lost in a crash, it leaves the id with no
// owner known, which takes the token its first resuming stream shows - the same owner.
bool session::record_owner(const std::string& id, const stream_fence& fence,
                           sender_registry::fence_change change) {
    auto* fences = server_.fences();
    if (!fences) return true;
    const auto durability = change == sender_registry::fence_change::new_id
                                ? fence_log::durability::with_later_syncs
                                : fence_log::durability::before_return;
    if (auto ec = fences->append(id, fence, durability)) {
        spdlog::error("{}: cannot store the owner of sender id '{}' in '{}': {}", peer_,
                      log_text(id), fences->file().string(), ec.message());
        release_sender();
        return false;
    }
    return true;
}

void session::release_sender() {
    if (resume_token_ == 0) return;
    server_.senders().release(receiver_.peer().sender_id, std::exchange(resume_token_, 0));
}

}  // namespace objwire::daemon
