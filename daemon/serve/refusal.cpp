#include "daemon/serve/refusal.hpp"

#include <array>
#include <memory>

#include "proto/control.hpp"
#include "proto/frame.hpp"

namespace objwire::daemon {
namespace {

struct lingering_socket {
    explicit lingering_socket(asio::ip::tcp::socket s)
        : socket(std::move(s)), timer(socket.get_executor()) {}
    asio::ip::tcp::socket socket;
    asio::steady_timer timer;
    std::array<std::uint8_t, 1024> scratch{};
};

// Reads and drops what the peer sends until it closes or the timer closes the socket.
void drain(std::shared_ptr<lingering_socket> s, std::atomic<int>& count) {
    s->socket.async_read_some(asio::buffer(s->scratch),
                              [s, &count](std::error_code ec, std::size_t) mutable {
                                  if (!ec) return drain(std::move(s), count);
                                  s->timer.cancel();
                                  std::error_code ignored;
                                  s->socket.close(ignored);
                                  --count;
                              });
}

}  // namespace

byte_buffer error_frame(std::error_code code, const std::string& detail) {
    byte_buffer payload, frame;
    encode_error({static_cast<std::uint32_t>(code.value()), code.message() + ": " + detail},
                 payload);
    append_frame(frame, frame_kind::error, 0, payload.span());
    return frame;
}

void refusals::refuse(asio::ip::tcp::socket socket, std::error_code code,
                      const std::string& detail) {
    const byte_buffer frame = error_frame(code, detail);
    std::error_code ec;
    // A fresh socket's send buffer is empty: the frame (a few hundred bytes) goes in one call
    // without waiting, and a peer that reads nothing costs us nothing.
    socket.non_blocking(true, ec);
    if (!ec) socket.write_some(asio::buffer(frame.data(), frame.size()), ec);
    socket.shutdown(asio::ip::tcp::socket::shutdown_send, ec);
    if (lingering_.fetch_add(1) >= max_lingering) {
        --lingering_;
        socket.close(ec);
        return;
    }
    auto s = std::make_shared<lingering_socket>(std::move(socket));
    s->timer.expires_after(linger);
    s->timer.async_wait([weak = std::weak_ptr<lingering_socket>(s)](std::error_code tec) {
        if (tec) return;
        if (auto held = weak.lock()) {
            std::error_code ignored;
            held->socket.close(ignored);  // ends drain()
        }
    });
    drain(std::move(s), lingering_);
}

}  // namespace objwire::daemon
