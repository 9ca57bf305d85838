#include "daemon/roles/cursor_service.hpp"

#include <spdlog/spdlog.h>

#include "daemon/serve/log_text.hpp"
#include "daemon/serve/roles.hpp"
#include "proto/errors.hpp"
#include "proto/frame.hpp"

namespace objwire::daemon {

using namespace reader_support;

asio::awaitable<void> serve_cursor_command(cursor_store& store, peer_stream& stream,
                                           const std::string& peer, const hello& h) {
    std::error_code ec;
    if (h.request == read_request::list_cursors) {
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

}  // namespace objwire::daemon
