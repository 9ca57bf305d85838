// Readers that stall: each connects to objwired on 127.0.0.1, says a reader hello (from offset
// 0, or with "follow-end" following from the durable end) and then never reads from its
// socket, so the daemon's writes to it wait (TCP back-pressure) - the load whose memory
// tests/integration/reader_cost_test.sh measures. Prints "connected N" once every hello is
// sent, then holds the connections until its standard input closes (at most HOLD seconds).
// RCVBUF is each socket's receive buffer: 4096 by default, 0 for the kernel's own (autotuned).
// With "idle-sender" each says a sender hello instead (sender id "idle-N") and sends nothing
// after it: the idle sender connections whose memory sender_idle_memory_test.sh measures.
//
//   stalled_readers PORT CONNECTIONS [from-start|follow-end|idle-sender] [HOLD] [RCVBUF]
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "proto/control.hpp"
#include "proto/frame.hpp"

namespace {

enum class peer_kind { reader_from_start, follower_at_end, idle_sender };

objwire::hello hello_of(peer_kind kind, int index) {
    objwire::hello h;
    h.client_name = "stalled_readers";
    if (kind == peer_kind::idle_sender) {
        h.sender_id = "idle-" + std::to_string(index);
        return h;
    }
    const bool follow_end = kind == peer_kind::follower_at_end;
    h.role = objwire::peer_role::reader;
    h.max_frame_bytes = 64u << 20;
    h.follow = follow_end;
    h.read_at_end = follow_end;
    return h;
}

int connect_peer(std::uint16_t port, peer_kind kind, int index, int rcvbuf) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return -1;
    // A small receive window: the daemon's writes stall after a few KiB, as for a peer that
    // stopped reading long ago, whatever the kernel's autotuning would allow.
    if (rcvbuf > 0) ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
        ::close(fd);
        return -1;
    }
    objwire::byte_buffer payload, frame;
    objwire::encode_hello(hello_of(kind, index), payload);
    objwire::append_frame(frame, objwire::frame_kind::hello, 0, payload.span());
    if (::send(fd, frame.data(), frame.size(), MSG_NOSIGNAL) !=
        static_cast<ssize_t>(frame.size())) {
        ::close(fd);
        return -1;
    }
    return fd;
}

// Whether the daemon's first reply (a welcome, 24 bytes of header at least) came within 30 s.
bool welcomed(int fd) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 30000) != 1) return false;
    char reply[4096];
    return ::recv(fd, reply, sizeof reply, 0) >= 24 &&
           reply[0] == static_cast<char>(objwire::frame_kind::welcome);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr,
                     "usage: stalled_readers PORT CONNECTIONS [from-start|follow-end|idle-sender] "
                     "[HOLD] [RCVBUF]\n");
        return 2;
    }
    const auto port = static_cast<std::uint16_t>(std::atoi(argv[1]));
    const int connections = std::atoi(argv[2]);
    const std::string mode = argc > 3 ? argv[3] : "from-start";
    const peer_kind kind = mode == "follow-end"    ? peer_kind::follower_at_end
                           : mode == "idle-sender" ? peer_kind::idle_sender
                                                   : peer_kind::reader_from_start;
    const int hold_s = argc > 4 ? std::atoi(argv[4]) : 120;
    const int rcvbuf = argc > 5 ? std::atoi(argv[5]) : 4096;
    std::vector<int> fds;
    for (int i = 0; i < connections; ++i) {
        const int fd = connect_peer(port, kind, i + 1, rcvbuf);
        if (fd < 0) {
            std::fprintf(stderr, "connection %d failed: %s\n", i + 1, std::strerror(errno));
            return 1;
        }
        fds.push_back(fd);
    }
    // An idle sender counts once the daemon welcomed it (admitted: past its hello).
    if (kind == peer_kind::idle_sender)
        for (std::size_t i = 0; i < fds.size(); ++i)
            if (!welcomed(fds[i])) {
                std::fprintf(stderr, "connection %zu: no welcome within 30 s\n", i + 1);
                return 1;
            }
    std::printf("connected %d\n", connections);
    std::fflush(stdout);
    // Holds until the test closes our input, or the bound.
    pollfd in{0, POLLIN, 0};
    ::poll(&in, 1, hold_s * 1000);
    for (int fd : fds)
        ::close(fd);
    return 0;
}
