// cursor_ack_bench HOST:PORT CURSOR ACK_EVERY: reads everything a running objwired's journal
// holds with the named cursor (give a new name per run), acking every ACK_EVERY objects, then
// finish_cursor; prints the objects read, the acks made and the seconds from open to the
// daemon's goodbye. Two runs, ACK_EVERY 1 and 1000, compare what acking costs
// (docs/PERFORMANCE.md, "Cursor acks"); the daemon's objwire_cursor_acks_total,
// objwire_cursor_writes_total and objwire_cursor_fsyncs_total say what it did with them.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <objwire/reader.hpp>

int main(int argc, char** argv) {
    if (argc < 4) {
        std::fprintf(stderr, "usage: cursor_ack_bench HOST:PORT CURSOR ACK_EVERY\n");
        return 2;
    }
    const std::string addr = argv[1];
    const std::uint64_t every = std::strtoull(argv[3], nullptr, 10);
    if (every == 0) {
        std::fprintf(stderr, "cursor_ack_bench: ACK_EVERY must be 1 or more\n");
        return 2;
    }
    objwire::client::options options;
    options.host = addr.substr(0, addr.rfind(':'));
    options.port = static_cast<std::uint16_t>(std::stoi(addr.substr(addr.rfind(':') + 1)));
    objwire::client::read_options read;
    read.cursor = argv[2];
    const auto began = std::chrono::steady_clock::now();
    objwire::client::reader r(options, read);
    if (auto ec = r.open()) {
        std::fprintf(stderr, "cursor_ack_bench: %s\n", r.last_error().c_str());
        return 1;
    }
    objwire::client::stored_message m;
    std::uint64_t objects = 0;
    std::uint64_t acks = 0;
    std::uint64_t next = r.start();
    while (r.next(m)) {
        next = m.offset + 1;
        if (++objects % every != 0) continue;
        if (r.ack(next)) break;
        ++acks;
    }
    if (r.error() || r.finish_cursor(next)) {
        std::fprintf(stderr, "cursor_ack_bench: %s\n", r.last_error().c_str());
        return 1;
    }
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    std::printf("ack_every %llu: %llu objects, %llu acks, %.3f s\n",
                static_cast<unsigned long long>(every), static_cast<unsigned long long>(objects),
                static_cast<unsigned long long>(acks), s);
    return 0;
}
