#include "client/lib/daemon_link.hpp"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <sys/socket.h>

#include <asio/ssl/error.hpp>
#include <cerrno>
#include <climits>
#include <fstream>
#include <sstream>
#include <vector>

#include <objwire/connection.hpp>
#include "proto/control.hpp"
#include "proto/errors.hpp"
#include "proto/frame.hpp"

namespace objwire::client {
namespace {

using clock = std::chrono::steady_clock;
constexpr std::uint32_t max_refusal_bytes = 64 * 1024;  // an error frame's text is short

std::chrono::milliseconds left_until(clock::time_point deadline) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now());
    return std::max(left, std::chrono::milliseconds(0));
}

// OpenSSL's socket BIO writes with write(2), and a daemon that has gone away would then kill
// the client with SIGPIPE. This BIO sends with MSG_NOSIGNAL instead; the rest is as the
// socket BIO: non-blocking, "retry" on EAGAIN.
daemon_link::bio_state& state_of(BIO* b) {
    return *static_cast<daemon_link::bio_state*>(BIO_get_data(b));
}

int fd_of(BIO* b) {
    return state_of(b).fd;
}

// A refusal at accept is an objwire error frame in clear where the server hello would be; the
// handshake loop reads it (daemon_link::read_refusal). OpenSSL must not take it first, as it would
// when it arrives between the client hello going out and OpenSSL's first read: so that read
// looks at the first byte and, for an error frame, reads nothing yet.
bool refusal_waiting(BIO* b) {
    auto& st = state_of(b);
    if (st.first_byte_seen) return false;
    std::uint8_t first = 0;
    if (::recv(st.fd, &first, 1, MSG_PEEK | MSG_DONTWAIT) != 1) return false;
    st.first_byte_seen = true;
    return first == static_cast<std::uint8_t>(frame_kind::error);
}

int bio_write(BIO* b, const char* data, int size) {
    BIO_clear_retry_flags(b);
    const ssize_t n = ::send(fd_of(b), data, static_cast<std::size_t>(size), MSG_NOSIGNAL);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        BIO_set_retry_write(b);
    return static_cast<int>(n);
}

int bio_read(BIO* b, char* data, int size) {
    BIO_clear_retry_flags(b);
    if (refusal_waiting(b)) {
        BIO_set_retry_read(b);
        return -1;
    }
    const ssize_t n = ::recv(fd_of(b), data, static_cast<std::size_t>(size), 0);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) BIO_set_retry_read(b);
    return static_cast<int>(n);
}

long bio_ctrl(BIO*, int command, long, void*) {
    return command == BIO_CTRL_FLUSH ? 1 : 0;
}

int bio_create(BIO* b) {
    BIO_set_init(b, 1);
    return 1;
}

BIO_METHOD* nosignal_socket_method() {
    static BIO_METHOD* method = [] {
        BIO_METHOD* m = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "objwire socket");
        BIO_meth_set_write(m, bio_write);
        BIO_meth_set_read(m, bio_read);
        BIO_meth_set_ctrl(m, bio_ctrl);
        BIO_meth_set_create(m, bio_create);
        return m;
    }();
    return method;
}

// OpenSSL's reason for the last failure, as an error code whose message() reads well
// ("certificate verify failed", "tlsv13 alert certificate required").
std::error_code ssl_error(SSL* ssl, int ret) {
    const int saved_errno = errno;
    switch (SSL_get_error(ssl, ret)) {
        case SSL_ERROR_WANT_READ:
        case SSL_ERROR_WANT_WRITE:
            return asio::error::would_block;
        case SSL_ERROR_ZERO_RETURN:
            return asio::error::eof;
        default:
            break;
    }
    const unsigned long code = ERR_get_error();
    ERR_clear_error();
    if (code == 0) {
        if (ret == 0 || saved_errno == 0) return asio::error::eof;
        return {saved_errno, std::system_category()};
    }
    if (ERR_GET_REASON(code) == SSL_R_UNEXPECTED_EOF_WHILE_READING) return asio::error::eof;
    return {static_cast<int>(code), asio::error::get_ssl_category()};
}

// The reason OpenSSL gives for the last failure on this thread, for people.
std::string ssl_error_text() {
    const unsigned long code = ERR_get_error();
    ERR_clear_error();
    if (code == 0) return "connection closed";
    const char* reason = ERR_reason_error_string(code);
    return reason ? reason : "error " + std::to_string(code);
}

std::size_t clamp_int(std::size_t n) {
    return std::min<std::size_t>(n, INT_MAX);
}

}  // namespace

daemon_link::~daemon_link() {
    reset();
}

void daemon_link::reset() {
    if (ssl_) SSL_free(ssl_);  // the BIO goes with it; the socket stays open
    if (ctx_) SSL_CTX_free(ctx_);
    ssl_ = nullptr;
    ctx_ = nullptr;
}

std::error_code daemon_link::wait(short events, std::chrono::milliseconds timeout) {
    pollfd p{socket_.native_handle(), events, 0};
    const auto deadline = clock::now() + timeout;
    for (;;) {
        const int r = ::poll(&p, 1, static_cast<int>(left_until(deadline).count()));
        if (r > 0) return {};
        if (r == 0) return client_errc::timed_out;
        if (errno != EINTR) return {errno, std::system_category()};
    }
}

std::error_code daemon_link::wait_or_stop(short events, std::chrono::milliseconds timeout) {
    if (!stop_) return wait(events, timeout);
    constexpr std::chrono::milliseconds stop_poll{200};
    pollfd p[2] = {{socket_.native_handle(), events, 0}, {stop_fd_, POLLIN, 0}};
    const auto deadline = clock::now() + timeout;
    for (;;) {
        if (stop_()) return asio::error::operation_aborted;
        const auto left = left_until(deadline);
        if (left.count() <= 0) return client_errc::timed_out;
        const auto slice = stop_fd_ < 0 ? std::min(left, stop_poll) : left;
        const int r = ::poll(p, 2, static_cast<int>(slice.count()));
        if (r > 0 && p[0].revents != 0) return {};
        if (r < 0 && errno != EINTR) return {errno, std::system_category()};
        if (p[1].revents != 0 && !stop_()) p[1].fd = -1;  // readable with no stop: not watched
    }
}

std::error_code daemon_link::connect(const config::client_settings& s, std::string& why) {
    const std::string where = config::format_host_port(s.to_host, s.to_port);
    std::error_code ec;
    asio::ip::tcp::resolver resolver(socket_.get_executor());
    const auto endpoints = resolver.resolve(s.to_host, std::to_string(s.to_port), ec);
    if (ec) {
        why = "cannot resolve " + where + ": " + ec.message();
        return client_errc::connect_failed;
    }
    const auto deadline = clock::now() + s.connect_timeout;
    std::error_code last = asio::error::host_not_found;
    for (const auto& entry : endpoints) {
        std::error_code ignored;
        if (socket_.is_open()) socket_.close(ignored);
        socket_.open(entry.endpoint().protocol(), last);
        if (!last) socket_.non_blocking(true, last);
        if (last) continue;
        // A non-blocking connect, so the deadline holds (asio's blocking one has none).
        const auto& ep = entry.endpoint();
        if (::connect(socket_.native_handle(), ep.data(), static_cast<socklen_t>(ep.size())) == 0) {
            last.clear();
            break;
        }
        if (errno != EINPROGRESS) {
            last = {errno, std::system_category()};
            continue;
        }
        last = wait_or_stop(POLLOUT, left_until(deadline));
        if (last == asio::error::operation_aborted) break;
        if (!last) {
            int err = 0;
            socklen_t len = sizeof err;
            ::getsockopt(socket_.native_handle(), SOL_SOCKET, SO_ERROR, &err, &len);
            if (err == 0) break;
            last = {err, std::system_category()};
        }
    }
    if (last) {
        why = "cannot connect to " + where + ": " + last.message();
        return last == asio::error::operation_aborted ? last : client_errc::connect_failed;
    }
    set_socket_options(s);
    return start(s, why);
}

void daemon_link::set_socket_options(const config::client_settings& s) {
    std::error_code ignored;  // an option the kernel refuses leaves its default: not fatal
    socket_.set_option(asio::ip::tcp::no_delay(s.nodelay), ignored);
    using asio::socket_base;
    if (s.send_buffer)
        socket_.set_option(socket_base::send_buffer_size(static_cast<int>(s.send_buffer)), ignored);
    if (s.recv_buffer)
        socket_.set_option(socket_base::receive_buffer_size(static_cast<int>(s.recv_buffer)),
                           ignored);
}

std::error_code daemon_link::start(const config::client_settings& s, std::string& why) {
    reset();
    if (!s.tls_enabled) return {};
    const std::string name = s.tls_server_name.empty() ? s.to_host : s.tls_server_name;
    ERR_clear_error();
    std::string failed = set_up_context(s);
    if (failed.empty()) failed = set_up_session(name);
    if (!failed.empty()) {
        why = failed + ": " + ssl_error_text();
        reset();
        return client_errc::connect_failed;
    }
    return handshake(name, clock::now() + s.connect_timeout, why);
}

std::string daemon_link::set_up_context(const config::client_settings& s) {
    ctx_ = SSL_CTX_new(TLS_client_method());
    if (!ctx_) return "cannot set up TLS";
    SSL_CTX_set_min_proto_version(ctx_, TLS1_2_VERSION);
    const int verify_ok = s.tls_ca_file.empty()
                              ? SSL_CTX_set_default_verify_paths(ctx_)
                              : SSL_CTX_load_verify_locations(ctx_, s.tls_ca_file.c_str(), nullptr);
    if (verify_ok != 1) return "tls.ca_file '" + s.tls_ca_file + "'";
    if (s.tls_cert_file.empty()) return {};
    if (SSL_CTX_use_certificate_chain_file(ctx_, s.tls_cert_file.c_str()) != 1)
        return "tls.cert_file '" + s.tls_cert_file + "'";
    const std::string& key = s.tls_key_file.empty() ? s.tls_cert_file : s.tls_key_file;
    if (SSL_CTX_use_PrivateKey_file(ctx_, key.c_str(), SSL_FILETYPE_PEM) != 1 ||
        SSL_CTX_check_private_key(ctx_) != 1)
        return "tls.key_file '" + key + "'";
    return {};
}

std::string daemon_link::set_up_session(const std::string& name) {
    ssl_ = SSL_new(ctx_);
    if (!ssl_) return "cannot set up TLS";
    BIO* bio = BIO_new(nosignal_socket_method());
    if (!bio) return "cannot set up TLS";
    bio_state_ = {socket_.native_handle(), false};
    BIO_set_data(bio, &bio_state_);
    SSL_set_bio(ssl_, bio, bio);
    // No partial writes: one SSL_write per frame, as one send per frame on plain TCP, unless
    // the kernel's buffer fills; then it is retried with the same bytes.
    SSL_set_mode(ssl_, SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    SSL_set_verify(ssl_, SSL_VERIFY_PEER, nullptr);
    std::error_code not_ip;
    (void)asio::ip::make_address(name, not_ip);
    X509_VERIFY_PARAM* param = SSL_get0_param(ssl_);
    if (!not_ip) {
        X509_VERIFY_PARAM_set1_ip_asc(param, name.c_str());
    } else {
        X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
        SSL_set1_host(ssl_, name.c_str());
        SSL_set_tlsext_host_name(ssl_, name.c_str());
    }
    return {};
}

std::error_code daemon_link::handshake(const std::string& name, clock::time_point deadline,
                                       std::string& why) {
    bool answered = false;  // the daemon's first byte was looked at
    for (;;) {
        // Before OpenSSL reads: a refusal may already be there (it is sent at accept).
        if (!answered) {
            std::uint8_t first = 0;
            if (::recv(socket_.native_handle(), &first, 1, MSG_PEEK | MSG_DONTWAIT) == 1) {
                answered = true;
                if (auto refused = read_refusal(deadline, why)) {
                    reset();
                    return refused;
                }
            }
        }
        ERR_clear_error();
        const int r = SSL_connect(ssl_);
        if (r == 1) return {};
        const int kind = SSL_get_error(ssl_, r);
        if (kind != SSL_ERROR_WANT_READ && kind != SSL_ERROR_WANT_WRITE) break;
        if (auto ec = wait_or_stop(kind == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT,
                                   left_until(deadline))) {
            why = "TLS handshake with " + name + ": " + ec.message();
            reset();
            return ec;
        }
    }
    std::string reason = ssl_error_text();
    const long verify = SSL_get_verify_result(ssl_);
    if (verify != X509_V_OK)
        reason += " (" + std::string(X509_verify_cert_error_string(verify)) + ")";
    why = "TLS handshake with " + name + " failed: " + reason;
    reset();
    return client_errc::connect_failed;
}

// A daemon that turns the connection away before any TLS (a connection cap) answers with an
// objwire error frame in clear where the server hello would be: a TLS record never starts
// with the error frame's kind byte. Nothing is taken from the socket unless it is such a frame.
std::error_code daemon_link::read_refusal(clock::time_point deadline, std::string& why) {
    std::uint8_t first = 0;
    if (::recv(socket_.native_handle(), &first, 1, MSG_PEEK) != 1 ||
        first != static_cast<std::uint8_t>(frame_kind::error))
        return {};
    const frame_parser parser(max_refusal_bytes);
    std::vector<std::uint8_t> in;
    for (;;) {
        const auto r = parser.parse(in);
        if (r.state == frame_parser::status::frame) {
            auto e = read_error_frame(r.frame.payload);
            why = "refused by the daemon: " + e.text;
            return e.code;
        }
        if (r.state == frame_parser::status::error) break;
        std::uint8_t chunk[1024];
        const ssize_t n = ::recv(socket_.native_handle(), chunk, sizeof chunk, 0);
        if (n > 0) {
            in.insert(in.end(), chunk, chunk + n);
            continue;
        }
        if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) break;
        if (wait(POLLIN, left_until(deadline))) break;
    }
    why = "the daemon answered the TLS handshake with a damaged objwire error frame";
    return proto_errc::bad_message;
}

std::size_t daemon_link::write_some(std::span<const std::uint8_t> bytes, std::error_code& ec) {
    if (!ssl_) return socket_.write_some(asio::buffer(bytes.data(), bytes.size()), ec);
    ERR_clear_error();
    const int r = SSL_write(ssl_, bytes.data(), static_cast<int>(clamp_int(bytes.size())));
    if (r > 0) {
        ec.clear();
        return static_cast<std::size_t>(r);
    }
    ec = ssl_error(ssl_, r);
    return 0;
}

bool daemon_link::readable_now() {
    if (ssl_ && SSL_pending(ssl_) > 0) return true;
    // Not FIONREAD: a daemon that closed (a restart) leaves 0 bytes to read, and the end of
    // the stream is what a read must find now, or the connection is never resumed.
    pollfd p{socket_.native_handle(), POLLIN, 0};
    return ::poll(&p, 1, 0) > 0 && (p.revents & (POLLIN | POLLHUP | POLLERR)) != 0;
}

std::size_t daemon_link::read_some(std::span<std::uint8_t> into, std::chrono::milliseconds timeout,
                                   std::error_code& ec, bool stoppable) {
    const auto deadline = clock::now() + timeout;
    for (;;) {
        short want = POLLIN;
        std::size_t n = 0;
        if (!ssl_) {
            n = socket_.read_some(asio::buffer(into.data(), into.size()), ec);
        } else {
            ERR_clear_error();
            const int r = SSL_read(ssl_, into.data(), static_cast<int>(clamp_int(into.size())));
            if (r > 0) {
                ec.clear();
                return static_cast<std::size_t>(r);
            }
            if (SSL_get_error(ssl_, r) == SSL_ERROR_WANT_WRITE) want = POLLOUT;
            ec = ssl_error(ssl_, r);
        }
        if (ec != asio::error::would_block && ec != asio::error::try_again) return n;
        const auto left = left_until(deadline);
        if ((ec = stoppable ? wait_or_stop(want, left) : wait(want, left))) return 0;
    }
}

std::error_code daemon_link::wait_writable(std::chrono::milliseconds timeout) {
    return wait(POLLOUT, timeout);
}

void daemon_link::shutdown() {
    if (ssl_) {
        ERR_clear_error();
        SSL_shutdown(ssl_);  // queues close_notify and tries to send it; no waiting
        ERR_clear_error();
    }
}

bool is_tls_error(std::error_code ec) {
    return ec.category() == asio::error::get_ssl_category();
}

bool read_token_file(const config::client_settings& s, std::string& token, std::string& why) {
    token.clear();
    if (s.auth_token_file.empty()) return true;
    std::ifstream in(s.auth_token_file, std::ios::binary);
    std::ostringstream text;
    if (in) text << in.rdbuf();
    if (!in) {
        why = "cannot read auth.token_file '" + s.auth_token_file + "'";
        return false;
    }
    token = text.str();
    const auto first = token.find_first_not_of(" \t\r\n");
    const auto last = token.find_last_not_of(" \t\r\n");
    token = first == std::string::npos ? "" : token.substr(first, last - first + 1);
    if (token.empty()) {
        why = "auth.token_file '" + s.auth_token_file + "' is empty";
        return false;
    }
    return true;
}

}  // namespace objwire::client
