#include "daemon/roles/reader_support.hpp"

#include <spdlog/spdlog.h>
#include <sys/socket.h>

#include <cerrno>

#include <asio/experimental/awaitable_operators.hpp>

#include "daemon/serve/log_text.hpp"
#include "daemon/serve/roles.hpp"
#include "daemon/serve/server.hpp"
#include "proto/errors.hpp"
#include "proto/frame.hpp"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace objwire::daemon::reader_support {

void gave_back(std::size_t bytes) {
    static std::atomic<std::size_t> since_trim{0};
    constexpr std::size_t trim_after = std::size_t{16} << 20;
    if (bytes == 0 || (since_trim += bytes) < trim_after) return;
    since_trim = 0;
#if defined(__GLIBC__)
    malloc_trim(0);
#endif
}

namespace {
// One round of the peer's frames; false when the watch ends.
bool take_peer_frames(read_server& core, const std::string& peer, const peer_acks& acks,
                      reader_state& st) {
    if (acks.durable_end) core.set_durable_end(acks.durable_end());
    for (;;) {
        switch (core.next_from_peer()) {
            case read_server::peer_event::need_more:
                return true;
            case read_server::peer_event::ack:
                if (!acks.on_ack || !acks.on_ack(core.acked())) return false;
                continue;
            case read_server::peer_event::goodbye:
                st.peer_goodbye = true;
                return false;
            case read_server::peer_event::violation:
                spdlog::warn("{}: reader sent {}; ending it", peer, log_text(core.violation()));
                return false;
        }
    }
}
}  // namespace

asio::awaitable<void> watch_peer(peer_stream& stream, std::shared_ptr<reader_state> st,
                                 read_server& core, std::string peer, peer_acks acks) {
    for (bool more = true; more;) {
        const auto space = core.prepare();
        auto [ec, n] =
            co_await stream.async_read_some(asio::buffer(space.data(), space.size()), use_tuple);
        if (ec) break;
        core.commit(n);
        more = take_peer_frames(core, peer, acks, *st);
    }
    if (acks.on_end) acks.on_end();
    st->peer_done = true;
    st->watcher_done = true;
    st->wake.cancel();
}

asio::awaitable<void> stop_watching(peer_stream& stream, reader_state& st) {
    if (st.watcher_done) co_return;
    std::error_code ignored;
    stream.socket().cancel(ignored);
    while (!st.watcher_done) {
        st.wake.expires_after(follow_poll);
        co_await st.wake.async_wait(use_tuple);
    }
}

asio::awaitable<std::error_code> write_bytes(peer_stream& stream, const byte_buffer& bytes) {
    auto [ec, n] =
        co_await asio::async_write(stream, asio::buffer(bytes.data(), bytes.size()), use_tuple);
    co_return ec;
}

asio::awaitable<std::error_code> write_bytes_within(peer_stream& stream, const byte_buffer& bytes,
                                                    std::chrono::milliseconds idle) {
    using namespace asio::experimental::awaitable_operators;
    if (idle.count() <= 0) co_return co_await write_bytes(stream, bytes);
    asio::steady_timer timer(stream.get_executor());
    for (std::size_t done = 0; done < bytes.size();) {
        timer.expires_after(idle);
        auto r = co_await (stream.async_write_some(
                               asio::buffer(bytes.data() + done, bytes.size() - done), use_tuple) ||
                           timer.async_wait(use_tuple));
        if (r.index() == 1) co_return std::make_error_code(std::errc::timed_out);
        auto [ec, n] = std::get<0>(r);
        if (ec) co_return ec;
        done += n;
    }
    co_return std::error_code{};
}

double unix_seconds() {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

bool peer_closed(peer_stream& stream) {
    std::uint8_t byte = 0;
    const ssize_t n = ::recv(stream.socket().native_handle(), &byte, 1, MSG_PEEK | MSG_DONTWAIT);
    if (n > 0) return false;
    if (n == 0) return true;
    return errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR;
}

void reset_gone_peer(peer_stream& stream) {
    std::error_code ignored;
    stream.socket().set_option(asio::socket_base::linger(true, 0), ignored);
    stream.socket().close(ignored);
}

asio::awaitable<void> send_goodbye(peer_stream& stream) {
    byte_buffer bye;
    append_frame(bye, frame_kind::goodbye, 0, {});
    co_await write_bytes(stream, bye);
}

asio::awaitable<reader_base::write_result> reader_base::flush(std::function<void()> on_wait) {
    auto& out = core_.output();
    if (out.empty()) co_return write_result::written;
    write_list list;
    list.add(out.span());
    const auto r = co_await flush(list, std::move(on_wait));
    out.clear();
    co_return r;
}

asio::awaitable<reader_base::write_result> reader_base::flush(write_list& list,
                                                              std::function<void()> on_wait) {
    if (list.empty()) co_return write_result::written;
    const std::size_t bytes = list.bytes();
    const auto r = co_await write_out(list, std::move(on_wait));
    srv_.metrics().bytes_out += bytes;
    const auto objects =
        core_.block_objects() - std::exchange(user_counted_, core_.block_objects());
    srv_.metrics().users_out.stored(user_, objects, bytes, unix_seconds());
    co_return r;
}

asio::awaitable<void> reader_base::end_stream() {
    core_.end_stream();
    co_await flush();
}

asio::awaitable<void> reader_base::end_with(std::error_code code, std::string text) {
    spdlog::warn("{}: reader stopped: {}", peer_, log_text(text));
    core_.fail(code, text);
    co_await flush();
}

asio::awaitable<void> reader_base::end_stopping() {
    // A clean stop is nothing wrong with the reader: one info line each, not a warning.
    const std::string why = "objwired is shutting down";
    spdlog::info("{}: reader stopped: {}", peer_, why);
    core_.fail(proto_errc::not_available, why);
    co_await flush();
}

reader_base::reader_base(server& srv, peer_stream& stream, const std::string& peer, const hello& h)
    : srv_(srv),
      stream_(stream),
      peer_(peer),
      hello_(h),
      core_(h),
      state_(std::make_shared<reader_state>(stream.get_executor())),
      slow_(srv.settings().idle_timeout),
      write_timer_(stream.get_executor()),
      behind_timer_(stream.get_executor()) {
    ++srv_.metrics().readers_open;
    if (const auto& id = stream.identity()) user_ = id->current()->name;
    // The user's permissions as they are at each block: a reload narrows them at once.
    if (const auto& id = stream.identity())
        core_.restrict([id](std::string_view sender) { return id->may_read(sender); },
                       [id] { return id->reads_everything(); });
}

reader_base::~reader_base() {
    --srv_.metrics().readers_open;
    srv_.metrics().readers_held_bytes -= static_cast<std::int64_t>(held_);
}

void reader_base::make_room(std::size_t frame_bytes) {
    auto& out = core_.output();
    const std::size_t had = out.capacity();
    const std::size_t want = batch_capacity(out.size(), had, frame_bytes);
    if (want == had) return;
    out.reserve_exact(want);
    gave_back(had);
    note_held(other_held_);
}

void reader_base::note_held(std::size_t other) {
    const std::size_t now = core_.output().capacity() + other;
    srv_.metrics().readers_held_bytes +=
        static_cast<std::int64_t>(now) - static_cast<std::int64_t>(held_);
    held_ = now;
    other_held_ = other;
}

asio::awaitable<reader_base::write_result> reader_base::write_out(write_list& list,
                                                                  std::function<void()> on_wait) {
    using namespace asio::experimental::awaitable_operators;
    using clock = slow_consumer_rule::clock;
    auto& m = srv_.metrics();
    auto hook = std::make_shared<behind_hook>(behind_hook{true, std::move(on_wait)});
    bool watching = false;
    slow_.write_started(clock::now(), list.bytes());
    write_result result = write_result::written;
    while (!list.empty()) {
        std::error_code ec;
        std::size_t n = 0;
        if (slow_.deadline() == clock::time_point::max()) {
            std::tie(ec, n) = co_await stream_.async_write_some(list.buffers(), use_tuple);
        } else {
            // Each byte the peer takes restarts the clock: only a peer that takes none for
            // the whole timeout is slow, however large the batch.
            write_timer_.expires_at(slow_.deadline());
            auto r = co_await (stream_.async_write_some(list.buffers(), use_tuple) ||
                               write_timer_.async_wait(use_tuple));
            if (r.index() == 1) {
                result = write_result::slow;
                break;
            }
            std::tie(ec, n) = std::get<0>(r);
        }
        list.consume(n);
        slow_.bytes_taken(clock::now(), n);
        if (ec) {
            result = write_result::peer_gone;
            break;
        }
        // A short write: the socket's buffer is full, the next one waits for the peer.
        if (!list.empty() && !std::exchange(watching, true)) watch_behind(hook);
    }
    if (result == write_result::slow) {
        // No error frame: the peer takes no bytes, and the batch stopped inside a frame.
        spdlog::warn("{}: reader closed: {}", peer_, slow_.reason(clock::now()));
        ++m.readers_slow_closed;
        slow_closed_ = true;
    }
    slow_.write_ended();
    hook->writing = false;  // a timer handler already queued does nothing
    behind_timer_.cancel();
    if (std::exchange(stalled_, false)) --m.readers_stalled;
    co_return result;
}

void reader_base::watch_behind(const std::shared_ptr<behind_hook>& hook) {
    // A plain handler, not a race with the write: cancelling a write over TLS could lose a
    // record. It runs on the connection's strand, and touches the reader only while the
    // write is pending (the reader lives at least as long).
    behind_timer_.expires_after(peer_behind_after);
    behind_timer_.async_wait([this, hook](std::error_code ec) {
        if (ec || !hook->writing) return;
        stalled_ = true;
        ++srv_.metrics().readers_stalled;
        if (hook->on_wait) std::exchange(hook->on_wait, nullptr)();
    });
}

asio::awaitable<bool> reader_base::should_end() {
    if (state_->peer_done) co_return true;
    const bool revoked = co_await end_if_revoked();
    if (revoked) co_return true;
    if (!srv_.stopping()) co_return false;
    co_await end_stopping();
    co_return true;
}

asio::awaitable<bool> reader_base::end_if_revoked() {
    std::string why = revoked_reason();
    if (why.empty()) co_return false;
    co_await end_with(proto_errc::unauthorized, why);
    co_return true;
}

std::string reader_base::revoked_reason() const {
    const auto& id = stream_.identity();
    return id ? id->revoked() : std::string();
}

}  // namespace objwire::daemon::reader_support
