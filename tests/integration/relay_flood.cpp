// A sender that floods a relay with frames of null messages while the relay's next hop is
// stopped, written from docs/PROTOCOL.md alone (no objwire code):
//
//   relay_flood PORT HOP_PID FRAMES NULLS_PER_FRAME
//
// It says hello, sends one frame of 10 nulls and waits for its ack (so the relay's connection
// to the hop is open), stops the hop (SIGSTOP), then writes FRAMES frames of NULLS_PER_FRAME
// one-byte null messages without waiting for acks, says goodbye and waits for the ack of the
// last frame - which comes only once the hop runs again (the test sends it SIGCONT). HOP_PID 0
// stops nothing. Prints "hop stopped" before the flood and "ok FRAMES_ACKED" or "error TEXT"
// (an error frame's text) at the end. Every read has a 120 s deadline.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "../support/raw_frames.hpp"

namespace {

using namespace objwire::test::raw;

std::uint64_t number(const bytes_t& v) {
    std::uint64_t n = 0;
    for (std::size_t i = 0; i < v.size() && i < 10; ++i)
        n |= std::uint64_t(v[i] & 0x7F) << (7 * i);
    return n;
}

// Control fields (section 3): calls f(key, value) for each.
template <class F>
void fields(const bytes_t& p, std::size_t at, F f) {
    auto get = [&](std::uint64_t& v) {
        v = 0;
        for (int s = 0; at < p.size() && s < 64; s += 7) {
            const std::uint8_t b = p[at++];
            v |= std::uint64_t(b & 0x7F) << s;
            if (!(b & 0x80)) return;
        }
    };
    while (at < p.size()) {
        std::uint64_t key, len;
        get(key);
        get(len);
        if (len > p.size() - at) return;
        f(key, bytes_t(p.begin() + static_cast<std::ptrdiff_t>(at),
                       p.begin() + static_cast<std::ptrdiff_t>(at + len)));
        at += len;
    }
}

struct peer {
    int fd = -1;
    bytes_t in;
    std::uint64_t acked = 0;
    std::string error;

    bool send_all(const bytes_t& b) {
        std::size_t off = 0;
        while (off < b.size()) {
            const ssize_t n = ::send(fd, b.data() + off, b.size() - off, MSG_NOSIGNAL);
            if (n <= 0) return false;
            off += static_cast<std::size_t>(n);
        }
        return true;
    }
    // The next frame's kind (0: closed or the read deadline passed) and payload.
    std::uint8_t read_frame(bytes_t& payload) {
        for (;;) {
            if (in.size() >= 24) {
                std::uint32_t len = 0;
                std::memcpy(&len, &in[4], 4);
                if (in.size() >= 24 + std::size_t{len}) {
                    const std::uint8_t kind = in[0];
                    payload.assign(in.begin() + 24, in.begin() + 24 + len);
                    in.erase(in.begin(), in.begin() + 24 + len);
                    return kind;
                }
            }
            std::uint8_t chunk[65536];
            const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
            if (n <= 0) return 0;
            in.insert(in.end(), chunk, chunk + n);
        }
    }
    bool await_ack(std::uint64_t seq) {
        bytes_t p;
        while (acked < seq) {
            const std::uint8_t kind = read_frame(p);
            if (kind == 0) {
                if (error.empty()) error = "closed before the ack of frame " + std::to_string(seq);
                return false;
            }
            if (kind == 4)
                fields(p, 0, [&](std::uint64_t k, const bytes_t& v) {
                    if (k == 1) acked = number(v);
                });
            if (kind == 5)
                fields(p, 0, [&](std::uint64_t k, const bytes_t& v) {
                    if (k == 2) error.assign(v.begin(), v.end());
                });
        }
        return true;
    }
    bool connect_and_greet(std::uint16_t port) {
        fd = ::socket(AF_INET, SOCK_STREAM, 0);
        timeval deadline{120, 0};
        ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &deadline, sizeof deadline);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_port = htons(port);
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) return false;
        bytes_t hello = {'O', 'B', 'J', 'W', 1, 0};
        hello.insert(hello.end(), {1, 5, 'f', 'l', 'o', 'o', 'd'});
        hello.insert(hello.end(), {4, 1, 1});  // codecs: none
        if (!send_all(frame(1, 0, hello))) return false;
        bytes_t p;
        return read_frame(p) == 2;
    }
};

}  // namespace

int main(int argc, char** argv) {
    if (argc != 5) {
        std::fprintf(stderr, "usage: relay_flood PORT HOP_PID FRAMES NULLS_PER_FRAME\n");
        return 2;
    }
    const auto port = static_cast<std::uint16_t>(std::atoi(argv[1]));
    const pid_t hop = static_cast<pid_t>(std::atol(argv[2]));
    const std::uint64_t frames = std::strtoull(argv[3], nullptr, 10);
    const std::size_t nulls = std::strtoull(argv[4], nullptr, 10);
    peer p;
    if (!p.connect_and_greet(port)) {
        std::printf("error no welcome\n");
        return 1;
    }
    // A null message is the single byte 00 (section 4).
    if (!p.send_all(frame(3, 1, bytes_t(10, 0x00))) || !p.await_ack(1)) {
        std::printf("error %s\n", p.error.c_str());
        return 1;
    }
    if (hop != 0 && ::kill(hop, SIGSTOP) != 0) {
        std::printf("error cannot stop the hop: %s\n", std::strerror(errno));
        return 1;
    }
    if (hop != 0) std::printf("hop stopped\n");
    std::fflush(stdout);
    const bytes_t payload(nulls, 0x00);
    for (std::uint64_t s = 2; s <= frames + 1; ++s)
        if (!p.send_all(frame(3, s, payload))) {
            std::printf("error write failed at frame %llu\n", static_cast<unsigned long long>(s));
            return 1;
        }
    p.send_all(frame(6, 0, {}));  // goodbye
    if (!p.await_ack(frames + 1)) {
        std::printf("error %s\n", p.error.c_str());
        return 1;
    }
    std::printf("ok %llu\n", static_cast<unsigned long long>(p.acked));
    ::close(p.fd);
    return 0;
}
