// A hostile daemon for tests (docs/PROTOCOL.md sections 1 and 3): it welcomes every sender
// and then reads whatever comes without ever acknowledging it, so a client can only end by its
// own retry window (resume.retry_for, `--retry-for`). Listens on 127.0.0.1 with a free port,
// prints "listening on 127.0.0.1:PORT" and each welcomed connection's number, and stops after
// `max_connections` connections (a bound on the loop) or when killed.
// Modes, each ending with an error frame whose text holds terminal escapes and a newline
// followed by a forged client line (a client must print it escaped):
//   refuse - the hello is answered with that error frame instead of the welcome;
//   end    - the welcome, then that error frame after the first bytes past the hello.
// Usage: silent_daemon [MAX_CONNECTIONS [refuse|end]]
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <thread>
#include <vector>

#include "proto/control.hpp"
#include "proto/errors.hpp"
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

enum class mode { silent, refuse, end };

// An error frame a terminal would obey if printed raw: red text, a window title, a bell, then
// a line that looks like the client's own.
std::vector<std::uint8_t> hostile_error_frame() {
    objwire::error_message e;
    e.code = static_cast<std::uint32_t>(objwire::proto_errc::unauthorized);
    e.text = "\x1b[31mred\x1b[0m \x1b]0;title\x07\nobjwire: all objects acknowledged";
    objwire::byte_buffer payload, frame;
    objwire::encode_error(e, payload);
    objwire::append_frame(frame, objwire::frame_kind::error, 0, payload.span());
    auto s = frame.span();
    return {s.begin(), s.end()};
}

bool write_all(int fd, const std::vector<std::uint8_t>& bytes) {
    return ::write(fd, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size());
}

void serve(int fd, mode m) {
    std::uint8_t buf[65536];
    // The hello comes first; the welcome answers it whatever it says.
    if (::read(fd, buf, sizeof buf) > 0) {
        if (m == mode::refuse) {
            write_all(fd, hostile_error_frame());
        } else if (write_all(fd, welcome_frame())) {
            if (m == mode::end && ::read(fd, buf, sizeof buf) > 0)
                write_all(fd, hostile_error_frame());
            while (::read(fd, buf, sizeof buf) > 0) {
            }
        }
    }
    ::close(fd);
}

}  // namespace

int main(int argc, char** argv) {
    const int max_connections = argc > 1 ? std::atoi(argv[1]) : 1000;
    const std::string_view how = argc > 2 ? argv[2] : "";
    const mode m = how == "refuse" ? mode::refuse : how == "end" ? mode::end : mode::silent;
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
        std::thread(serve, fd, m).detach();
    }
    return 0;
}
