// The limits against hostile and faulty peers, against a real daemon on 127.0.0.1
// (docs/SECURITY.md): the handshake timeout, the idle timeout, the minimum read rate (slowloris),
// connections per address and in all, the decompression ratio, 1,000 concurrent connections, and a
// full disk while the journal writes. Timeouts are configured short (300 ms) so each test takes
// about a second; the only time checks are "closed within a generous bound".
#include <sys/resource.h>
#include <sys/socket.h>
#include <zlib.h>

#include <atomic>
#include <fstream>
#include <memory>
#include <mutex>
#include <string>

#include "../support/descriptor_limit.hpp"
#include "bad_peer.hpp"
#include "daemon/store/journal.hpp"
#include "proto/wire.hpp"
#include "send_helpers.hpp"

namespace objwire::test {
namespace {

using namespace std::chrono_literals;
using bytes_t = std::vector<std::uint8_t>;
using steady = std::chrono::steady_clock;

// Generous: every close a test waits for is due after well under a second.
constexpr auto close_bound = 10s;

// A raw peer whose reads give up after close_bound, so a daemon that never closes fails the
// test instead of hanging it.
std::unique_ptr<raw_peer> bounded_peer(std::uint16_t port, bool greet) {
    auto p = std::make_unique<raw_peer>(port, greet);
    timeval tv{std::chrono::duration_cast<std::chrono::seconds>(close_bound).count(), 0};
    ::setsockopt(p->native_handle(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    return p;
}

// Reads to the end; true when the daemon closed within close_bound (no error frame expected).
bool closed_without_error(raw_peer& p) {
    const auto start = steady::now();
    const auto error = p.error_then_close();
    EXPECT_EQ(error, std::nullopt);
    return steady::now() - start < close_bound;
}

// The daemon's error frame, then its close, within the bound.
bool closed_with(raw_peer& p, proto_errc expected) {
    const auto start = steady::now();
    const auto error = p.error_then_close();
    EXPECT_EQ(error, expected);
    return steady::now() - start < close_bound;
}

// Sends without throwing: the daemon may already have closed.
bool try_send(raw_peer& p, std::span<const std::uint8_t> bytes) {
    try {
        p.send(bytes);
        return true;
    } catch (const std::exception&) {
        return false;
    }
}

std::uint64_t peak_rss_kib() {
    std::ifstream in("/proc/self/status");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("VmHWM:", 0) == 0) return std::stoull(line.substr(6));
    return 0;
}

class Limits : public bad_input_fixture {};

TEST_F(Limits, HandshakeTimeoutIsConfigurable) {
    settings_.handshake_timeout = 300ms;
    start();
    with_good_client([&] {
        auto p = bounded_peer(port(), false);
        const std::uint8_t one_byte[] = {static_cast<std::uint8_t>(frame_kind::hello)};
        p->send(one_byte);
        EXPECT_TRUE(closed_without_error(*p));
        expect_logged(p->name(), "closing connection: no hello within 0.3 s");
    });
}

TEST_F(Limits, IdlePeerIsClosedAfterTheIdleTimeout) {
    settings_.idle_timeout = 300ms;
    start();
    with_good_client([&] {                    // a busy client is never idle
        auto p = bounded_peer(port(), true);  // says hello, then nothing
        EXPECT_TRUE(closed_without_error(*p));
        expect_logged(p->name(), "closing connection: idle: no frame for");
    });
}

TEST_F(Limits, SlowFrameIsCutAtTheMinimumReadRate) {
    settings_.min_read_rate = 1024;  // bytes per second
    settings_.read_rate_window = 300ms;
    start();
    with_good_client([&] {
        auto p = bounded_peer(port(), true);
        // A 64 KiB frame, its header and then 10 bytes every 50 ms (200 B/s), until cut.
        byte_buffer framed;
        append_frame(framed, frame_kind::data, 1, bytes_t(64 * 1024, wire::tag_null));
        const bytes_t frame(framed.data(), framed.data() + framed.size());
        const std::string cut = p->name() + ": closing connection: too slow";
        std::size_t sent = frame_header_size;
        p->send(std::span(frame).first(sent));
        const auto start_at = steady::now();
        while (sent < frame.size() && steady::now() - start_at < close_bound &&
               log_text().find(cut) == std::string::npos) {
            pause_as_peer(50ms);  // the slowness is the input: 10 bytes per 50 ms
            if (!try_send(*p, std::span(frame).subspan(sent, 10))) break;
            sent += 10;
        }
        EXPECT_LT(sent, frame.size()) << "the slow frame was never cut";
        EXPECT_TRUE(closed_without_error(*p));
        expect_logged(p->name(), "closing connection: too slow: a frame in progress arrived at");
    });
}

TEST_F(Limits, ConnectionsPerAddressAreCappedAtAccept) {
    settings_.max_connections_per_address = 3;
    start();
    std::vector<std::unique_ptr<raw_peer>> held;
    for (int i = 0; i < 3; ++i)
        held.push_back(bounded_peer(port(), true));
    auto refused = bounded_peer(port(), false);
    // Refused at accept, before its hello: the reason, then the close.
    EXPECT_TRUE(closed_with(*refused, proto_errc::too_many_connections));
    expect_logged(refused->name(), "refused: 3 connections open from 127.0.0.1");
    // A slot given back is usable again (the daemon notices the close asynchronously).
    held.pop_back();
    const bool welcomed = wait_until([&] {
        client::connection c(client_settings(), "again");
        return !c.open() && !c.close();
    });
    EXPECT_TRUE(welcomed);
}

TEST_F(Limits, ConnectionsInAllAreCappedAtAccept) {
    settings_.max_connections = 2;
    start();
    auto a = bounded_peer(port(), true);
    auto b = bounded_peer(port(), true);
    auto refused = bounded_peer(port(), false);
    EXPECT_TRUE(closed_with(*refused, proto_errc::too_many_connections));
    expect_logged(refused->name(), "refused: 2 connections open (server.max_connections)");
    // A client is told the figure, the limit and the key that sets it.
    client::connection c(client_settings(), "third");
    EXPECT_EQ(c.open(), proto_errc::too_many_connections);
    EXPECT_NE(c.last_error().find("2 connections open, the daemon's limit "
                                  "(server.max_connections = 2)"),
              std::string::npos)
        << c.last_error();
}

// Before: 64 idle connections from one address locked every other client from it out, and the
// client said only "connection lost: End of file".
TEST_F(Limits, AClientRefusedAtTheCapPerAddressIsToldWhy) {
    settings_.max_connections_per_address = 64;
    settings_.handshake_timeout = 60s;
    start();
    std::vector<std::unique_ptr<raw_peer>> idle;
    for (int i = 0; i < 64; ++i)
        idle.push_back(bounded_peer(port(), false));
    // The daemon counts a connection once it has accepted it: wait until all 64 are.
    wait_until([&] { return server().counters().connections_open >= 64; });
    ASSERT_EQ(server().counters().connections_open, 64u);
    client::connection c(client_settings(), "normal");
    EXPECT_EQ(c.open(), proto_errc::too_many_connections);
    const std::string why = c.last_error();
    EXPECT_NE(why.find("too many connections: 64 connections open from 127.0.0.1"),
              std::string::npos)
        << why;
    EXPECT_NE(why.find("limits.max_connections_per_address = 64"), std::string::npos) << why;
}

// Before: the default cap of 64 per address refused `objwire bench --connections 100`. A fleet
// behind one NAT or node address is admitted by default, up to server.max_connections.
TEST_F(Limits, DefaultsAdmitAFleetOfProducersBehindOneAddress) {
    const config::daemon_settings defaults;
    EXPECT_EQ(defaults.max_connections_per_address, 0u) << "no cap per address by default";
    const int fleet = static_cast<int>(defaults.max_connections);
    ASSERT_GE(fleet, 1024);
    raise_descriptor_limit(2 * static_cast<rlim_t>(fleet) + 256);
    start();
    std::vector<std::unique_ptr<raw_peer>> producers;
    for (int i = 0; i < fleet; ++i) {
        producers.push_back(bounded_peer(port(), true));  // says hello, reads the welcome
        if (HasFailure()) break;
    }
    EXPECT_EQ(server().counters().connections_refused, 0u);
    EXPECT_EQ(server().counters().connections_open, static_cast<std::uint64_t>(fleet));
    EXPECT_EQ(log_text().find("refused"), std::string::npos) << log_text();
}

// Flood protection without a cap per address: connections that never say their hello are shed
// oldest first once an address has limits.max_pending_hellos_per_address of them, and the
// newest - an honest client says its hello at once - is served.
TEST_F(Limits, ConnectionsWaitingForTheirHelloAreShedOldestFirst) {
    settings_.max_pending_hellos_per_address = 3;
    settings_.handshake_timeout = 60s;
    start();
    std::vector<std::unique_ptr<raw_peer>> silent;
    for (int i = 0; i < 3; ++i)
        silent.push_back(bounded_peer(port(), false));
    wait_until([&] { return server().counters().connections_open >= 3; });
    ASSERT_EQ(server().counters().connections_open, 3u);
    auto fourth = bounded_peer(port(), false);
    // The oldest is told why and closed; the others wait on.
    EXPECT_TRUE(closed_with(*silent[0], proto_errc::too_many_connections));
    expect_logged(silent[0]->name(),
                  "closing connection before its hello: 3 connections from 127.0.0.1 waiting for "
                  "their hello, the limit per address (limits.max_pending_hellos_per_address = 3)");
    // An honest client is served while three silent ones still wait.
    client::connection c(client_settings(), "honest");
    ASSERT_FALSE(c.open()) << c.last_error();
    ASSERT_TRUE(send_people_and_close(c, 100));
    EXPECT_EQ(c.stats().objects_acked, 100u);
    EXPECT_TRUE(closed_with(*silent[1], proto_errc::too_many_connections))
        << "the honest client's connection took the next slot, shedding the next oldest";
}

TEST_F(Limits, DecompressionRatioIsCheckedBeforeInflating) {
    settings_.max_decompression_ratio = 100;
    start();
    {  // no good client here: its own zstd frames of `person` compress past 100:1
        // 64 KiB of zeros in well under 1% of it: an honest raw_len, refused by the ratio.
        const bytes_t zeros(64 * 1024, 0);
        uLongf n = compressBound(static_cast<uLong>(zeros.size()));
        bytes_t frame(frame_header_size + n);
        ASSERT_EQ(compress2(frame.data() + frame_header_size, &n, zeros.data(),
                            static_cast<uLong>(zeros.size()), 9),
                  Z_OK);
        frame.resize(frame_header_size + n);
        ASSERT_GT(zeros.size(), 100 * n);
        seal_frame(frame, frame_kind::data, 1, codec_id::zlib,
                   static_cast<std::uint32_t>(zeros.size()));
        auto p = bounded_peer(port(), true);
        p->send(frame);
        EXPECT_EQ(p->error_then_close(), proto_errc::decompress_failed);
    }
}

// Load: 1,000 connections open at once, each sending a few `events`; every
// object is acknowledged and stored, and the daemon's table memory stays within its caps.
// The peak RSS (VmHWM, of this process: daemon and clients together) is printed.
TEST_F(Limits, ThousandConcurrentConnections) {
    constexpr int connections = 1000;
    constexpr int per_connection = 5;
    constexpr int threads = 4;
    raise_descriptor_limit(2 * connections + 256);  // both ends live in this process
    settings_.max_connections = connections + 10;
    settings_.max_connections_per_address = connections + 10;
    start();
    const std::uint64_t rss_before = peak_rss_kib();

    std::atomic<int> opened{0};
    std::atomic<int> acked_ok{0};
    std::atomic<std::uint64_t> table_peak{0};
    std::mutex failures_mutex;
    std::vector<std::string> failures;
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
        pool.emplace_back([&, t] {
            std::vector<std::unique_ptr<client::connection>> mine;
            for (int i = t; i < connections; i += threads) {
                mine.push_back(std::make_unique<client::connection>(client_settings(), "load"));
                if (mine.back()->open()) return;
                ++opened;
            }
            // Every connection is open before any sends: 1,000 at once.
            wait_until([&] { return opened.load() >= connections; });
            std::uint64_t seen = table_budget_in_use();
            std::uint64_t prev = table_peak.load();
            while (seen > prev && !table_peak.compare_exchange_weak(prev, seen)) {
            }
            auto w = workloads::make("events", 7 + static_cast<std::uint64_t>(t));
            message m;
            for (auto& c : mine)
                for (int k = 0; k < per_connection; ++k) {
                    w->next(m);
                    if (c->send(m)) return;
                }
            // All flushed first, so the acks come with one journal sync, not one each.
            for (auto& c : mine)
                if (const std::error_code ec = c->flush()) {
                    const std::lock_guard lock(failures_mutex);
                    failures.push_back("flush: " + ec.message());
                    return;
                }
            for (auto& c : mine) {
                const std::error_code ec = c->close();
                if (!ec && c->stats().objects_acked == per_connection) {
                    ++acked_ok;
                    continue;
                }
                const std::lock_guard lock(failures_mutex);
                failures.push_back("close: " + ec.message() + ", " +
                                   std::to_string(c->stats().objects_acked) + " acknowledged, " +
                                   c->last_error());
            }
        });
    }
    for (auto& t : pool)
        t.join();
    EXPECT_EQ(opened.load(), connections);
    EXPECT_EQ(acked_ok.load(), connections);
    for (const auto& f : failures)
        ADD_FAILURE() << "a connection ended with: " << f;
    EXPECT_LE(table_peak.load(), settings_.table_budget_total);
    const std::uint64_t rss_peak = peak_rss_kib();
    std::printf("1000 connections: peak RSS %llu KiB (before %llu KiB)\n",
                static_cast<unsigned long long>(rss_peak),
                static_cast<unsigned long long>(rss_before));
    // Table budgets (256 MiB in all) are the only large per-connection grant, and 5 events a
    // connection touch little of them; read buffers are filled only as far as reads go.
    EXPECT_LT(rss_peak, 1024u * 1024u) << "peak RSS over 1 GiB";
    stop();
    EXPECT_EQ(stored().size(), static_cast<std::size_t>(connections * per_connection));
}

// Disk full while the journal writes (injected: every append fails with ENOSPC as a full
// disk's write does). The daemon stores nothing, acknowledges nothing and says so once; when
// space returns it stores the waiting batch and acknowledges everything, in order.
TEST_F(Limits, DiskFullStopsAcknowledgingUntilSpaceReturns) {
    std::atomic<bool> full{true};
    std::atomic<int> failed_appends{0};
    daemon::journal_testing::inject_write_fault([&]() -> std::error_code {
        if (!full) return {};
        ++failed_appends;
        return std::make_error_code(std::errc::no_space_on_device);
    });
    start();
    constexpr int objects = 2000;
    std::atomic<bool> done{false};
    std::error_code close_error;
    std::uint64_t acked = 0;
    std::thread sender([&] {
        client::connection c(client_settings(), "full");
        if (!c.open()) {
            auto w = workloads::make("person");
            message m;
            for (int i = 0; i < objects; ++i) {
                w->next(m);
                if (c.send(m)) break;
            }
            close_error = c.close();
            acked = c.stats().objects_acked;
        }
        done = true;
    });
    // Several retries of the same batch, and no acknowledgement meanwhile.
    wait_until([&] { return failed_appends.load() >= 4; });
    EXPECT_GE(failed_appends.load(), 4);
    EXPECT_FALSE(done.load()) << "the client finished while nothing could be stored";
    expect_logged("", "cannot store objects: No space left on device; not acknowledging");
    full = false;
    sender.join();
    daemon::journal_testing::inject_write_fault({});
    EXPECT_FALSE(close_error) << close_error.message();
    EXPECT_EQ(acked, static_cast<std::uint64_t>(objects));
    expect_logged("", "storing again after");
    stop();
    const auto stored_objects = stored();
    ASSERT_EQ(stored_objects.size(), static_cast<std::size_t>(objects));
    auto w = workloads::make("person");
    message expected;
    for (int i = 0; i < objects; ++i) {
        w->next(expected);
        ASSERT_EQ(stored_objects[static_cast<std::size_t>(i)], expected) << i;
    }
}

}  // namespace
}  // namespace objwire::test
