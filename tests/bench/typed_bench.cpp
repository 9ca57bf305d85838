// typed_bench ADDR [COUNT] [REPEATS]: the `events` workload sent to a running objwired three
// ways in one run, each on its own connection, and the client's CPU time (getrusage, the
// daemon is another process) for each:
//   value    a record built per object (make_record), what a program writes without the typed
//            layer: conn.send(message)
//   reuse    one message whose strings are overwritten in place, the value path at its best
//            (what `objwire bench` does)
//   typed    a described struct: conn.send(event)
// Before timing, the typed and value encodings of all COUNT events are compared byte for
// byte. Prints each mode's median objects per CPU second and wire bytes (equal when the
// encodings are: frames end only when full). Compression off: the three pay the same for it.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <objwire/connection.hpp>
#include <objwire/typed.hpp>
#include "client/workloads/workloads.hpp"
#include "tests/bench/typed_event.hpp"

namespace {

using typed_events::Event;

double cpu_seconds() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    const auto s = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; };
    return s(u.ru_utime) + s(u.ru_stime);
}

const objwire::record_type_ptr& event_type() {
    return objwire::typed::record_type_of<Event>();
}

objwire::message as_record(const Event& e) {
    return objwire::message(objwire::make_record(
        event_type(), {e.ts, e.level, e.host, e.service, e.msg, e.user, e.latency_ms}));
}

void overwrite(objwire::message& m, const Event& e) {
    auto& r = m.root.ensure<objwire::record>();
    if (r.type != event_type()) {
        r.type = event_type();
        r.fields.assign(7, objwire::value());
    }
    r.fields[0] = e.ts;
    objwire::assign_text(r.fields[1].ensure<std::string>(), e.level);
    objwire::assign_text(r.fields[2].ensure<std::string>(), e.host);
    objwire::assign_text(r.fields[3].ensure<std::string>(), e.service);
    objwire::assign_text(r.fields[4].ensure<std::string>(), e.msg);
    objwire::assign_text(r.fields[5].ensure<std::string>(), e.user);
    r.fields[6] = e.latency_ms;
}

bool same_encoding(const std::vector<Event>& events) {
    objwire::stream_encoder a(objwire::encoder_options{}), b(objwire::encoder_options{});
    objwire::byte_buffer x, y;
    for (const Event& e : events) {
        if (a.encode(as_record(e), x) || b.encode(objwire::typed::record_source<Event>(e), y))
            return false;
    }
    return x.size() == y.size() && std::equal(x.span().begin(), x.span().end(), y.span().begin());
}

struct run {
    double cpu = 0;
    double wall = 0;
    std::uint64_t wire = 0;
};

template <class Send>
run send_all(const objwire::config::client_settings& settings, Send&& send) {
    objwire::client::connection c(settings, "typed_bench");
    if (auto ec = c.open()) {
        std::fprintf(stderr, "typed_bench: open: %s %s\n", ec.message().c_str(),
                     c.last_error().c_str());
        std::exit(1);
    }
    const double cpu0 = cpu_seconds();
    const auto t0 = std::chrono::steady_clock::now();
    if (auto ec = send(c)) {
        std::fprintf(stderr, "typed_bench: send: %s\n", ec.message().c_str());
        std::exit(1);
    }
    if (auto ec = c.close()) {
        std::fprintf(stderr, "typed_bench: close: %s\n", ec.message().c_str());
        std::exit(1);
    }
    const std::chrono::duration<double> wall = std::chrono::steady_clock::now() - t0;
    return {cpu_seconds() - cpu0, wall.count(), c.stats().wire_bytes_out};
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: typed_bench HOST:PORT [COUNT] [REPEATS]\n");
        return 2;
    }
    const std::string addr = argv[1];
    const std::size_t count = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 300000;
    const int repeats = argc > 3 ? std::atoi(argv[3]) : 5;
    objwire::config::client_settings settings;
    settings.to_host = addr.substr(0, addr.rfind(':'));
    settings.to_port = static_cast<std::uint16_t>(std::stoi(addr.substr(addr.rfind(':') + 1)));
    settings.compression_policy = "never";
    // Frames end only when full, never on a timer, so all three modes put the same bytes in
    // the same frames and their wire bytes compare.
    settings.batch_linger = std::chrono::seconds(60);

    std::vector<Event> events(count);
    auto w = objwire::workloads::make("events", 42);
    objwire::message m;
    for (Event& e : events) {
        w->next(m);
        e = typed_events::from_record(m);
    }
    const bool same = same_encoding(events);
    std::printf("typed_bench: %zu events x %d runs; typed and value encodings %s\n", count, repeats,
                same ? "byte-identical" : "DIFFER");
    if (!same) return 1;

    const char* names[] = {"value", "reuse", "typed"};
    std::vector<double> rate[3], wall[3];
    std::uint64_t wire[3] = {};
    for (int r = 0; r < repeats; ++r) {
        for (int mode = 0; mode < 3; ++mode) {
            const run x = send_all(settings, [&](objwire::client::connection& c) {
                std::error_code ec;
                objwire::message reused;
                for (std::size_t i = 0; i < events.size() && !ec; ++i) {
                    if (mode == 0) {
                        ec = c.send(as_record(events[i]));
                    } else if (mode == 1) {
                        overwrite(reused, events[i]);
                        ec = c.send(reused);
                    } else {
                        ec = c.send(events[i]);
                    }
                }
                return ec;
            });
            rate[mode].push_back(static_cast<double>(count) / x.cpu);
            wall[mode].push_back(static_cast<double>(count) / x.wall);
            wire[mode] = x.wire;
        }
    }
    for (int mode = 0; mode < 3; ++mode)
        std::printf("%-6s %10.0f objects/s client CPU  %10.0f objects/s wall  %llu wire bytes\n",
                    names[mode], median(rate[mode]), median(wall[mode]),
                    static_cast<unsigned long long>(wire[mode]));
    std::printf("typed/value %.2fx  typed/reuse %.2fx (client CPU)\n",
                median(rate[2]) / median(rate[0]), median(rate[2]) / median(rate[1]));
    return 0;
}
