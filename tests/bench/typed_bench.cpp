// typed_bench ADDR [COUNT] [REPEATS] [MODE]: the `events` workload sent to a running objwired three
// ways in one run, each on its own connection, and the client's CPU time (getrusage, the
// daemon is another process) for each:
//   value    a record built per object (make_record), what a program writes without the typed
//            layer: conn.send(message)
//   reuse    one message whose strings are overwritten in place, the value path at its best
//            (what `objwire bench` does)
//   typed    a described struct: conn.send(event)
//   async    the same through conn.async_send(event, callback): each send completes when
//            acknowledged; the callbacks count, close() waits for the last
//   batch    the same through conn.async_send_many(batch of 1,000 events, callback): one
//            completion per batch, at most 64 batches outstanding
//   4x1      4 threads sending typed events on one connection (a quarter each)
//   4x4      4 threads, each with a connection of its own
// Before timing, the typed and value encodings of all COUNT events are compared byte for
// byte. Prints each mode's median objects per CPU second and wire bytes (equal when the
// encodings are: frames end only when full). Compression off: the three pay the same for it.
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include <objwire/connection.hpp>
#include <objwire/typed.hpp>
#include "client/workloads/workloads.hpp"
#include "proto/encoder.hpp"
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

void check(std::error_code ec, const char* what) {
    if (!ec) return;
    std::fprintf(stderr, "typed_bench: %s: %s\n", what, ec.message().c_str());
    std::exit(1);
}

objwire::client::connection opened(const objwire::client::options& options) {
    objwire::client::connection c(options, "typed_bench");
    if (auto ec = c.open()) {
        std::fprintf(stderr, "typed_bench: open: %s %s\n", ec.message().c_str(),
                     c.last_error().c_str());
        std::exit(1);
    }
    return c;
}

// `connections` connections, `threads` threads sending a share of the events each (thread t
// on connection t % connections), every object acknowledged before the clock stops.
template <class Send>
run send_all(const objwire::client::options& options, int threads, int connections, Send&& send) {
    std::vector<objwire::client::connection> conns;
    for (int i = 0; i < connections; ++i)
        conns.push_back(opened(options));
    const double cpu0 = cpu_seconds();
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::thread> workers;
    for (int t = 0; t < threads; ++t)
        workers.emplace_back([&, t] { check(send(conns[t % connections], t, threads), "send"); });
    for (auto& w : workers)
        w.join();
    std::uint64_t wire = 0;
    for (auto& c : conns) {
        check(c.close(), "close");
        wire += c.stats().wire_bytes_out;
    }
    const std::chrono::duration<double> wall = std::chrono::steady_clock::now() - t0;
    return {cpu_seconds() - cpu0, wall.count(), wire};
}

// Every acknowledgement counted as its callback runs; the last one wakes the sender. At most
// `window` sends are outstanding, as docs/LIBRARY.md asks of a producer: the started ones
// are held in memory until the worker takes them.
std::error_code send_async(objwire::client::connection& c, const std::vector<Event>& events) {
    constexpr std::size_t window = 65536;
    std::atomic<std::size_t> done{0};
    std::atomic<bool> failed{false};
    for (std::size_t i = 0; i < events.size(); ++i) {
        for (auto n = done.load(); i - n >= window; n = done.load())
            done.wait(n);
        c.async_send(events[i], [&](std::error_code ec) {
            if (ec) failed = true;
            // The sender waits for a whole window or the last: a wake every 1,024 is enough.
            const auto n = done.fetch_add(1) + 1;
            if (n % 1024 == 0 || n == events.size()) done.notify_one();
        });
    }
    // The last batch leaves now, not after batch.linger (10 s here).
    c.async_flush([](std::error_code) {});
    for (auto n = done.load(); n < events.size(); n = done.load())
        done.wait(n);
    return failed ? std::make_error_code(std::errc::io_error) : std::error_code{};
}

// Batches of 1,000 events (copied out of the workload, as a program hands over its own), one
// completion each; at most 64 outstanding.
std::error_code send_batches(objwire::client::connection& c, const std::vector<Event>& events) {
    constexpr std::size_t per_batch = 1000, window = 64;
    const std::size_t batches = (events.size() + per_batch - 1) / per_batch;
    std::atomic<std::size_t> done{0};
    std::atomic<bool> failed{false};
    for (std::size_t b = 0; b < batches; ++b) {
        for (auto n = done.load(); b - n >= window; n = done.load())
            done.wait(n);
        const auto first = events.begin() + static_cast<std::ptrdiff_t>(b * per_batch);
        const auto last = events.begin() +
                          static_cast<std::ptrdiff_t>(std::min(events.size(), (b + 1) * per_batch));
        c.async_send_many(std::vector<Event>(first, last), [&](std::error_code ec) {
            if (ec) failed = true;
            done.fetch_add(1);
            done.notify_one();
        });
    }
    c.async_flush([](std::error_code) {});  // the last frame leaves now, not after the linger
    for (auto n = done.load(); n < batches; n = done.load())
        done.wait(n);
    return failed ? std::make_error_code(std::errc::io_error) : std::error_code{};
}

double median(std::vector<double> v) {
    if (v.empty()) return 0;  // a mode not run (MODE named another)
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: typed_bench HOST:PORT [COUNT] [REPEATS] [MODE]\n");
        return 2;
    }
    const std::string addr = argv[1];
    const std::size_t count = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 300000;
    const int repeats = argc > 3 ? std::atoi(argv[3]) : 5;
    const std::string only = argc > 4 ? argv[4] : "";  // one mode's name: only that one runs
    objwire::client::options options;
    options.host = addr.substr(0, addr.rfind(':'));
    options.port = static_cast<std::uint16_t>(std::stoi(addr.substr(addr.rfind(':') + 1)));
    options.compression = objwire::compression_mode::never;
    // Frames end only when full, never on a timer, so the modes put the same bytes in the
    // same frames and their wire bytes compare.
    options.linger = std::chrono::seconds(10);  // the most batch.linger takes

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

    constexpr int modes = 7;
    const char* names[modes] = {"value", "reuse", "typed", "async", "4x1", "4x4", "batch"};
    std::vector<double> rate[modes], wall[modes];
    std::uint64_t wire[modes] = {};
    // Thread t of n sends events t, t + n, t + 2n...: a struct, or with `mode` a value.
    const auto send_share = [&](int mode) {
        return [&, mode](objwire::client::connection& c, int t, int n) {
            std::error_code ec;
            objwire::message reused;
            for (std::size_t i = t; i < events.size() && !ec; i += n) {
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
        };
    };
    for (int r = 0; r < repeats; ++r) {
        for (int mode = 0; mode < modes; ++mode) {
            if (!only.empty() && only != names[mode]) continue;
            run x;
            if (mode < 3) {
                x = send_all(options, 1, 1, send_share(mode));
            } else if (mode == 3) {
                x = send_all(options, 1, 1, [&](objwire::client::connection& c, int, int) {
                    return send_async(c, events);
                });
            } else if (mode == 6) {
                x = send_all(options, 1, 1, [&](objwire::client::connection& c, int, int) {
                    return send_batches(c, events);
                });
            } else {
                x = send_all(options, 4, mode == 4 ? 1 : 4, send_share(2));
            }
            rate[mode].push_back(static_cast<double>(count) / x.cpu);
            wall[mode].push_back(static_cast<double>(count) / x.wall);
            wire[mode] = x.wire;
        }
    }
    for (int mode = 0; mode < modes; ++mode)
        if (!rate[mode].empty())
            std::printf(
                "%-6s %10.0f objects/s client CPU  %10.0f objects/s wall  %llu wire bytes\n",
                names[mode], median(rate[mode]), median(wall[mode]),
                static_cast<unsigned long long>(wire[mode]));
    std::printf(
        "typed/value %.2fx  typed/reuse %.2fx  async/typed %.2fx  batch/typed %.2fx  4x1/4x4 "
        "%.2fx (client CPU)\n",
        median(rate[2]) / median(rate[0]), median(rate[2]) / median(rate[1]),
        median(rate[3]) / median(rate[2]), median(rate[6]) / median(rate[2]),
        median(rate[4]) / median(rate[5]));
    return 0;
}
