#include "client/lib/stats_client.hpp"

#include <asio.hpp>
#include <optional>

#include <objwire/connection.hpp>
#include "client/lib/daemon_link.hpp"
#include "proto/control.hpp"
#include "proto/errors.hpp"
#include "proto/frame_reader.hpp"

namespace objwire::client {
namespace {

// The stats of a busy daemon are a few KiB; this bounds what a wrong peer can make us hold.
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
        case frame_kind::stats: {
            auto families = decode_metric_families(f.payload);
            if (!families) {
                why = "cannot decode the stats from " + where + ": " + families.error().message() +
                      " (is it an objwired of another version?)";
                return families.error();
            }
            out.families = std::move(*families);
            return std::nullopt;
        }
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

}  // namespace objwire::client
