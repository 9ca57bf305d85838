#include "daemon/roles/reader_support.hpp"

#include <spdlog/spdlog.h>

#include "daemon/serve/log_text.hpp"
#include "daemon/serve/roles.hpp"
#include "daemon/serve/server.hpp"
#include "proto/errors.hpp"
#include "proto/frame.hpp"

namespace objwire::daemon::reader_support {

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

asio::awaitable<void> watch_peer(transport& stream, std::shared_ptr<reader_state> st,
                                 read_server& core, std::string peer, peer_acks acks) {
    for (bool more = true; more;) {
        const auto space = core.prepare();
        auto [ec, n] =
            co_await stream.async_read_some(asio::buffer(space.data(), space.size()), use_tuple);
        if (ec) break;
        core.commit(n);
        more = take_peer_frames(core, peer, acks, *st);
    }
    st->peer_done = true;
    st->watcher_done = true;
    st->wake.cancel();
}

asio::awaitable<void> stop_watching(transport& stream, reader_state& st) {
    if (st.watcher_done) co_return;
    std::error_code ignored;
    stream.socket().cancel(ignored);
    while (!st.watcher_done) {
        st.wake.expires_after(follow_poll);
        co_await st.wake.async_wait(use_tuple);
    }
}

asio::awaitable<std::error_code> write_bytes(transport& stream, const byte_buffer& bytes) {
    auto [ec, n] =
        co_await asio::async_write(stream, asio::buffer(bytes.data(), bytes.size()), use_tuple);
    co_return ec;
}

asio::awaitable<void> send_goodbye(transport& stream) {
    byte_buffer bye;
    append_frame(bye, frame_kind::goodbye, 0, {});
    co_await write_bytes(stream, bye);
}

asio::awaitable<std::error_code> reader_base::flush() {
    auto& out = core_.output();
    if (out.empty()) co_return std::error_code();
    const auto ec = co_await write_bytes(stream_, out);
    srv_.metrics().bytes_out += out.size();
    out.clear();
    co_return ec;
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

asio::awaitable<bool> reader_base::should_end() {
    if (state_->peer_done) co_return true;
    if (!srv_.stopping()) co_return false;
    co_await end_stopping();
    co_return true;
}

}  // namespace objwire::daemon::reader_support
