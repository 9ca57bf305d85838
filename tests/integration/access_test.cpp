// Access (docs/SECURITY.md): TLS with certificates made here by the openssl CLI, client
// certificates, the shared token, and what each refusal looks like on both ends.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>

#include <cstdlib>
#include <fstream>

#include <objwire/connection.hpp>
#include "bad_peer.hpp"
#include "client/lib/daemon_link.hpp"
#include "client/workloads/workloads.hpp"
#include "daemon/serve/access_token.hpp"
#include "daemon_fixture.hpp"
#include "proto/encoder.hpp"

namespace objwire::test {
namespace {

namespace fs = std::filesystem;

// A CA, a server certificate for 127.0.0.1 and localhost, a client certificate, and a client
// certificate from another CA; made once for the whole suite.
struct pki {
    fs::path dir;
    fs::path ca, server_cert, server_key, client_cert, client_key, rogue_cert, rogue_key;
    bool ok = false;
};

bool run(const std::string& command) {
    return std::system((command + " >/dev/null 2>&1").c_str()) == 0;
}

void write_file(const fs::path& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
}

// A key and a certificate for `cn` signed by `ca`, with the extensions in `ext`.
bool issue(const fs::path& dir, const std::string& name, const std::string& cn,
           const std::string& ca, const std::string& ext) {
    const std::string d = dir.string() + "/";
    write_file(dir / (name + ".ext"), ext + "\n");
    return run("openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout " + d +
               name + ".key -out " + d + name + ".csr -subj /CN=" + cn) &&
           run("openssl x509 -req -in " + d + name + ".csr -CA " + d + ca + ".pem -CAkey " + d +
               ca + ".key -CAcreateserial -days 2 -out " + d + name + ".pem -extfile " + d + name +
               ".ext");
}

bool make_ca(const fs::path& dir, const std::string& name) {
    const std::string d = dir.string() + "/";
    return run(
        "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout " + d +
        name + ".key -out " + d + name + ".pem -days 2 -subj /CN=" + name);
}

const pki& certificates() {
    static const pki p = [] {
        pki k;
        k.dir = fs::temp_directory_path() / ("objwire-pki-" + std::to_string(::getpid()));
        fs::remove_all(k.dir);
        fs::create_directories(k.dir);
        k.ok = make_ca(k.dir, "ca") && make_ca(k.dir, "rogue-ca") &&
               issue(k.dir, "server", "localhost", "ca",
                     "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth") &&
               issue(k.dir, "client", "objwire-client", "ca", "extendedKeyUsage=clientAuth") &&
               issue(k.dir, "rogue", "objwire-client", "rogue-ca", "extendedKeyUsage=clientAuth");
        k.ca = k.dir / "ca.pem";
        k.server_cert = k.dir / "server.pem";
        k.server_key = k.dir / "server.key";
        k.client_cert = k.dir / "client.pem";
        k.client_key = k.dir / "client.key";
        k.rogue_cert = k.dir / "rogue.pem";
        k.rogue_key = k.dir / "rogue.key";
        return k;
    }();
    return p;
}

std::vector<message> persons(std::size_t n) {
    auto w = workloads::make("person");
    std::vector<message> out(n);
    for (auto& m : out)
        w->next(m);
    return out;
}

class Access : public daemon_fixture {
  protected:
    static void SetUpTestSuite() { ASSERT_TRUE(certificates().ok) << "openssl CLI failed"; }
    static void TearDownTestSuite() { fs::remove_all(certificates().dir); }

    void use_tls(bool require_client_certificates = false) {
        settings_.tls_cert_file = certificates().server_cert.string();
        settings_.tls_key_file = certificates().server_key.string();
        if (require_client_certificates) settings_.tls_client_ca_file = certificates().ca.string();
    }
    // A token file only its owner may read, as objwired demands.
    std::string token_file(const std::string& name, const std::string& token, mode_t mode = 0600) {
        const auto path = dir_ / name;
        write_file(path, token + "\n");
        ::chmod(path.c_str(), mode);
        return path.string();
    }
    config::client_settings tls_client() const {
        auto s = client_settings();
        s.tls_enabled = true;
        s.tls_ca_file = certificates().ca.string();
        return s;
    }
    // Sends `objects` and closes; the error of whichever step failed.
    static std::error_code send_all(client::connection& c, const std::vector<message>& objects) {
        if (auto ec = c.open()) return ec;
        for (const auto& m : objects)
            if (auto ec = c.send(m)) return ec;
        return c.close();
    }
    void expect_logged(const std::string& text) {
        EXPECT_NE(log_text().find(text), std::string::npos) << "log lacks: " << text << "\n"
                                                            << log_text();
    }
};

// ---- TLS ------------------------------------------------------------------------------------

TEST_F(Access, TlsRoundTripStoresEverythingAcknowledged) {
    use_tls();
    start();
    const auto sent = persons(5'000);
    client::connection c(tls_client(), "tls-test");
    ASSERT_FALSE(send_all(c, sent)) << c.last_error();
    EXPECT_EQ(c.stats().objects_acked, sent.size());
    EXPECT_GT(c.stats().write_calls, 0u);
    stop();
    EXPECT_EQ(stored(), sent);
    expect_logged("access: TLS");
}

TEST_F(Access, TlsWithClientCertificateRoundTrip) {
    use_tls(true);
    start();
    const auto sent = persons(1'000);
    auto s = tls_client();
    s.tls_cert_file = certificates().client_cert.string();
    s.tls_key_file = certificates().client_key.string();
    s.tls_server_name = "localhost";  // a DNS name of the certificate, not the address
    client::connection c(s);
    ASSERT_FALSE(send_all(c, sent)) << c.last_error();
    EXPECT_EQ(c.stats().objects_acked, sent.size());
    stop();
    EXPECT_EQ(stored(), sent);
}

TEST_F(Access, ClientWithoutCertificateIsRefusedAndLogged) {
    use_tls(true);
    start();
    client::connection c(tls_client());
    EXPECT_EQ(send_all(c, persons(10)), proto_errc::unauthorized) << c.last_error();
    EXPECT_NE(c.last_error().find("certificate"), std::string::npos) << c.last_error();
    stop();
    expect_logged("127.0.0.1:");
    expect_logged("refused: TLS handshake failed");
    EXPECT_TRUE(stored().empty());
}

TEST_F(Access, ClientCertificateOfAnotherCaIsRefused) {
    use_tls(true);
    start();
    auto s = tls_client();
    s.tls_cert_file = certificates().rogue_cert.string();
    s.tls_key_file = certificates().rogue_key.string();
    client::connection c(s);
    EXPECT_TRUE(send_all(c, persons(10)));
    stop();
    expect_logged("refused: TLS handshake failed");
    EXPECT_TRUE(stored().empty());
}

TEST_F(Access, PlainClientAgainstTlsDaemonGetsUnauthorized) {
    use_tls();
    start();
    client::connection c(client_settings());  // tls.enabled = false
    EXPECT_EQ(c.open(), proto_errc::unauthorized);
    // The reason is TLS, not a token (before: "missing or wrong token").
    EXPECT_NE(c.last_error().find("this daemon speaks TLS only (objwire: tls.enabled = true)"),
              std::string::npos)
        << c.last_error();
    EXPECT_EQ(c.last_error().find("token"), std::string::npos) << c.last_error();
    stop();
    expect_logged("refused: plain TCP peer, but TLS is required");
    EXPECT_TRUE(stored().empty());
}

// A refusal at accept comes before any TLS: the daemon's error frame in clear, which the TLS
// client recognises in place of the server hello.
TEST_F(Access, TlsClientAtTheConnectionCapIsToldWhy) {
    use_tls();
    settings_.max_connections_per_address = 1;
    settings_.handshake_timeout = std::chrono::seconds(60);
    start();
    raw_peer held(port(), /*greet=*/false);
    wait_until([&] { return server().counters().connections_open >= 1; });
    client::connection c(tls_client());
    EXPECT_EQ(c.open(), proto_errc::too_many_connections) << c.last_error();
    EXPECT_NE(c.last_error().find("limits.max_connections_per_address = 1"), std::string::npos)
        << c.last_error();
}

TEST_F(Access, ClientRefusesADaemonWhoseCertificateDoesNotMatch) {
    use_tls();
    start();
    auto wrong_name = tls_client();
    wrong_name.tls_server_name = "objwire.example";
    client::connection a(wrong_name);
    EXPECT_EQ(a.open(), client::client_errc::connect_failed);
    EXPECT_NE(a.last_error().find("certificate verify failed"), std::string::npos)
        << a.last_error();
    auto wrong_ca = tls_client();
    wrong_ca.tls_ca_file = (certificates().dir / "rogue-ca.pem").string();
    client::connection b(wrong_ca);
    EXPECT_EQ(b.open(), client::client_errc::connect_failed);
    EXPECT_NE(b.last_error().find("certificate verify failed"), std::string::npos)
        << b.last_error();
}

TEST_F(Access, SilentPeerIsClosedAtTheTlsHandshakeDeadline) {
    use_tls();
    settings_.handshake_timeout = std::chrono::milliseconds(200);
    start();
    raw_peer p(port(), /*greet=*/false);
    const timeval limit{5, 0};  // a daemon that never closes fails the read, not the suite
    ::setsockopt(p.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
    // No byte from the daemon, then the end of the stream; the log says it was the deadline.
    EXPECT_EQ(p.error_then_close(), std::nullopt);
    stop();
    expect_logged("refused: no TLS handshake within 200 ms");
}

TEST_F(Access, DaemonRefusesToStartWithUnusableTlsFiles) {
    settings_.tls_cert_file = certificates().server_cert.string();  // no key
    asio::io_context io;
    daemon::server no_key(io, settings_, daemon::standard_roles());
    EXPECT_TRUE(no_key.start());
    settings_.tls_key_file = certificates().client_key.string();  // not the certificate's key
    daemon::server wrong_key(io, settings_, daemon::standard_roles());
    EXPECT_TRUE(wrong_key.start());
    settings_.tls_key_file = (dir_ / "missing.key").string();
    daemon::server missing_key(io, settings_, daemon::standard_roles());
    EXPECT_TRUE(missing_key.start());
    expect_logged("tls.cert_file needs tls.key_file");
    expect_logged("tls.key_file '" + certificates().client_key.string() + "': key values mismatch");
    expect_logged("missing.key': No such file or directory");
}

// ---- the shared token ---------------------------------------------------------------------

TEST_F(Access, RightTokenIsAdmitted) {
    settings_.auth_token_file = token_file("daemon.token", "correct horse battery staple");
    start();
    auto s = client_settings();
    s.auth_token_file = token_file("client.token", "correct horse battery staple");
    const auto sent = persons(1'000);
    client::connection c(s);
    ASSERT_FALSE(send_all(c, sent)) << c.last_error();
    stop();
    EXPECT_EQ(stored(), sent);
    expect_logged("token required");
}

TEST_F(Access, MissingOrWrongTokenIsRefusedAndLogged) {
    settings_.auth_token_file = token_file("daemon.token", "correct horse battery staple");
    start();
    client::connection none(client_settings());
    EXPECT_EQ(send_all(none, persons(10)), proto_errc::unauthorized) << none.last_error();
    auto s = client_settings();
    s.auth_token_file = token_file("client.token", "correct horse battery stapler");
    client::connection wrong(s);
    EXPECT_EQ(send_all(wrong, persons(10)), proto_errc::unauthorized) << wrong.last_error();
    // Each client is told which it was.
    EXPECT_NE(none.last_error().find("no token in the hello (auth.token_file is set)"),
              std::string::npos)
        << none.last_error();
    EXPECT_NE(wrong.last_error().find("wrong token"), std::string::npos) << wrong.last_error();
    stop();
    expect_logged("127.0.0.1:");
    expect_logged("refused: no token in the hello");
    expect_logged("refused: wrong token");
    EXPECT_TRUE(stored().empty());
}

// The frames a refused peer sends along with its hello are dropped, not stored; the same bytes
// with the right token are stored (so the check can fail).
TEST_F(Access, FramesBehindARefusedHelloAreNotStored) {
    settings_.auth_token_file = token_file("daemon.token", "correct horse battery staple");
    start();
    const auto objects = persons(3);
    auto attempt = [&](const std::string& token) {
        hello h;
        h.auth_token = token;
        byte_buffer hello_payload, data_payload;
        encode_hello(h, hello_payload);
        stream_encoder encoder{encoder_options{}};
        for (const auto& m : objects)
            EXPECT_FALSE(encoder.encode(m, data_payload));
        raw_peer p(port(), /*greet=*/false);
        byte_buffer both;
        append_frame(both, frame_kind::hello, 0, hello_payload.span());
        append_frame(both, frame_kind::data, 1, data_payload.span());
        p.send(both.span());  // one write: the data is there when the hello is checked
        p.close_sending();
        return p.error_then_close();
    };
    EXPECT_EQ(attempt("guess guess guess guess"), proto_errc::unauthorized);
    EXPECT_EQ(attempt(""), proto_errc::unauthorized);
    EXPECT_EQ(attempt("correct horse battery staple"), std::nullopt);
    stop();
    EXPECT_EQ(stored(), objects);
}

TEST_F(Access, TokenAndTlsTogether) {
    use_tls(true);
    settings_.auth_token_file = token_file("daemon.token", "correct horse battery staple");
    start();
    auto s = tls_client();
    s.tls_cert_file = certificates().client_cert.string();
    s.tls_key_file = certificates().client_key.string();
    client::connection no_token(s);
    EXPECT_EQ(send_all(no_token, persons(10)), proto_errc::unauthorized);
    s.auth_token_file = token_file("client.token", "correct horse battery staple");
    const auto sent = persons(100);
    client::connection c(s);
    ASSERT_FALSE(send_all(c, sent)) << c.last_error();
    stop();
    EXPECT_EQ(stored(), sent);
}

TEST_F(Access, DaemonRefusesToStartWithAnUnsafeOrShortTokenFile) {
    asio::io_context io;
    settings_.auth_token_file = token_file("open.token", "correct horse battery staple", 0644);
    daemon::server world_readable(io, settings_, daemon::standard_roles());
    EXPECT_TRUE(world_readable.start());
    settings_.auth_token_file = token_file("short.token", "short", 0600);
    daemon::server too_short(io, settings_, daemon::standard_roles());
    EXPECT_TRUE(too_short.start());
    settings_.auth_token_file = (dir_ / "missing.token").string();
    daemon::server missing(io, settings_, daemon::standard_roles());
    EXPECT_TRUE(missing.start());
    // The group may read it (a service group); only "other" is refused.
    std::string why;
    EXPECT_TRUE(daemon::access_token::load(
        token_file("group.token", "correct horse battery staple", 0640), why))
        << why;
    expect_logged("readable or writable by other users");
    expect_logged("at least 16 are needed");
}

TEST_F(Access, ClientWithAnUnreadableTokenFileDoesNotConnect) {
    start();
    auto s = client_settings();
    s.auth_token_file = (dir_ / "missing.token").string();
    client::connection c(s);
    EXPECT_EQ(c.open(), client::client_errc::connect_failed);
    EXPECT_NE(c.last_error().find("auth.token_file"), std::string::npos) << c.last_error();
}

// ---- the comparison -----------------------------------------------------------------------

TEST(ConstantTimeEqual, ComparesContentAndSize) {
    const std::vector<std::uint8_t> a{1, 2, 3, 4, 5, 6, 7, 8};
    auto b = a;
    EXPECT_TRUE(daemon::constant_time_equal(a, b));
    for (std::size_t i = 0; i < a.size(); ++i) {
        b = a;
        b[i] ^= 0x80;
        EXPECT_FALSE(daemon::constant_time_equal(a, b)) << "byte " << i;
        b[i] ^= 0x81;
        EXPECT_FALSE(daemon::constant_time_equal(a, b)) << "byte " << i;
    }
    b = a;
    b.push_back(0);
    EXPECT_FALSE(daemon::constant_time_equal(a, b));
    EXPECT_FALSE(daemon::constant_time_equal(b, a));
    EXPECT_FALSE(daemon::constant_time_equal(a, std::span<const std::uint8_t>{}));
    EXPECT_TRUE(daemon::constant_time_equal(std::span<const std::uint8_t>{},
                                            std::span<const std::uint8_t>{}));
}

TEST(AccessToken, MatchesOnlyTheExactToken) {
    const auto t = daemon::access_token::from_text("correct horse battery staple");
    EXPECT_TRUE(t.matches("correct horse battery staple"));
    EXPECT_FALSE(t.matches("correct horse battery stapl"));
    EXPECT_FALSE(t.matches("correct horse battery staple "));
    EXPECT_FALSE(t.matches("Correct horse battery staple"));
    EXPECT_FALSE(t.matches(""));
}

}  // namespace
}  // namespace objwire::test
