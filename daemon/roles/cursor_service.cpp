#include "daemon/roles/cursor_service.hpp"

#include <spdlog/spdlog.h>

#include "daemon/serve/log_text.hpp"
#include "daemon/serve/roles.hpp"
#include "proto/errors.hpp"
#include "proto/frame.hpp"

namespace objwire::daemon {

using namespace reader_support;

namespace {

// `objwire cursor set`: the cursor moves, or nothing changes and the peer is told why.
asio::awaitable<void> set_cursor(cursor_store& store, std::uint64_t durable_end,
                                 peer_stream& stream, const std::string& peer, const hello& h) {
    const auto& name = h.read_cursor;
    const auto ec = store.set(name, h.read_from, durable_end);
    if (ec == proto_errc::past_end) {
        // The code's message says "offset past the end of what is stored".
        co_await refuse_role(stream, ec,
                             "offset " + std::to_string(h.read_from) + " (the next offset is " +
                                 std::to_string(durable_end) + "): cursor '" + name +
                                 "' not moved");
    } else if (ec == proto_errc::sender_busy) {
        co_await refuse_role(stream, ec, "cursor '" + name + "' is in use by a reader");
    } else if (ec) {
        co_await refuse_role(
            stream, proto_errc::not_available,
            "cannot store cursor '" + name + "' in " + store.dir().string() + ": " + ec.message());
    } else {
        spdlog::info("{}: cursor '{}' set to offset {}", peer, log_text(name), h.read_from);
        co_await send_goodbye(stream);
    }
}

}  // namespace

asio::awaitable<void> serve_cursor_command(cursor_store& store, std::uint64_t durable_end,
                                           peer_stream& stream, const std::string& peer,
                                           const hello& h) {
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
    if (h.request == read_request::set_cursor) {
        co_await set_cursor(store, durable_end, stream, peer, h);
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
