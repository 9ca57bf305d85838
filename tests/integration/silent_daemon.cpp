// A hostile daemon for tests (docs/PROTOCOL.md sections 1 and 3): it welcomes every sender
// and then reads whatever comes without ever acknowledging it, so a client can only end by its
// own retry window (resume.retry_for, `--retry-for`). Listens on 127.0.0.1 with a free port,
// prints "listening on 127.0.0.1:PORT" and each welcomed connection's number, and stops after
// `max_connections` connections (a bound on the loop) or when killed.
// Usage: silent_daemon [MAX_CONNECTIONS]
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include "proto/control.hpp"
#include "proto/frame.hpp"

namespace {

// The welcome a sender accepts: the default limits, zlib, a credit of 1 MiB.
std::vector<std::uint8_t> welcome_frame() {
    objwire::welcome w;
    w.server_name = "silent";
    w.sink = "nowhere";
    w.credit_bytes = 1 << 20;
    objwire::byte_buffer payload, frame;
    objwire::encode_welcome(w, payload);
    objwire::append_frame(frame, objwire::frame_kind::welcome, 0, payload.span());
    auto s = frame.span();
    return {s.begin(), s.end()};
}

void serve(int fd) {
    std::uint8_t buf[65536];
    // The hello comes first; the welcome answers it whatever it says.
    if (::read(fd, buf, sizeof buf) > 0) {
        const auto welcome = welcome_frame();
        if (::write(fd, welcome.data(), welcome.size()) == static_cast<ssize_t>(welcome.size()))
            while (::read(fd, buf, sizeof buf) > 0) {
            }
    }
    ::close(fd);
}

}  // namespace

int main(int argc, char** argv) {
    const int max_connections = argc > 1 ? std::atoi(argv[1]) : 1000;
    const int listener = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (listener < 0 || ::bind(listener, reinterpret_cast<sockaddr*>(&addr), len) != 0 ||
        ::listen(listener, 64) != 0 ||
        ::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
        std::perror("silent_daemon: listen");
        return 1;
    }
    std::printf("listening on 127.0.0.1:%u\n", ntohs(addr.sin_port));
    std::fflush(stdout);
    for (int i = 0; i < max_connections; ++i) {
        const int fd = ::accept(listener, nullptr, nullptr);
        if (fd < 0) return 1;
        std::printf("connection %d\n", i + 1);
        std::fflush(stdout);
        std::thread(serve, fd).detach();
    }
    return 0;
}
