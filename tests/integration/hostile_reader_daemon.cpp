// A hostile daemon for `objwire read` (docs/PROTOCOL.md 1.2, "Reading back"): it answers one
// reader's hello with a welcome, then serves one journal block of OBJECTS null messages
// stored under a sender id of ID_BYTES bytes, then a goodbye. The block is well formed (its
// CRC checks): what a reader decodes from it is what it costs. With `backwards`, the same
// block is served twice (frames 1 and 2): offsets that go back.
//
//   hostile_reader_daemon OBJECTS ID_BYTES [backwards]
// Prints "listening on 127.0.0.1:PORT" once it listens, serves one connection and exits.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "proto/control.hpp"
#include "proto/frame.hpp"
#include "proto/frame_reader.hpp"
#include "proto/journal_block.hpp"

using namespace objwire;

namespace {

bool write_all(int fd, std::span<const std::uint8_t> b) {
    while (!b.empty()) {
        const auto n = ::write(fd, b.data(), b.size());
        if (n <= 0) return false;
        b = b.subspan(static_cast<std::size_t>(n));
    }
    return true;
}

// Reads until the reader's hello frame is whole; false if the peer went away first.
bool read_hello(int fd) {
    frame_reader frames(1u << 20, 64 * 1024);
    for (;;) {
        auto r = frames.next();
        if (r.state == frame_parser::status::frame) return r.frame.header.kind == frame_kind::hello;
        if (r.state == frame_parser::status::error) return false;
        auto space = frames.prepare();
        const auto n = ::read(fd, space.data(), space.size());
        if (n <= 0) return false;
        frames.commit(static_cast<std::size_t>(n));
    }
}

int listen_local() {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&a), len) != 0 || ::listen(fd, 4) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0)
        return -1;
    std::printf("listening on 127.0.0.1:%u\n", ntohs(a.sin_port));
    std::fflush(stdout);
    return fd;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3 && !(argc == 4 && std::string(argv[3]) == "backwards")) {
        std::fprintf(stderr, "usage: hostile_reader_daemon OBJECTS ID_BYTES [backwards]\n");
        return 2;
    }
    const auto objects = std::strtoull(argv[1], nullptr, 10);
    const auto id_bytes = std::strtoull(argv[2], nullptr, 10);
    journal_block_writer w(std::string(id_bytes, 'i'));
    const message null_message;
    for (std::uint64_t i = 0; i < objects; ++i)
        if (w.add(null_message)) return 2;
    auto block = w.finish(1, 1, 0);
    seal_journal_block(block, 0);

    const int listener = listen_local();
    if (listener < 0) return 2;
    const int fd = ::accept(listener, nullptr, nullptr);
    if (fd < 0 || !read_hello(fd)) return 2;
    welcome wl;
    wl.sink = "journal";
    wl.journal_end_offset = argc == 4 ? 2 * objects : objects;
    byte_buffer payload, out;
    encode_welcome(wl, payload);
    append_frame(out, frame_kind::welcome, 0, payload.span());
    append_frame(out, frame_kind::journal_block, 1, block);
    if (argc == 4) append_frame(out, frame_kind::journal_block, 2, block);
    append_frame(out, frame_kind::goodbye, 0, {});
    write_all(fd, out.span());
    // Until the reader goes: its end, not ours, closes the stream.
    std::uint8_t sink[4096];
    while (::read(fd, sink, sizeof sink) > 0) {
    }
    ::close(fd);
    return 0;
}
