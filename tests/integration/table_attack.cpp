// A hostile sender written from docs/PROTOCOL.md alone (no objwire code): it says hello,
// then sends data frames built byte by byte that make the receiver hold as much as its
// table budget lets a peer make it hold, or store as much as a few received bytes let it.
//
//   table_attack PORT MODE CONNECTIONS [HOLD_MS]
//
// MODE: nulls (kept objects, tag 12, holding lists of nulls), str4 / str40 (indexed strings
// of 4 / 40 bytes), types (record types of many short fields), amplify (one big indexed
// string, then 200 small frames referencing it 4 times each). All connections fill their
// tables at once, stay open HOLD_MS (default 0) and then say goodbye. Prints one line per
// connection: "ok FRAMES" when every frame was acknowledged, or "error CODE TEXT".
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "../support/raw_frames.hpp"
#include "../support/wait_until.hpp"

namespace {

using namespace objwire::test::raw;

// A string unique to `n`, of exactly `len` bytes of printable ASCII.
void unique_string(bytes_t& out, std::uint64_t n, std::size_t len) {
    for (std::size_t i = 0; i < len; ++i) {
        out.push_back(static_cast<std::uint8_t>('a' + n % 26));
        n /= 26;
    }
}

struct peer {
    int fd = -1;
    bytes_t in;
    std::uint64_t credit = 4u << 20;
    std::uint64_t sent_seq = 0, acked_seq = 0, unacked = 0;
    std::string error;

    bool send_all(const bytes_t& b) {
        std::size_t off = 0;
        while (off < b.size()) {
            ssize_t n = ::send(fd, b.data() + off, b.size() - off, MSG_NOSIGNAL);
            if (n <= 0) return false;
            off += static_cast<std::size_t>(n);
        }
        return true;
    }
    // The next frame's kind and payload; kind 0 at end of stream.
    std::uint8_t read_frame(bytes_t& payload) {
        for (;;) {
            if (in.size() >= 24) {
                std::uint32_t len = 0;
                std::memcpy(&len, &in[4], 4);
                if (in.size() >= 24 + len) {
                    const std::uint8_t kind = in[0];
                    payload.assign(in.begin() + 24, in.begin() + 24 + len);
                    in.erase(in.begin(), in.begin() + 24 + len);
                    return kind;
                }
            }
            std::uint8_t chunk[65536];
            ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
            if (n <= 0) return 0;
            in.insert(in.end(), chunk, chunk + n);
        }
    }
    // Control fields (section 3): key -> value bytes, calling f(key, value).
    template <class F>
    static void fields(const bytes_t& p, std::size_t at, F f) {
        auto get = [&](std::uint64_t& v) {
            v = 0;
            for (int s = 0; at < p.size(); s += 7) {
                const std::uint8_t b = p[at++];
                v |= std::uint64_t(b & 0x7F) << s;
                if (!(b & 0x80)) return;
            }
        };
        while (at < p.size()) {
            std::uint64_t key, len;
            get(key);
            get(len);
            f(key, bytes_t(p.begin() + at, p.begin() + at + len));
            at += len;
        }
    }
    static std::uint64_t number(const bytes_t& v) {
        std::uint64_t n = 0;
        for (std::size_t i = 0; i < v.size(); ++i)
            n |= std::uint64_t(v[i] & 0x7F) << (7 * i);
        return n;
    }
    // Reads frames until an ack covers `seq`; false on an error frame or a close.
    bool await_ack(std::uint64_t seq) {
        bytes_t p;
        while (acked_seq < seq) {
            const std::uint8_t kind = read_frame(p);
            if (kind == 0) {
                if (error.empty()) error = "closed";
                return false;
            }
            if (kind == 4)
                fields(p, 0, [&](std::uint64_t k, const bytes_t& v) {
                    if (k == 1) acked_seq = number(v);
                });
            if (kind == 5) {
                std::string text;
                std::uint64_t code = 0;
                fields(p, 0, [&](std::uint64_t k, const bytes_t& v) {
                    if (k == 1) code = number(v);
                    if (k == 2) text.assign(v.begin(), v.end());
                });
                error = std::to_string(code) + " " + text;
            }
        }
        unacked = 0;
        return true;
    }
    bool connect_and_greet(std::uint16_t port) {
        fd = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_port = htons(port);
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) return false;
        bytes_t hello = {'O', 'B', 'J', 'W', 1, 0};
        hello.insert(hello.end(), {1, 6, 'a', 't', 't', 'a', 'c', 'k'});
        hello.insert(hello.end(), {4, 1, 1});  // codecs: none
        if (!send_all(frame(1, 0, hello))) return false;
        bytes_t p;
        if (read_frame(p) != 2) return false;
        fields(p, 6, [&](std::uint64_t k, const bytes_t& v) {
            if (k == 11 && number(v) != 0) credit = number(v);
        });
        return true;
    }
    bool send_data(const bytes_t& payload) {
        if (unacked + payload.size() + 24 > credit / 2 && !await_ack(sent_seq)) return false;
        if (!send_all(frame(3, ++sent_seq, payload))) return false;
        unacked += payload.size() + 24;
        return true;
    }
};

// The data payloads of one connection.
std::vector<bytes_t> attack(const std::string& mode) {
    std::vector<bytes_t> frames;
    constexpr std::uint64_t budget = 4u << 20;
    if (mode == "nulls") {
        // 70 kept lists of 60,000 nulls: 4.2 MB on the wire, what a 4 MiB budget takes.
        for (int f = 0; f < 70; ++f) {
            bytes_t p = {0x12, 0x09};
            varint(p, 60000);
            p.insert(p.end(), 60000, 0x00);
            frames.push_back(std::move(p));
        }
    } else if (mode == "str4" || mode == "str40") {
        const std::size_t len = mode == "str4" ? 4 : 40;
        const std::uint64_t count = budget / (len + 32) + 1000;  // past the budget
        std::uint64_t n = 0;
        while (n < count) {
            bytes_t p = {0x09};
            const std::uint64_t here = std::min<std::uint64_t>(20000, count - n);
            varint(p, here);
            for (std::uint64_t i = 0; i < here; ++i, ++n) {
                p.push_back(0x06);
                varint(p, len);
                unique_string(p, n, len);
            }
            frames.push_back(std::move(p));
        }
    } else if (mode == "types") {
        // Records of new types, each of 2,000 three-byte field names written as literals.
        for (std::uint64_t t = 0; t < 300; ++t) {
            bytes_t p = {0x0B, 0x05, 0x04};
            unique_string(p, t, 4);
            varint(p, 2000);
            for (std::uint64_t f = 0; f < 2000; ++f) {
                p.insert(p.end(), {0x05, 0x03});
                unique_string(p, f, 3);
            }
            p.insert(p.end(), 2000, 0x00);
            frames.push_back(std::move(p));
        }
    } else if (mode == "amplify") {
        // One indexed string of 4 MiB - 256 bytes (id 0), then 200 frames of four references.
        bytes_t p = {0x06};
        const std::uint64_t len = budget - 256;
        varint(p, len);
        p.insert(p.end(), len, 'x');
        frames.push_back(std::move(p));
        for (int f = 0; f < 200; ++f)
            frames.push_back({0x09, 0x04, 0x07, 0x00, 0x07, 0x00, 0x07, 0x00, 0x07, 0x00});
    } else {
        std::fprintf(stderr, "unknown mode %s\n", mode.c_str());
        std::exit(2);
    }
    return frames;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 4) {
        std::fprintf(stderr, "usage: table_attack PORT MODE CONNECTIONS [HOLD_MS]\n");
        return 2;
    }
    const auto port = static_cast<std::uint16_t>(std::atoi(argv[1]));
    const std::string mode = argv[2];
    const int connections = std::atoi(argv[3]);
    const int hold_ms = argc > 4 ? std::atoi(argv[4]) : 0;
    const auto frames = attack(mode);
    std::vector<peer> peers(static_cast<std::size_t>(connections));
    std::vector<std::thread> threads;
    for (auto& p : peers)
        threads.emplace_back([&] {
            if (!p.connect_and_greet(port)) {
                p.error = "no welcome";
                return;
            }
            for (const auto& f : frames)
                if (!p.send_data(f)) return;
            p.await_ack(p.sent_seq);
        });
    for (auto& t : threads)
        t.join();
    // Every connection stays open, its table full, for the hold: the load whose memory the
    // test measures.
    objwire::test::pause_as_peer(std::chrono::milliseconds(hold_ms));
    for (auto& p : peers) {
        if (p.error.empty()) {
            p.send_all(frame(6, 0, {}));
            std::printf("ok %llu\n", static_cast<unsigned long long>(p.acked_seq));
        } else {
            std::printf("error %s\n", p.error.c_str());
        }
        ::close(p.fd);
    }
    return 0;
}
