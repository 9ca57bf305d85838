// msgpack_peer [-n N] [--workload events|person] [--array] [--struct] [--json]: the hand-written
// MessagePack sender and receiver that `objwire bench` is compared with (docs/PERFORMANCE.md,
// "Latency"). One process, two threads, one TCP connection over 127.0.0.1: the sender encodes
// the objects of objwire's own workload generator (client/workloads/workloads.hpp, the records
// `objwire bench` sends) with tests/bench/msgpack_wire.hpp, each record as a map keyed by its
// field names (--array: an array of its values), and writes them in 64 KiB buffers; the
// receiver reads 64 KiB at a time and decodes every object into a value tree whose strings
// point into the read buffer, counting them. With --struct it then converts each tree into the
// workload's struct with strings of its own (tests/bench/msgpack_struct.hpp; typed_events::Event
// or typed_person::Person), by field name from a map and by position from an array, as a
// program receiving records with msgpack-cxx does; an object of another shape fails the run,
// and the structs' checksum must equal the one of the records sent. Nothing is stored and
// nothing acknowledged. The objects are generated before the clock starts; it runs from the
// sender's first object to the receiver's last decoded one. Prints objects/s, bytes/object and
// CPU seconds (--json: one JSON object, like objwire bench).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <type_traits>
#include <vector>

#include "client/cli/bench_report.hpp"
#include "client/workloads/workloads.hpp"
#include "tests/bench/msgpack_struct.hpp"
#include "tests/bench/msgpack_wire.hpp"
#include "tests/bench/typed_event.hpp"
#include "tests/bench/typed_person.hpp"

namespace {

using objwire::msgpack_wire::decode_status;
using objwire::msgpack_wire::record_form;

constexpr std::size_t block_size = 64 * 1024;

struct options {
    std::uint64_t count = 1'000'000;
    std::string workload = "events";
    record_form form = record_form::map;
    bool to_struct = false;  // --struct: each object converted into the workload's struct
    bool json = false;
};

[[noreturn]] void usage(const char* why) {
    std::fprintf(stderr,
                 "msgpack_peer: %s\nusage: msgpack_peer [-n N] [--workload events|person] "
                 "[--array] [--struct] [--json]\n",
                 why);
    std::exit(2);
}

options parse(int argc, char** argv) {
    options o;
    for (int i = 1; i < argc; ++i) {
        const std::string_view a = argv[i];
        const bool has_next = i + 1 < argc;
        if (a == "-n" && has_next)
            o.count = std::strtoull(argv[++i], nullptr, 10);
        else if (a == "--workload" && has_next)
            o.workload = argv[++i];
        else if (a == "--array")
            o.form = record_form::array;
        else if (a == "--struct")
            o.to_struct = true;
        else if (a == "--json")
            o.json = true;
        else
            usage(("unknown argument " + std::string(a)).c_str());
    }
    // graph refers to shared objects and blobs carries bytes: neither is in the subset.
    if (o.workload != "events" && o.workload != "person") usage("workload is events or person");
    if (o.count == 0) usage("-n is at least 1");
    return o;
}

std::vector<objwire::message> generate(const options& o) {
    auto w = objwire::workloads::make(o.workload);
    std::vector<objwire::message> out(o.count);
    for (auto& m : out)
        w->next(m);
    return out;
}

[[noreturn]] void fail(const char* what) {
    throw std::system_error(errno, std::generic_category(), what);
}

std::int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

double thread_cpu_seconds() {
    rusage u{};
    getrusage(RUSAGE_THREAD, &u);
    const auto s = [](const timeval& t) {
        return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
    };
    return s(u.ru_utime) + s(u.ru_stime);
}

sockaddr_in loopback(std::uint16_t port) {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return a;
}

// A listening socket on 127.0.0.1 at a port the system picks; `port` says which.
int listen_loopback(std::uint16_t& port) {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    auto a = loopback(0);
    socklen_t len = sizeof a;
    if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || listen(fd, 1) != 0 ||
        getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0)
        fail("listen on 127.0.0.1");
    port = ntohs(a.sin_port);
    return fd;
}

int connect_loopback(std::uint16_t port) {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    const auto a = loopback(port);
    if (fd < 0 || connect(fd, reinterpret_cast<const sockaddr*>(&a), sizeof a) != 0)
        fail("connect to 127.0.0.1");
    return fd;
}

void write_all(int fd, std::string_view bytes) {
    while (!bytes.empty()) {
        const auto n = write(fd, bytes.data(), bytes.size());
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) fail("write");
        bytes.remove_prefix(static_cast<std::size_t>(n));
    }
}

struct side {
    double cpu_seconds = 0;
    std::uint64_t bytes = 0;
    std::uint64_t objects = 0;
    std::int64_t at_ns = 0;  // sender: its start; receiver: its last object decoded
    // The receiver with --struct: objects whose shape is not the struct's, and the checksum
    // (msgpack_wire::struct_check) of the structs made from the others.
    std::uint64_t refused = 0;
    std::uint64_t check = 0;
};

// Encodes every object into a buffer written whenever it holds 64 KiB, then ends the stream.
side send_all(int fd, const std::vector<objwire::message>& objects, record_form form) {
    side s;
    s.at_ns = now_ns();
    std::string out;
    out.reserve(2 * block_size);
    for (const auto& m : objects) {
        objwire::msgpack_wire::put_value(out, m.root, form);
        if (out.size() < block_size) continue;
        write_all(fd, out);
        s.bytes += out.size();
        out.clear();
    }
    write_all(fd, out);
    s.bytes += out.size();
    shutdown(fd, SHUT_WR);
    s.objects = objects.size();
    s.cpu_seconds = thread_cpu_seconds();
    return s;
}

// Room for one more 64 KiB read after the bytes not yet decoded, moved to the front.
void make_room(std::vector<std::uint8_t>& buf, std::size_t& pos, std::size_t& have) {
    std::memmove(buf.data(), buf.data() + pos, have - pos);
    have -= pos;
    pos = 0;
    if (buf.size() - have < block_size) buf.resize(have + block_size);
}

// What the receiver does with an object once decoded into its tree: nothing more by default.
struct keep_tree {
    void operator()(const objwire::msgpack_wire::decoder&, side&) const {}
};

// As far as the compiler knows, code it cannot see reads the struct's strings: their copies
// stay, as they would in a program that hands the records on.
template <class T>
void escape(const T& s) {
    boost::mp11::mp_for_each<objwire::msgpack_wire::struct_fields<T>>([&](auto field) {
        const auto& v = s.*field.pointer;
        if constexpr (std::is_same_v<std::remove_cvref_t<decltype(v)>, std::string>)
            asm volatile("" : : "r"(v.data()) : "memory");
    });
}

// --struct: each object converted into a fresh T, as a program handing each record on makes
// one, then sunk (its checksum added, its strings escaped); one of another shape is refused.
template <class T>
struct make_struct {
    record_form form;

    void operator()(const objwire::msgpack_wire::decoder& d, side& s) const {
        T out;
        if (!objwire::msgpack_wire::to_struct(d, form, out)) {
            ++s.refused;
            return;
        }
        s.check += objwire::msgpack_wire::struct_check(out);
        escape(out);
    }
};

// Decodes the objects buf[pos, have) holds in full, handing each to `take`; throws on bytes
// that are not msgpack. The clock is read once per block, not per object: the last object
// ends in the last block.
template <class Take>
void decode_ready(objwire::msgpack_wire::decoder& d, const std::vector<std::uint8_t>& buf,
                  std::size_t& pos, std::size_t have, side& s, const Take& take) {
    const std::span<const std::uint8_t> in(buf.data(), have);
    const auto before = s.objects;
    for (;;) {
        const auto status = d.next(in, pos);
        if (status == decode_status::incomplete) break;
        if (status == decode_status::malformed) throw std::runtime_error("malformed msgpack");
        take(d, s);
        ++s.objects;
    }
    if (s.objects != before) s.at_ns = now_ns();
}

template <class Take>
side receive_all(int fd, const Take& take) {
    side s;
    objwire::msgpack_wire::decoder d;
    std::vector<std::uint8_t> buf(2 * block_size);
    std::size_t pos = 0, have = 0;
    for (;;) {
        make_room(buf, pos, have);
        const auto n = read(fd, buf.data() + have, block_size);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) fail("read");
        if (n == 0) break;
        have += static_cast<std::size_t>(n);
        s.bytes += static_cast<std::size_t>(n);
        decode_ready(d, buf, pos, have, s, take);
    }
    if (pos != have) throw std::runtime_error("the stream ends inside an object");
    s.cpu_seconds = thread_cpu_seconds();
    return s;
}

struct run_result {
    side sent, received;
};

// A thread running `f`, its exception kept in `error` for the joiner.
template <class F>
std::thread guarded(std::exception_ptr& error, F f) {
    return std::thread([&error, f] {
        try {
            f();
        } catch (...) {
            error = std::current_exception();
        }
    });
}

template <class Take>
run_result run(const std::vector<objwire::message>& objects, record_form form, const Take& take) {
    std::uint16_t port = 0;
    const int listener = listen_loopback(port);
    run_result r;
    std::exception_ptr receiver_error, sender_error;
    auto receiver = guarded(receiver_error, [&] {
        const int fd = accept(listener, nullptr, nullptr);
        if (fd < 0) fail("accept");
        r.received = receive_all(fd, take);
        close(fd);
    });
    const int fd = connect_loopback(port);
    auto sender = guarded(sender_error, [&] {
        try {
            r.sent = send_all(fd, objects, form);
        } catch (...) {
            shutdown(fd, SHUT_WR);  // the receiver sees the end instead of waiting for it
            throw;
        }
    });
    sender.join();
    receiver.join();
    close(fd);
    close(listener);
    for (const auto& e : {sender_error, receiver_error})
        if (e) std::rethrow_exception(e);
    return r;
}

run_result run(const options& o, const std::vector<objwire::message>& objects) {
    if (!o.to_struct) return run(objects, o.form, keep_tree{});
    if (o.workload == "events")
        return run(objects, o.form, make_struct<typed_events::Event>{o.form});
    return run(objects, o.form, make_struct<typed_person::Person>{o.form});
}

// The checksum the receiver's structs must add up to: the one of the records sent.
std::uint64_t expected_check(const options& o, const std::vector<objwire::message>& objects) {
    std::uint64_t sum = 0;
    for (const auto& m : objects)
        sum += o.workload == "events"
                   ? objwire::msgpack_wire::struct_check(typed_events::from_record(m))
                   : objwire::msgpack_wire::struct_check(typed_person::from_record(m));
    return sum;
}

// Throws unless every object arrived and, with --struct, became a struct, the structs adding up
// to the checksum of the records sent.
void verify(const options& o, const std::vector<objwire::message>& objects, const run_result& r) {
    if (r.received.objects != o.count || r.received.bytes != r.sent.bytes)
        throw std::runtime_error("received " + std::to_string(r.received.objects) + " of " +
                                 std::to_string(o.count) + " objects");
    if (!o.to_struct) return;
    if (r.received.refused != 0)
        throw std::runtime_error(
            std::to_string(r.received.refused) + " of " + std::to_string(o.count) +
            " objects refused: not the shape of the " + o.workload + " struct");
    if (r.received.check != expected_check(o, objects))
        throw std::runtime_error("the structs' checksum differs from the records'");
}

const char* receiver_name(const options& o) {
    return o.to_struct ? "struct" : "tree";
}

void report(const options& o, const run_result& r) {
    using objwire::client::json_number;
    const double seconds = static_cast<double>(r.received.at_ns - r.sent.at_ns) / 1e9;
    const auto objects = static_cast<double>(r.received.objects);
    const double per_object = static_cast<double>(r.received.bytes) / objects;
    const double cpu = r.sent.cpu_seconds + r.received.cpu_seconds;
    if (!o.json) {
        std::printf(
            "msgpack_peer: %s, %s form, %s receiver, %.0f objects in %.3f s = %.0f objects/s, "
            "%.2f bytes/object, CPU %.2f s (sender %.2f, receiver %.2f)\n",
            o.workload.c_str(), o.form == record_form::map ? "map" : "array", receiver_name(o),
            objects, seconds, objects / seconds, per_object, cpu, r.sent.cpu_seconds,
            r.received.cpu_seconds);
        return;
    }
    using objwire::client::json_string;
    std::vector<objwire::client::report_line> fields{
        {"workload", json_string(o.workload)},
        {"form", json_string(o.form == record_form::map ? "map" : "array")},
        {"receiver", json_string(receiver_name(o))},
        {"objects", std::to_string(r.received.objects)},
        {"seconds", json_number(seconds, 6)},
        {"objects_per_second", json_number(objects / seconds, 0)},
        {"wire_bytes", std::to_string(r.received.bytes)},
        {"bytes_per_object", json_number(per_object, 3)},
        {"cpu_seconds", json_number(cpu, 3)},
        {"sender_cpu_seconds", json_number(r.sent.cpu_seconds, 3)},
        {"receiver_cpu_seconds", json_number(r.received.cpu_seconds, 3)},
    };
    if (o.to_struct) fields.push_back({"check", std::to_string(r.received.check)});
    std::printf("%s\n", objwire::client::json_object(fields).c_str());
}

}  // namespace

int main(int argc, char** argv) {
    const auto o = parse(argc, argv);
    try {
        const auto objects = generate(o);
        const auto r = run(o, objects);
        verify(o, objects, r);
        report(o, r);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "msgpack_peer: %s\n", e.what());
        return 1;
    }
    return 0;
}
