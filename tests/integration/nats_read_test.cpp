// Reading back and resuming through any objwired on a NATS stream: objects sent
// through daemon A are read through daemon B exactly once and in order per sender (all of
// them, one sender's, from a stream sequence, and followed live); a sender that stored part
// of its stream through A and comes back to B resumes after the last frame the stream holds;
// the NATS figures show in the metrics endpoint and the stats role. One nats-server on
// 127.0.0.1; skipped, saying so, where nats-server is not installed.
#include <asio.hpp>
#include <atomic>
#include <future>

#include <objwire/reader.hpp>
#include "client/lib/stats_client.hpp"
#include "daemon/serve/metrics_text.hpp"
#include "nats_fixture.hpp"
#include "proto/codec.hpp"

namespace objwire::test {
namespace {

struct read_result {
    std::vector<client::stored_message> objects;
    std::string sink;
    std::string error;
    std::uint64_t blocks = 0;
};

read_result read_through(std::uint16_t port, client::read_options o) {
    read_result r;
    client::reader rd(NatsSink::client_to(port), o);
    if (rd.open()) {
        r.error = "open: " + rd.last_error();
        return r;
    }
    r.sink = rd.server().sink;
    client::stored_message m;
    while (rd.next(m))
        r.objects.push_back(std::move(m));
    if (rd.error()) r.error = rd.last_error();
    r.blocks = rd.stats().blocks;
    return r;
}

// The objects of `sender` in `got` are exactly `n` objects of the events workload of `seed`,
// in order (skipping the first `skip`).
void expect_sender_stream(const std::vector<client::stored_message>& got, const std::string& sender,
                          std::uint64_t seed, std::uint64_t n, std::uint64_t skip = 0) {
    auto w = workloads::make("events", seed);
    message want;
    for (std::uint64_t i = 0; i < skip; ++i)
        w->next(want);
    std::uint64_t seen = 0;
    std::uint64_t mismatches = 0;
    for (const auto& m : got) {
        if (m.sender_id != sender) continue;
        w->next(want);
        if (!(m.value == want) && mismatches++ == 0)
            ADD_FAILURE() << "sender " << sender << " object " << seen << " differs";
        ++seen;
    }
    EXPECT_EQ(seen, n) << "sender " << sender;
    EXPECT_EQ(mismatches, 0u);
}

double sample(const std::vector<metric_family>& families, const std::string& name) {
    const auto* s = find_metric_sample(families, name);
    return s ? as_double(s->value) : -1;
}

std::string http_get_metrics(const asio::ip::tcp::endpoint& at) {
    asio::io_context io;
    asio::ip::tcp::socket sock(io);
    std::error_code ec;
    sock.connect(at, ec);
    if (ec) return "connect: " + ec.message();
    const std::string req = "GET /metrics HTTP/1.0\r\nHost: x\r\n\r\n";
    asio::write(sock, asio::buffer(req), ec);
    std::string out;
    char buf[65536];
    for (int i = 0; i < 10000; ++i) {  // bounded: the daemon closes after one answer
        const auto n = sock.read_some(asio::buffer(buf), ec);
        out.append(buf, n);
        if (ec) break;
    }
    const auto body = out.find("\r\n\r\n");
    return body == std::string::npos ? out : out.substr(body + 4);
}

TEST_F(NatsSink, ReadThroughAnotherDaemonExactlyOnceInOrder) {
    auto sa = daemon_settings("", 1);
    sa.metrics_listen = "127.0.0.1:0";
    const auto p = start_two_daemons(&sa);
    ASSERT_FALSE(HasFailure());
    auto& nats = *p.nats;
    auto& a = *p.a;
    auto& b = *p.b;
    const auto n = events_total(6'000);
    const auto x = send_events(client_to(a.port()), 41, n);
    ASSERT_EQ(x.error, "");
    const auto y = send_events(client_to(a.port()), 42, n / 2);
    ASSERT_EQ(y.error, "");
    ASSERT_EQ(x.acked, n);

    // Everything, through the daemon that stored none of it.
    const auto all = read_through(b.port(), {});
    ASSERT_EQ(all.error, "");
    EXPECT_EQ(all.sink.rfind("nats:OBJWIRE_TEST@", 0), 0u) << all.sink;
    EXPECT_EQ(all.objects.size(), n + n / 2);
    expect_sender_stream(all.objects, x.sender_id, 41, n);
    expect_sender_stream(all.objects, y.sender_id, 42, n / 2);
    std::string error;
    const auto blocks = read_stream(nats.url(), stream_, error);
    ASSERT_EQ(error, "");
    EXPECT_EQ(all.blocks, blocks.size());

    // One sender's.
    client::read_options only_y;
    only_y.sender = y.sender_id;
    const auto ys = read_through(b.port(), only_y);
    ASSERT_EQ(ys.error, "");
    EXPECT_EQ(ys.objects.size(), n / 2);
    expect_sender_stream(ys.objects, y.sender_id, 42, n / 2);

    // From a stream sequence: the blocks stored at and after it, whole.
    ASSERT_GE(blocks.size(), 2u);
    const auto from = blocks[blocks.size() / 2].stream_sequence;
    std::uint64_t expected = 0;
    std::uint64_t expected_blocks = 0;
    for (const auto& blk : blocks)
        if (blk.stream_sequence >= from) expected += blk.header.message_count, ++expected_blocks;
    client::read_options later;
    later.from = from;
    const auto tail = read_through(b.port(), later);
    ASSERT_EQ(tail.error, "");
    EXPECT_EQ(tail.objects.size(), expected);
    EXPECT_EQ(tail.blocks, expected_blocks);

    // The publishing daemon's NATS figures, over HTTP and the stats role alike.
    const auto text = http_get_metrics(a.server().metrics_endpoint());
    EXPECT_NE(
        text.find("\nobjwire_nats_blocks_acked_total " + std::to_string(blocks.size()) + "\n"),
        std::string::npos)
        << text;
    client::stats_answer from_a;
    std::string why_a;
    ASSERT_FALSE(client::fetch_stats(client_to(a.port()), from_a, why_a)) << why_a;
    const auto& families = from_a.families;
    EXPECT_EQ(sample(families, "objwire_nats_blocks_acked_total"), double(blocks.size()));
    EXPECT_EQ(sample(families, "objwire_nats_publish_latency_seconds_count"),
              double(blocks.size()));
    EXPECT_EQ(sample(families, "objwire_nats_window_limit"), 256);
    EXPECT_EQ(sample(families, "objwire_nats_window_in_use"), 0);
    EXPECT_GE(sample(families, "objwire_nats_window_peak"), 1);
    EXPECT_EQ(sample(families, "objwire_nats_retries_total"), 0);
    EXPECT_EQ(sample(families, "objwire_nats_connected"), 1);
    client::stats_answer answer;
    std::string why;
    ASSERT_FALSE(client::fetch_stats(client_to(b.port()), answer, why)) << why;
    // Daemon b published nothing and served every object read above.
    EXPECT_EQ(sample(answer.families, "objwire_nats_blocks_acked_total"), 0);
    EXPECT_EQ(sample(answer.families, "objwire_objects_out_total"),
              double(all.objects.size() + ys.objects.size() + tail.objects.size()));
}

// A follower through daemon b sees what is sent through daemon a after it started.
TEST_F(NatsSink, FollowThroughAnotherDaemonSeesLaterBlocks) {
    const auto p = start_two_daemons();
    ASSERT_FALSE(HasFailure());
    auto& a = *p.a;
    auto& b = *p.b;
    const std::uint64_t n1 = 2'000;
    const std::uint64_t n2 = 1'000;
    const auto first = send_events(client_to(a.port()), 51, n1);
    ASSERT_EQ(first.error, "");

    std::atomic<std::uint64_t> got{0};
    auto follower = std::async(std::launch::async, [&] {
        client::read_options o;
        o.follow = true;
        o.follow_idle_timeout = 60s;  // bounds the test if the later block never comes
        client::reader rd(client_to(b.port()), o);
        read_result r;
        if (rd.open()) {
            r.error = "open: " + rd.last_error();
            return r;
        }
        client::stored_message m;
        while (r.objects.size() < n1 + n2 && rd.next(m)) {
            r.objects.push_back(std::move(m));
            ++got;
        }
        if (rd.error()) r.error = rd.last_error();
        rd.close();
        return r;
    });
    wait_until([&] { return got >= n1; }, 60s);
    ASSERT_EQ(got.load(), n1) << "the follower did not get what was stored before it started";
    const auto second = send_events(client_to(a.port()), 52, n2);
    ASSERT_EQ(second.error, "");
    ASSERT_EQ(follower.wait_for(90s), std::future_status::ready);
    const auto r = follower.get();
    ASSERT_EQ(r.error, "");
    EXPECT_EQ(r.objects.size(), n1 + n2);
    expect_sender_stream(r.objects, first.sender_id, 51, n1);
    expect_sender_stream(r.objects, second.sender_id, 52, n2);
}

// Sends objects skip..skip+n-1 of the events workload of `seed` as sender `id`; returns the
// welcome's next_sequence (where the daemon said the stream resumes).
std::uint64_t send_as(const config::client_settings& base, const std::string& id,
                      std::uint64_t seed, std::uint64_t skip, std::uint64_t n, std::string& error) {
    auto settings = base;
    settings.sender_id = id;
    client::connection c(settings, "nats-test");
    if (c.open()) {
        error = "open: " + c.last_error();
        return 0;
    }
    const auto next = c.server().next_sequence;
    auto w = workloads::make("events", seed);
    message m;
    for (std::uint64_t i = 0; i < skip; ++i)
        w->next(m);
    for (std::uint64_t i = 0; i < n; ++i) {
        w->next(m);
        if (c.send(m)) {
            error = "send: " + c.last_error();
            return next;
        }
    }
    if (c.close()) error = "close: " + c.last_error();
    return next;
}

// Part of a stream through daemon a; a is killed; the sender comes back to daemon b, which
// never saw it: b learns from the stream where the sender's stream ends and the sender goes
// on after it - read back, every object once, in order.
TEST_F(NatsSink, ResumeThroughAnotherDaemonAfterTheFirstIsKilled) {
    const auto p = start_two_daemons();
    ASSERT_FALSE(HasFailure());
    auto& nats = *p.nats;
    auto& a = *p.a;
    auto& b = *p.b;
    const std::string id = "resumer-1";
    const std::uint64_t n1 = 3'000;
    const std::uint64_t n2 = 2'000;
    std::string error;
    EXPECT_EQ(send_as(client_to(a.port()), id, 61, 0, n1, error), 1u);
    ASSERT_EQ(error, "");
    a.stop();

    const auto blocks = read_stream(nats.url(), stream_, error);
    ASSERT_EQ(error, "");
    std::uint64_t last_frame = 0;
    for (const auto& blk : blocks)
        last_frame = std::max(last_frame, blk.header.last_sequence);
    ASSERT_GT(last_frame, 0u);
    EXPECT_EQ(send_as(client_to(b.port()), id, 61, n1, n2, error), last_frame + 1);
    ASSERT_EQ(error, "");

    client::read_options only;
    only.sender = id;
    const auto r = read_through(b.port(), only);
    ASSERT_EQ(r.error, "");
    EXPECT_EQ(r.objects.size(), n1 + n2);
    expect_sender_stream(r.objects, id, 61, n1 + n2);
}

// nats.compression = "always": every block is stored compressed (smaller than the block as
// formed, bytes compared), the resume point is read from a compressed block, and a reader
// through the other daemon gets every object exactly once, in order.
TEST_F(NatsSink, CompressedBlocksReadThroughAnotherDaemonExactlyOnce) {
    auto sa = daemon_settings("", 1);
    sa.metrics_listen = "127.0.0.1:0";
    sa.nats_compression = "always";
    const auto p = start_two_daemons(&sa);
    ASSERT_FALSE(HasFailure());
    auto& a = *p.a;
    auto& b = *p.b;
    const std::string id = "squeezed-1";
    const std::uint64_t n1 = events_total(6'000);
    const std::uint64_t n2 = 1'000;
    std::string error;
    EXPECT_EQ(send_as(client_to(a.port()), id, 71, 0, n1, error), 1u);
    ASSERT_EQ(error, "");

    const auto blocks = read_stream(p.nats->url(), stream_, error);
    ASSERT_EQ(error, "");
    ASSERT_FALSE(blocks.empty());
    std::uint64_t raw = 0, stored = 0, last_frame = 0, compressed = 0;
    for (const auto& blk : blocks) {
        // Below compression.min_frame_bytes' default (512) a block is stored as formed.
        if (blk.bytes.size() >= 512) {
            EXPECT_TRUE(blk.compressed) << "stream message " << blk.stream_sequence;
            EXPECT_LT(blk.stored_bytes, blk.bytes.size()) << "message " << blk.stream_sequence;
        }
        compressed += blk.compressed ? 1 : 0;
        raw += blk.bytes.size();
        stored += blk.stored_bytes;
        last_frame = std::max(last_frame, blk.header.last_sequence);
    }
    EXPECT_LT(stored * 10, raw * 7) << stored << " bytes stored for " << raw << " raw";

    // Daemon b resumes the sender after the last frame of its newest (compressed) block.
    EXPECT_EQ(send_as(client_to(b.port()), id, 71, n1, n2, error), last_frame + 1);
    ASSERT_EQ(error, "");
    const auto all = read_through(b.port(), {});
    ASSERT_EQ(all.error, "");
    EXPECT_EQ(all.objects.size(), n1 + n2);
    expect_sender_stream(all.objects, id, 71, n1 + n2);

    const auto families = daemon::collect_metrics(a.server());
    EXPECT_EQ(sample(families, "objwire_nats_blocks_compressed_total"), double(compressed));
    EXPECT_EQ(sample(families, "objwire_nats_raw_bytes_total"), double(raw));
    EXPECT_EQ(sample(families, "objwire_nats_stored_bytes_total"), double(stored));
    EXPECT_EQ(sample(families, "objwire_nats_compressing"), 1);
}

// Forged compressed messages - a raw length over the limit (a bomb), one smaller than what
// the payload decompresses to, one larger - end the read that meets them with the reason;
// the daemon goes on serving (a read of the honest sender's subject works after them).
TEST_F(NatsSink, ForgedCompressedBlocksAreRefused) {
    const auto p = start_two_daemons();
    ASSERT_FALSE(HasFailure());
    auto& b = *p.b;
    const auto x = send_events(client_to(p.a->port()), 81, 500);
    ASSERT_EQ(x.error, "");
    std::string error;
    const auto blocks = read_stream(p.nats->url(), stream_, error);
    ASSERT_EQ(error, "");
    ASSERT_FALSE(blocks.empty());
    const auto& real = blocks.front().bytes;
    frame_compressor compressor;
    byte_buffer packed;
    ASSERT_FALSE(compressor.compress(codec_id::zstd, 1, real, packed));
    const std::vector<std::uint8_t> zeros(32u << 20, 0);  // over max_frame_bytes (16 MiB)
    byte_buffer bomb;
    ASSERT_FALSE(compressor.compress(codec_id::zstd, 1, zeros, bomb));
    struct forged {
        std::span<const std::uint8_t> payload;
        std::string raw_len;
        std::string says;
    };
    const std::vector<forged> cases{
        {bomb.span(), std::to_string(zeros.size()), "over the limit"},
        {packed.span(), std::to_string(real.size() - 1), "does not decompress"},
        {packed.span(), std::to_string(real.size() + 1), "does not decompress"},
    };
    const auto first_forged = blocks.back().stream_sequence + 1;
    for (const auto& f : cases)
        ASSERT_EQ(publish_message(p.nats->url(), "objwire.test.forger", f.payload,
                                  {{"Objwire-Codec", "zstd"}, {"Objwire-Raw-Len", f.raw_len}}),
                  "");
    for (std::size_t i = 0; i < cases.size(); ++i) {
        client::read_options o;
        o.from = first_forged + i;
        const auto r = read_through(b.port(), o);
        EXPECT_NE(r.error.find("is refused"), std::string::npos) << i << ": " << r.error;
        EXPECT_NE(r.error.find(cases[i].says), std::string::npos) << i << ": " << r.error;
        EXPECT_TRUE(r.objects.empty()) << i;
    }
    client::read_options honest;
    honest.sender = x.sender_id;
    const auto r = read_through(b.port(), honest);
    ASSERT_EQ(r.error, "");
    expect_sender_stream(r.objects, x.sender_id, 81, 500);
}

}  // namespace
}  // namespace objwire::test
