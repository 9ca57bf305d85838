// Turning a connection away before its session starts (a connection cap is reached): the peer
// gets an objwire error frame - code and text with the figure, the limit and the key that sets
// it - so its client can say why instead of "connection lost". The frame goes in clear even on
// a TLS daemon: nothing has been read yet, and objwire's client recognises an error frame in
// place of the TLS server hello. The refused socket is then held briefly, taking in what the
// peer already sent (its hello), so closing does not reset the connection before it reads the
// reason.
#pragma once

#include <asio.hpp>
#include <atomic>
#include <chrono>
#include <string>
#include <system_error>

#include "proto/byte_buffer.hpp"

namespace objwire::daemon {

// The error frame a turned-away peer gets: `code`, and `code.message() + ": " + detail`.
byte_buffer error_frame(std::error_code code, const std::string& detail);

class refusals {
  public:
    // How long a refused socket is held at most; and how many at once (beyond that, the frame
    // is still written but the socket closed at once: a flood costs no descriptors).
    static constexpr std::chrono::milliseconds linger{500};
    static constexpr int max_lingering = 64;

    // Writes the error frame (`code`, `code.message() + ": " + detail`) and closes the socket,
    // after the linger. Runs on the socket's executor.
    void refuse(asio::ip::tcp::socket socket, std::error_code code, const std::string& detail);
    int lingering() const { return lingering_; }

  private:
    std::atomic<int> lingering_{0};
};

}  // namespace objwire::daemon
