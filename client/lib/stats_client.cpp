#include "client/lib/stats_client.hpp"

#include <asio.hpp>
#include <charconv>
#include <limits>
#include <optional>

#include <objwire/connection.hpp>
#include "client/lib/daemon_link.hpp"
#include "proto/control.hpp"
#include "proto/errors.hpp"
#include "proto/frame_reader.hpp"

namespace objwire::client {
namespace {

// The stats text of a busy daemon is a few KiB; this bounds what a wrong peer can make us hold.
constexpr std::uint32_t max_stats_frame = 4u << 20;

std::error_code write_all(daemon_link& link, std::span<const std::uint8_t> bytes,
                          std::chrono::milliseconds timeout) {
    while (!bytes.empty()) {
        std::error_code ec;
        const auto n = link.write_some(bytes, ec);
        if (ec == asio::error::would_block || ec == asio::error::try_again) {
            if (auto w = link.wait_writable(timeout)) return w;
            continue;
        }
        if (ec) return ec;
        bytes = bytes.subspan(n);
    }
    return {};
}

}  // namespace

namespace {

std::error_code send_stats_hello(daemon_link& link, const config::client_settings& settings,
                                 const std::string& where, std::string& why,
                                 std::chrono::milliseconds timeout) {
    hello h;
    h.client_name = "objwire stats";
    h.role = peer_role::stats;
    h.max_frame_bytes = max_stats_frame;
    std::string token;
    if (!read_token_file(settings, token, why)) return client_errc::connect_failed;
    h.auth_token = token;
    byte_buffer payload;
    byte_buffer frame;
    encode_hello(h, payload);
    append_frame(frame, frame_kind::hello, 0, payload.span());
    if (auto ec = write_all(link, frame.span(), timeout)) {
        why = "cannot send the hello to " + where + ": " + ec.message();
        return client_errc::connection_lost;
    }
    return {};
}

// One frame of the answer (a welcome, the stats, a goodbye): nullopt to read on, no error
// once the answer is whole, or why it cannot be.
std::optional<std::error_code> take_stats_frame(const frame_view& f, const std::string& where,
                                                stats_answer& out, bool& welcomed,
                                                std::string& why) {
    switch (f.header.kind) {
        case frame_kind::error: {
            auto e = read_error_frame(f.payload);
            why = "refused by " + where + ": " + e.text;
            return e.code;
        }
        case frame_kind::welcome: {
            auto w = decode_welcome(f.payload);
            if (!w) {
                why = "bad welcome from " + where;
                return w.error();
            }
            out.server_name = w->server_name;
            out.sink = w->sink;
            welcomed = true;
            return std::nullopt;
        }
        case frame_kind::stats:
            out.text.assign(f.payload.begin(), f.payload.end());
            return std::nullopt;
        case frame_kind::goodbye:
            if (welcomed) return std::error_code{};
            [[fallthrough]];
        default:
            why = "unexpected frame from " + where + " (is it objwired?)";
            return proto_errc::unexpected_frame;
    }
}

// Reads what the daemon sent into `frames`, until `deadline`.
std::error_code read_stats_bytes(daemon_link& link, frame_reader& frames, const std::string& where,
                                 std::chrono::steady_clock::time_point deadline,
                                 std::chrono::milliseconds timeout, std::string& why) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    std::error_code ec;
    auto space = frames.prepare();
    const auto n =
        left.count() > 0 ? link.read_some(space, left, ec) : (ec = client_errc::timed_out, 0);
    if (ec == client_errc::timed_out) {
        why = "no answer from " + where + " within " + std::to_string(timeout.count()) + " ms";
        return ec;
    }
    if (ec) {
        why = "connection to " + where + " lost: " + ec.message();
        return client_errc::connection_lost;
    }
    frames.commit(n);
    return {};
}

}  // namespace

std::error_code fetch_stats(const config::client_settings& settings, stats_answer& out,
                            std::string& why, std::chrono::milliseconds timeout) {
    const std::string where = settings.to_host + ":" + std::to_string(settings.to_port);
    asio::io_context io;
    asio::ip::tcp::socket socket(io);
    daemon_link link(socket);  // TLS when tls.enabled, as for send and read
    if (auto ec = link.connect(settings, why)) return ec;
    if (auto ec = send_stats_hello(link, settings, where, why, timeout)) return ec;
    frame_reader frames(max_stats_frame, 64 * 1024);
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    bool welcomed = false;
    for (;;) {
        auto r = frames.next();
        if (r.state == frame_parser::status::error) {
            why = "bad frame from " + where + ": " + r.error.message();
            return r.error;
        }
        if (r.state != frame_parser::status::frame) {
            if (auto ec = read_stats_bytes(link, frames, where, deadline, timeout, why)) return ec;
            continue;
        }
        const auto done = take_stats_frame(r.frame, where, out, welcomed, why);
        if (!done) continue;
        if (!*done) link.shutdown();
        return *done;
    }
}

std::vector<metric_sample> parse_prometheus(std::string_view text) {
    std::vector<metric_sample> out;
    while (!text.empty()) {
        const auto nl = text.find('\n');
        std::string_view line = text.substr(0, nl);
        text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
        if (line.empty() || line.front() == '#') continue;
        metric_sample s;
        std::size_t i = 0;
        while (i < line.size() && line[i] != '{' && line[i] != ' ')
            ++i;
        s.name = line.substr(0, i);
        if (i < line.size() && line[i] == '{') {
            ++i;
            while (i < line.size() && line[i] != '}') {
                const auto eq = line.find("=\"", i);
                if (eq == std::string_view::npos) break;
                std::string key(line.substr(i, eq - i));
                std::string value;
                i = eq + 2;
                while (i < line.size() && line[i] != '"') {
                    if (line[i] == '\\' && i + 1 < line.size()) {
                        ++i;
                        value.push_back(line[i] == 'n' ? '\n' : line[i]);
                    } else {
                        value.push_back(line[i]);
                    }
                    ++i;
                }
                ++i;  // the closing quote
                if (i < line.size() && line[i] == ',') ++i;
                s.labels.emplace(std::move(key), std::move(value));
            }
            ++i;  // '}'
        }
        while (i < line.size() && line[i] == ' ')
            ++i;
        const auto number = line.substr(i, line.find(' ', i) - i);
        if (number == "+Inf") {
            s.value = std::numeric_limits<double>::infinity();
        } else {
            auto [p, ec] = std::from_chars(number.data(), number.data() + number.size(), s.value);
            if (ec != std::errc() || number.empty()) continue;
        }
        if (!s.name.empty()) out.push_back(std::move(s));
    }
    return out;
}

}  // namespace objwire::client
