#include "daemon/serve/roles.hpp"

#include <asio/experimental/as_tuple.hpp>

#include "daemon/serve/server.hpp"
#include "proto/frame.hpp"

namespace objwire::daemon {

slot_role_mark mark_slot(server& srv, peer_stream& stream, slot_role role) {
    // The same key the accept loop took the slot under.
    return slot_role_mark(srv.addresses(), stream.peer_address(), role);
}

asio::awaitable<void> refuse_role(peer_stream& stream, std::error_code code, std::string text) {
    byte_buffer payload;
    encode_error({static_cast<std::uint32_t>(code.value()), code.message() + ": " + text}, payload);
    byte_buffer frame;
    append_frame(frame, frame_kind::error, 0, payload.span());
    co_await asio::async_write(stream, asio::buffer(frame.data(), frame.size()),
                               asio::experimental::as_tuple(asio::use_awaitable));
}

}  // namespace objwire::daemon
