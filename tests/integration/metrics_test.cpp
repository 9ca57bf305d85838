// The daemon's metrics as operators see them: over HTTP (GET /metrics), through the stats
// role (`objwire stats`), after traffic, bad peers and a SIGHUP-style reload.
#include <gtest/gtest.h>

#include <spdlog/spdlog.h>

#include <asio.hpp>
#include <string>
#include <thread>

#include <objwire/connection.hpp>
#include "bad_peer.hpp"
#include "client/lib/stats_client.hpp"
#include "client/workloads/workloads.hpp"
#include "daemon/serve/metrics_text.hpp"
#include "daemon/telemetry/metrics_http.hpp"
#include "daemon/telemetry/prometheus_text.hpp"
#include "daemon_fixture.hpp"
#include "in_process_daemon.hpp"
#include "proto/frame.hpp"

namespace objwire::test {
namespace {

using families = std::vector<metric_family>;

class Metrics : public daemon_fixture {
  protected:
    void send_persons(std::size_t n, const std::string& compression = "never") {
        auto s = client_settings();
        s.compression_policy = compression;
        client::connection c(s, "metrics-test");
        ASSERT_FALSE(c.open()) << c.last_error();
        auto w = workloads::make("person");
        message m;
        for (std::size_t i = 0; i < n; ++i) {
            w->next(m);
            ASSERT_FALSE(c.send(m)) << c.last_error();
        }
        ASSERT_FALSE(c.close()) << c.last_error();
        // A session counts its frames in as it ends, which may come after the client's close.
        ASSERT_TRUE(wait_until([&] { return server().counters().connections_open == 0; }));
    }
    // The value of an unlabelled sample, or of the sample with exactly `labels`.
    static double value(const families& f, const std::string& name,
                        const std::vector<metric_label>& labels = {}) {
        if (const auto* s = find_metric_sample(f, name, labels)) return as_double(s->value);
        ADD_FAILURE() << name << " not in:\n" << daemon::prometheus_text(f);
        return -1;
    }
    // The values of every sample of `name` summed, but those with label `except`.
    static double sum(const families& f, const std::string& name, const metric_label& except = {}) {
        double total = 0;
        for (const auto& family : f)
            for (const auto& s : family.samples)
                if (s.name == name &&
                    std::find(s.labels.begin(), s.labels.end(), except) == s.labels.end())
                    total += as_double(s.value);
        return total;
    }
    // One HTTP exchange with the metrics endpoint: what it answered to `request`.
    std::string http(const std::string& request) {
        asio::io_context io;
        asio::ip::tcp::socket socket(io);
        socket.connect(server().metrics_endpoint());
        asio::write(socket, asio::buffer(request));
        std::string answer;
        std::error_code ec;
        char block[4096];
        for (int i = 0; i < 10000; ++i) {  // bounded: the endpoint closes after one answer
            const auto n = socket.read_some(asio::buffer(block), ec);
            if (ec) break;
            answer.append(block, n);
        }
        return answer;
    }
};

TEST_F(Metrics, StatsRoleCountsObjectsFramesTablesAcksAndSinkBytes) {
    start();
    send_persons(5000);
    client::stats_answer a;
    std::string why;
    ASSERT_FALSE(client::fetch_stats(client_settings(), a, why)) << why;
    EXPECT_EQ(a.server_name, "objwired");
    EXPECT_NE(a.sink.find("journal"), std::string::npos) << a.sink;
    const auto& t = a.families;
    EXPECT_EQ(value(t, "objwire_objects_in_total"), 5000);
    // The stats connection itself is the one open now.
    EXPECT_EQ(value(t, "objwire_connections_open"), 1);
    EXPECT_EQ(value(t, "objwire_connections_total"), 2);
    const double frames = value(t, "objwire_frames_in_total");
    EXPECT_GE(frames, 1);
    // The client starts every frame fresh (welcome field 14): the journal took each whole.
    EXPECT_EQ(value(t, "objwire_frames_stored_whole_total"), frames);
    // Every frame was acknowledged, each ack timed once per read that completed frames.
    const double acks = value(t, "objwire_ack_latency_seconds_count");
    EXPECT_GE(acks, 1);
    EXPECT_LE(acks, frames);
    EXPECT_EQ(value(t, "objwire_ack_latency_seconds_bucket", {{"le", "+Inf"}}), acks);
    // Person repeats its type and names: the table hits on nearly every object.
    EXPECT_GT(value(t, "objwire_table_hits_total"), 4000);
    // The sender's table is gone with its connection.
    EXPECT_EQ(value(t, "objwire_table_bytes"), 0);
    EXPECT_GT(value(t, "objwire_sink_bytes_total", {{"sink", "journal"}}), 5000);
    EXPECT_GT(value(t, "objwire_bytes_in_total"),
              value(t, "objwire_sink_bytes_total", {{"sink", "journal"}}) / 100);
    EXPECT_EQ(value(t, "objwire_frames_compressed_total"), 0);
    // No sender connection is open: none has a link estimate (loopback may give none at all).
    EXPECT_EQ(value(t, "objwire_link_bandwidth_connections"), 0);
    EXPECT_GE(value(t, "objwire_link_bandwidth_last_bytes_per_second"), 0);
}

// A peer whose stats frame does not decode (another version, or not objwired) is reported as
// such: the error and a sentence naming the peer and the decoding error.
TEST(StatsClient, AStatsPayloadThatDoesNotDecodeIsReportedAsSuch) {
    asio::io_context io;
    asio::ip::tcp::acceptor acceptor(io, {asio::ip::make_address("127.0.0.1"), 0});
    std::thread peer([&] {
        asio::ip::tcp::socket s(io);
        std::error_code ec;
        acceptor.accept(s, ec);
        if (ec) return;
        welcome w;
        w.server_name = "not-objwired";
        byte_buffer payload;
        encode_welcome(w, payload);
        byte_buffer out;
        append_frame(out, frame_kind::welcome, 0, payload.span());
        const std::string text = "objwire_objects_in_total 5\n";  // Prometheus text, not families
        append_frame(out, frame_kind::stats, 0,
                     {reinterpret_cast<const std::uint8_t*>(text.data()), text.size()});
        append_frame(out, frame_kind::goodbye, 0, {});
        asio::write(s, asio::buffer(out.data(), out.size()), ec);
        char sink[4096];
        for (int i = 0; i < 1000 && !ec; ++i)  // bounded: until the client closes
            s.read_some(asio::buffer(sink), ec);
    });
    config::client_settings cs;
    cs.to_host = "127.0.0.1";
    cs.to_port = acceptor.local_endpoint().port();
    client::stats_answer a;
    std::string why;
    const auto ec = client::fetch_stats(cs, a, why, std::chrono::seconds(10));
    peer.join();
    EXPECT_TRUE(ec);
    EXPECT_NE(why.find("cannot decode the stats from 127.0.0.1:"), std::string::npos) << why;
    EXPECT_TRUE(a.families.empty());
}

// Each open connection is in exactly one role: before its hello, a sender, the stats query
// asking; the roles sum to the connections open and go back to 0 as they close.
TEST_F(Metrics, ConnectionsAreCountedByRoleAndSumToTheOpenOnes) {
    start();
    const auto role = [](const families& t, const char* r) {
        return value(t, "objwire_connections_by_role", {{"role", r}});
    };
    {
        client::connection sender(client_settings(), "roles-test");
        ASSERT_FALSE(sender.open()) << sender.last_error();
        raw_peer silent(port(), false);  // connected, no hello yet
        wait_until([&] { return server().counters().connections_open == 2; });
        client::stats_answer a;
        std::string why;
        ASSERT_FALSE(client::fetch_stats(client_settings(), a, why)) << why;
        EXPECT_EQ(role(a.families, "sender"), 1);
        EXPECT_EQ(role(a.families, "handshake"), 1);
        EXPECT_EQ(role(a.families, "stats"), 1);  // this query itself
        EXPECT_EQ(role(a.families, "reader"), 0);
        EXPECT_EQ(sum(a.families, "objwire_connections_by_role"),
                  value(a.families, "objwire_connections_open"));
        ASSERT_FALSE(sender.close()) << sender.last_error();
    }
    wait_until([&] { return server().counters().connections_open == 0; });
    const auto t = daemon::collect_metrics(server());
    for (const char* r : daemon::connection_role_names)
        EXPECT_EQ(role(t, r), 0) << r;
}

// A relay's connection out to its next hop is counted as role "forward" while its upstream
// stream lasts, apart from the accepted connections (which the roles but forward sum to);
// at the next hop the same connection is a sender.
TEST_F(Metrics, ARelaysHopIsCountedAsForwardWhileItsStreamLasts) {
    start();  // the next hop
    config::daemon_settings relay_settings;
    relay_settings.listen_host = "127.0.0.1";
    relay_settings.listen_port = 0;
    relay_settings.data_dir = (dir_ / "relay").string();
    relay_settings.metrics_listen = "";
    relay_settings.sink_kind = "forward";
    relay_settings.forward_to = "127.0.0.1:" + std::to_string(port());
    in_process_daemon relay(relay_settings);
    ASSERT_NE(relay.port(), 0);
    const auto role = [](const families& t, const char* r) {
        return value(t, "objwire_connections_by_role", {{"role", r}});
    };
    EXPECT_EQ(role(daemon::collect_metrics(relay.server()), "forward"), 0);
    {
        auto cs = client_settings();
        cs.to_port = relay.port();
        client::connection upstream(cs, "forward-role-test");
        ASSERT_FALSE(upstream.open()) << upstream.last_error();
        for (const auto& m : generate("person", 100))
            ASSERT_FALSE(upstream.send(m)) << upstream.last_error();
        // Acknowledged by the relay only once the next hop acknowledged: the hop is open.
        ASSERT_FALSE(upstream.flush(std::chrono::seconds(10))) << upstream.last_error();
        const auto t = daemon::collect_metrics(relay.server());
        EXPECT_EQ(role(t, "forward"), 1);
        EXPECT_EQ(role(t, "sender"), 1);
        EXPECT_EQ(sum(t, "objwire_connections_by_role", {"role", "forward"}),
                  value(t, "objwire_connections_open"));
        const auto next = daemon::collect_metrics(server());
        EXPECT_EQ(role(next, "sender"), 1);  // the relay's hop
        EXPECT_EQ(role(next, "forward"), 0);
        ASSERT_FALSE(upstream.close()) << upstream.last_error();
    }
    EXPECT_TRUE(wait_until([&] {
        return role(daemon::collect_metrics(relay.server()), "forward") == 0;
    })) << daemon::render_prometheus(relay.server());
    EXPECT_TRUE(wait_until([&] { return server().counters().connections_open == 0; }));
}

// The link estimates sessions publish (daemon/serve/link_estimator.hpp makes them, unit-tested with
// synthetic reads) are rendered as the fastest open one, the latest one, and a count.
TEST_F(Metrics, LinkEstimatesOfOpenConnectionsAreSummarised) {
    start();
    auto& m = server().metrics();
    EXPECT_EQ(value(daemon::collect_metrics(server()), "objwire_link_bandwidth_bytes_per_second"),
              0);
    m.set_link_estimate(1, 80e6);
    m.set_link_estimate(2, 940e6);
    m.set_link_estimate(1, 95e6);  // a connection's newer estimate replaces its older one
    auto t = daemon::collect_metrics(server());
    EXPECT_EQ(value(t, "objwire_link_bandwidth_bytes_per_second"), 940e6 / 8);
    EXPECT_EQ(value(t, "objwire_link_bandwidth_last_bytes_per_second"), 95e6 / 8);
    EXPECT_EQ(value(t, "objwire_link_bandwidth_connections"), 2);
    m.drop_link_estimate(2);  // that connection closed
    t = daemon::collect_metrics(server());
    EXPECT_EQ(value(t, "objwire_link_bandwidth_bytes_per_second"), 95e6 / 8);
    EXPECT_EQ(value(t, "objwire_link_bandwidth_connections"), 1);
    m.drop_link_estimate(1);
}

// Under a table budget smaller than the journal's, a fresh frame that evicted nothing reads
// back alike under the journal's: the frames of `person` in 64 KiB tables are stored whole,
// and all objects are stored exactly.
TEST_F(Metrics, FramesUnderASmallerTableBudgetAreStoredWholeWhenTheyEvictNothing) {
    settings_.table_budget = 64 * 1024;
    start();
    send_persons(20000);
    const auto t = daemon::collect_metrics(server());
    EXPECT_GE(value(t, "objwire_frames_in_total"), 1);
    EXPECT_EQ(value(t, "objwire_frames_stored_whole_total"), value(t, "objwire_frames_in_total"));
    auto w = workloads::make("person");
    message m;
    const auto got = stored();
    ASSERT_EQ(got.size(), 20000u);
    for (const auto& g : got) {
        w->next(m);
        ASSERT_EQ(g, m);
    }
}

TEST_F(Metrics, CompressedFramesAndTheirRatioAreCounted) {
    start();
    send_persons(20000, "always");
    const auto t = daemon::collect_metrics(server());
    const double compressed = value(t, "objwire_frames_compressed_total");
    EXPECT_GE(compressed, 1);
    EXPECT_EQ(compressed, value(t, "objwire_frames_in_total"));
    // Compressing across frames (zstd-stream) the sender keeps its table and writes column
    // payloads: none is stored as it came.
    EXPECT_EQ(value(t, "objwire_frames_stored_whole_total"), 0);
    EXPECT_GT(value(t, "objwire_decompressed_bytes_total"),
              value(t, "objwire_compressed_bytes_total"));
    EXPECT_GT(value(t, "objwire_compression_ratio"), 1.0);
}

TEST_F(Metrics, ErrorsAreCountedByKind) {
    start();
    {
        raw_peer bad(port(), false);
        const std::uint8_t garbage[24] = {0x4f, 0x42};  // not a frame header
        bad.send(garbage);
        while (bad.read_frame().header.kind != frame_kind{}) {
        }
    }
    {
        raw_peer bad(port());
        byte_buffer payload;
        bad.send_frame(frame_kind::data, 7, payload.span());  // sequence 1 expected
        while (bad.read_frame().header.kind != frame_kind{}) {
        }
    }
    // The session counts its error as it closes, after the peer saw the error frame.
    families t;
    wait_until([&] {
        t = daemon::collect_metrics(server());
        return find_metric_sample(t, "objwire_errors_total", {{"kind", "bad_sequence"}});
    });
    EXPECT_EQ(value(t, "objwire_errors_total", {{"kind", "bad_sequence"}}), 1);
    EXPECT_EQ(sum(t, "objwire_errors_total", {"kind", "bad_sequence"}), 1)
        << daemon::prometheus_text(t);
}

TEST_F(Metrics, HttpEndpointServesPrometheusTextAndNothingElse) {
    settings_.metrics_listen = "127.0.0.1:0";
    start();
    send_persons(100);
    ASSERT_NE(server().metrics_endpoint().port(), 0);
    const auto ok = http("GET /metrics HTTP/1.0\r\nHost: x\r\n\r\n");
    ASSERT_TRUE(ok.starts_with("HTTP/1.0 200 OK\r\n")) << ok;
    EXPECT_NE(ok.find("Content-Type: text/plain; version=0.0.4"), std::string::npos);
    const auto body = ok.substr(ok.find("\r\n\r\n") + 4);
    EXPECT_NE(ok.find("Content-Length: " + std::to_string(body.size()) + "\r\n"),
              std::string::npos);
    EXPECT_NE(body.find("\nobjwire_objects_in_total 100\n"), std::string::npos) << body;
    EXPECT_NE(body.find("# TYPE objwire_ack_latency_seconds histogram"), std::string::npos);

    EXPECT_TRUE(http("GET / HTTP/1.0\r\n\r\n").starts_with("HTTP/1.0 404 "));
    EXPECT_TRUE(http("POST /metrics HTTP/1.0\r\n\r\n").starts_with("HTTP/1.0 405 "));
    // A request head that never ends is cut at the size bound.
    const std::string huge =
        "GET /metrics HTTP/1.0\r\nX: " + std::string(daemon::metrics_http::max_request_bytes, 'a');
    EXPECT_TRUE(http(huge).starts_with("HTTP/1.0 431 "));
}

TEST(MetricsHttpAnswer, ParsesTheRequestLineOnly) {
    auto render = [] { return std::string("objwire_up 1\n"); };
    EXPECT_TRUE(daemon::metrics_http_answer("GET /metrics?x=1 HTTP/1.1\r\n\r\n", render)
                    .ends_with("\r\n\r\nobjwire_up 1\n"));
    EXPECT_TRUE(daemon::metrics_http_answer("HEAD /metrics HTTP/1.0\r\n\r\n", render)
                    .ends_with("\r\n\r\n"));
    EXPECT_TRUE(daemon::metrics_http_answer("garbage\r\n\r\n", render).starts_with("HTTP/1.0 400"));
}

TEST(MetricsHttpAnswer, HealthzIsLivenessReadyzAsksTheDaemon) {
    auto render = [] { return std::string("objwire_up 1\n"); };
    bool ready = false;
    auto is_ready = [&] { return ready; };
    EXPECT_TRUE(daemon::metrics_http_answer("GET /healthz HTTP/1.0\r\n\r\n", render, is_ready)
                    .starts_with("HTTP/1.0 200 OK\r\n"));
    EXPECT_TRUE(daemon::metrics_http_answer("GET /readyz HTTP/1.0\r\n\r\n", render, is_ready)
                    .starts_with("HTTP/1.0 503 "));
    ready = true;
    EXPECT_TRUE(daemon::metrics_http_answer("GET /readyz HTTP/1.0\r\n\r\n", render, is_ready)
                    .starts_with("HTTP/1.0 200 OK\r\n"));
    EXPECT_TRUE(daemon::metrics_http_answer("GET /ready HTTP/1.0\r\n\r\n", render, is_ready)
                    .starts_with("HTTP/1.0 404 "));
}

TEST(MetricsHttpAnswer, ABearerTokenGuardsMetricsButNotTheProbes) {
    auto render = [] { return std::string("objwire_up 1\n"); };
    auto authorize = [](std::string_view bearer) { return bearer == "s3cret-token"; };
    const auto answer = [&](const std::string& head) {
        return daemon::metrics_http_answer(head, render, {}, authorize);
    };
    EXPECT_TRUE(answer("GET /metrics HTTP/1.1\r\nAuthorization: Bearer s3cret-token\r\n\r\n")
                    .ends_with("\r\n\r\nobjwire_up 1\n"));
    EXPECT_TRUE(answer("GET /metrics HTTP/1.1\r\nHost: x\r\nauthorization: bearer s3cret-token\r\n"
                       "\r\n")
                    .ends_with("objwire_up 1\n"))
        << "header name and scheme in any case";
    const auto refused = answer("GET /metrics HTTP/1.1\r\nAuthorization: Bearer guess\r\n\r\n");
    EXPECT_TRUE(refused.starts_with("HTTP/1.0 401 Unauthorized\r\nWWW-Authenticate: Bearer\r\n"));
    EXPECT_EQ(refused.find("objwire_up"), std::string::npos);
    EXPECT_TRUE(answer("GET /metrics HTTP/1.1\r\n\r\n").starts_with("HTTP/1.0 401 "));
    EXPECT_TRUE(answer("GET /metrics HTTP/1.1\r\nAuthorization: Basic czNjcmV0\r\n\r\n")
                    .starts_with("HTTP/1.0 401 "));
    EXPECT_TRUE(answer("GET /healthz HTTP/1.1\r\n\r\n").starts_with("HTTP/1.0 200 OK"));
    EXPECT_TRUE(answer("GET /readyz HTTP/1.1\r\n\r\n").starts_with("HTTP/1.0 200 OK"));
}

TEST_F(Metrics, ReloadAppliesLiveKeysAndNamesTheOthers) {
    settings_.metrics_listen = "";
    start();
    auto next = settings_;
    next.log_level = "warn";
    next.max_frame_bytes = 1 << 20;
    next.metrics_listen = "127.0.0.1:0";
    next.listen_port = 1;          // cannot change while running
    next.data_dir = "/elsewhere";  // nor this
    server().reload(next);
    const auto& now = server().settings();
    EXPECT_EQ(now.log_level, "warn");
    EXPECT_EQ(now.max_frame_bytes, 1u << 20);
    EXPECT_EQ(now.listen_port, settings_.listen_port);
    EXPECT_EQ(now.data_dir, settings_.data_dir);
    // The metrics endpoint came up on the reloaded address.
    EXPECT_NE(server().metrics_endpoint().port(), 0);
    const auto log = log_text();
    EXPECT_NE(log.find("reload: server.log_level = \"warn\" (was \"info\")"), std::string::npos)
        << log;
    EXPECT_NE(log.find("reload: server.listen changed"), std::string::npos) << log;
    EXPECT_NE(log.find("reload: server.data_dir changed"), std::string::npos) << log;
    EXPECT_NE(log.find("needs a restart: server.data_dir, server.listen"), std::string::npos)
        << log;
    // New connections get the reloaded limit in their welcome.
    client::connection c(client_settings());
    ASSERT_FALSE(c.open()) << c.last_error();
    EXPECT_EQ(c.server().limits.max_frame_bytes, 1u << 20);
    ASSERT_FALSE(c.close());
    EXPECT_EQ(value(daemon::collect_metrics(server()), "objwire_reloads_total"), 1);
    spdlog::set_level(spdlog::level::debug);
}

// A reload that changes nothing keeps nothing: 5,000 of them hold no more memory than one.
TEST_F(Metrics, ReloadsThatChangeNothingKeepNoSnapshot) {
    settings_.metrics_listen = "";
    start();
    const auto* before = &server().settings();
    for (int i = 0; i < 5000; ++i)
        server().reload(settings_);
    EXPECT_EQ(&server().settings(), before);
    EXPECT_EQ(server().settings_snapshots(), 1u);
    EXPECT_EQ(value(daemon::collect_metrics(server()), "objwire_reloads_total"), 5000);
    auto next = settings_;
    next.max_frame_bytes = 1 << 20;
    server().reload(next);
    EXPECT_EQ(server().settings_snapshots(), 2u);
    EXPECT_EQ(server().settings().max_frame_bytes, 1u << 20);
}

}  // namespace
}  // namespace objwire::test

namespace objwire::test {
namespace {

using families = std::vector<metric_family>;

TEST(MetricsSettings, ListenIsHostPortOrEmpty) {
    auto parse = [](const std::string& v) {
        return config::parse_daemon_toml("[metrics]\nlisten = \"" + v + "\"\n", "m.toml");
    };
    ASSERT_TRUE(parse(""));
    EXPECT_EQ(parse("").value().metrics_listen, "");
    ASSERT_TRUE(parse("127.0.0.1:0"));
    EXPECT_EQ(parse("[::1]:9464").value().metrics_listen, "[::1]:9464");
    const auto bad = parse("9464");
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.error().message.find("m.toml:2:"), std::string::npos) << bad.error().message;
    EXPECT_NE(bad.error().message.find("metrics.listen"), std::string::npos) << bad.error().message;
    EXPECT_NE(bad.error().message.find("(or \"\" for off)"), std::string::npos)
        << bad.error().message;
}

}  // namespace
}  // namespace objwire::test
