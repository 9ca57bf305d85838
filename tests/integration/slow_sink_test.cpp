// A sink slower than its sender: the daemon stops reading a connection while the bytes it read
// whose objects are not yet durable pass limits.max_buffered_bytes, so its memory stays
// bounded however much is pushed (issue 5's slow sink, issue 7's buffered-bytes cap). The sink
// is slowed by its sync: a batch becomes durable only at the next sync, every 100 ms.
//
// The ctest run pushes 16 MiB; OBJWIRE_SLOW_SINK_MIB=1024 pushes 1 GiB and prints the
// process's peak RSS (daemon and client share the test process).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <string>

#include "client/connection.hpp"
#include "client/workloads.hpp"
#include "daemon/metrics.hpp"
#include "daemon_fixture.hpp"

namespace objwire::test {
namespace {

using namespace std::chrono_literals;

std::uint64_t megabytes_to_push() {
    const char* env = std::getenv("OBJWIRE_SLOW_SINK_MIB");
    return env ? std::strtoull(env, nullptr, 10) : 16;
}

std::string peak_rss() {
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);)
        if (line.rfind("VmHWM:", 0) == 0) return line.substr(6);
    return "?";
}

class SlowSink : public daemon_fixture {};

TEST_F(SlowSink, ASenderThatOutrunsTheSinkIsHeldAtTheBufferCap) {
    constexpr std::uint64_t cap = 1 * config::mebibyte;
    settings_.max_buffered_bytes = cap;
    // Acknowledged only when the next sync makes a batch durable: reading runs ahead of it.
    settings_.journal_fsync = "interval";
    settings_.journal_fsync_interval = 100ms;
    start();
    auto cs = client_settings();
    cs.max_in_flight = 4 * config::gibibyte;  // only the daemon's cap holds the sender back
    cs.compression_policy = "never";
    client::connection c(cs, "slow-sink-test");
    ASSERT_FALSE(c.open()) << c.last_error();
    auto blobs = workloads::make("blobs", 3);
    const std::uint64_t target = megabytes_to_push() * config::mebibyte;
    message m;
    std::uint64_t sent = 0;
    while (c.stats().wire_bytes_out < target) {
        blobs->next(m);
        ASSERT_FALSE(c.send(m)) << c.last_error();
        ++sent;
    }
    ASSERT_FALSE(c.close()) << c.last_error();
    EXPECT_EQ(c.stats().objects_acked, sent);
    const auto peak = server().metrics().held_bytes_peak.load();
    // The pause engaged (more than the cap was read before the sink caught up) and held the
    // connection to the cap plus the one read that crossed it - a read takes what the receive
    // buffer has room for, at most twice limits.read_buffer.
    EXPECT_GT(peak, cap);
    EXPECT_LE(peak, cap + 2 * settings_.read_buffer);
    EXPECT_EQ(server().metrics().held_bytes.load(), 0);
    std::cout << "pushed " << c.stats().wire_bytes_out / config::mebibyte << " MiB, " << sent
              << " objects; held at most " << peak << " bytes (cap " << cap
              << "); peak RSS of the process" << peak_rss() << "\n";
}

}  // namespace
}  // namespace objwire::test
