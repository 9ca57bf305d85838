#include "daemon/roles/reader_support.hpp"

#include <spdlog/spdlog.h>

#include "daemon/serve/log_text.hpp"
#include "daemon/serve/roles.hpp"
#include "daemon/serve/server.hpp"
#include "proto/errors.hpp"
#include "proto/frame.hpp"

namespace objwire::daemon::reader_support {

asio::awaitable<void> watch_peer(transport& stream, std::shared_ptr<reader_state> st) {
    co_await stream.async_read_some(asio::buffer(st->scratch), use_tuple);
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

asio::awaitable<void> end_reader(transport& stream, const std::string& peer, std::error_code code,
                                 std::string text) {
    spdlog::warn("{}: reader stopped: {}", peer, log_text(text));
    co_await refuse_role(stream, code, std::move(text));
}

asio::awaitable<void> end_reader_stopping(transport& stream, const std::string& peer) {
    // A clean stop is nothing wrong with the reader: one info line each, not a warning.
    const std::string why = "objwired is shutting down";
    spdlog::info("{}: reader stopped: {}", peer, why);
    co_await refuse_role(stream, proto_errc::not_available, why);
}

asio::awaitable<bool> reader_base::should_end() {
    if (state_->peer_done) co_return true;
    if (!srv_.stopping()) co_return false;
    co_await end_reader_stopping(stream_, peer_);
    co_return true;
}

void append_block_frame(byte_buffer& out, std::span<const std::uint8_t> block,
                        std::uint64_t sequence) {
    const std::size_t start = out.size();
    out.prepare(frame_header_size + block.size());
    out.commit(frame_header_size);
    out.append(block);
    seal_frame(out.span().subspan(start), frame_kind::journal_block, sequence);
}

}  // namespace objwire::daemon::reader_support
