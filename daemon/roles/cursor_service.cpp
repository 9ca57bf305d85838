#include "daemon/roles/cursor_service.hpp"

#include <spdlog/spdlog.h>

#include "daemon/serve/log_text.hpp"
#include "daemon/serve/roles.hpp"
#include "proto/errors.hpp"
#include "proto/frame.hpp"
#include "proto/frame_reader.hpp"

namespace objwire::daemon {

using namespace reader_support;

asio::awaitable<void> serve_cursor_command(cursor_store& store, transport& stream,
                                           const std::string& peer, const hello& h) {
    std::error_code ec;
    if (h.cursor_command == cursor_op::list) {
        cursor_list l;
        std::string damaged;
        l.cursors = store.list(ec, damaged);
        if (ec) {
            co_await refuse_role(stream, proto_errc::not_available,
                                 "cannot list " + store.dir().string() + ": " + ec.message());
            co_return;
        }
        if (!damaged.empty()) {
            // A list without them would look complete: the operator learns which to delete.
            spdlog::warn("{}: cursor list refused: in {}: {}", peer, store.dir().string(), damaged);
            co_await refuse_role(
                stream, proto_errc::not_available,
                "cannot list every cursor in " + store.dir().string() + ": " + damaged);
            co_return;
        }
        byte_buffer payload, frame;
        encode_cursor_list(l, payload);
        append_frame(frame, frame_kind::cursor_list, 0, payload.span());
        co_await write_bytes(stream, frame);
        co_return;
    }
    if (!valid_cursor_name(h.read_cursor)) {
        co_await refuse_role(stream, proto_errc::bad_handshake,
                             "'" + h.read_cursor + "' is not a cursor name");
        co_return;
    }
    if (store.in_use(h.read_cursor)) {
        co_await refuse_role(stream, proto_errc::sender_busy,
                             "cursor '" + h.read_cursor + "' is in use by a reader");
        co_return;
    }
    ec = store.remove(h.read_cursor);
    if (ec == proto_errc::not_found) {
        co_await refuse_role(stream, ec, "there is no cursor '" + h.read_cursor + "'");
        co_return;
    }
    if (ec) {
        co_await refuse_role(stream, proto_errc::not_available,
                             "cannot delete cursor '" + h.read_cursor + "': " + ec.message());
        co_return;
    }
    spdlog::info("{}: deleted cursor '{}'", peer, log_text(h.read_cursor));
    co_await send_goodbye(stream);
}

asio::awaitable<void> watch_cursor_peer(transport& stream, std::shared_ptr<reader_state> st,
                                        cursor_store& store, std::string name,
                                        std::function<bool(std::uint64_t)> acceptable,
                                        std::string peer) {
    // The reader sends only small control frames.
    frame_reader frames(64 * 1024, 4096);
    bool done = false;
    while (!done) {
        const auto space = frames.prepare();
        auto [ec, n] =
            co_await stream.async_read_some(asio::buffer(space.data(), space.size()), use_tuple);
        if (ec) break;
        frames.commit(n);
        for (;;) {
            auto r = frames.next();
            if (r.state == frame_parser::status::need_more) break;
            if (r.state == frame_parser::status::frame &&
                r.frame.header.kind == frame_kind::goodbye) {
                st->peer_goodbye = true;
                done = true;
                break;
            }
            auto a =
                r.state == frame_parser::status::frame && r.frame.header.kind == frame_kind::ack
                    ? decode_read_ack(r.frame.payload)
                    : result<read_ack>(proto_errc::unexpected_frame);
            if (!a || !acceptable(a->next_offset)) {
                spdlog::warn("{}: cursor reader '{}' sent a bad frame or offset; ending it", peer,
                             log_text(name));
                done = true;
                break;
            }
            if (auto e = store.save(name, a->next_offset)) {
                spdlog::error("{}: cannot store cursor '{}' at {}: {}", peer, log_text(name),
                              a->next_offset, e.message());
                done = true;
                break;
            }
        }
    }
    st->peer_done = true;
    st->watcher_done = true;
    st->wake.cancel();
}

}  // namespace objwire::daemon
