// Tools for bad-input tests against a running daemon: a hand-driven connection that sends
// whatever bytes a test chooses, and a fixture that runs an attack while a good client sends,
// so a test can check that the attacker gets its own error and the good client is unaffected.
#pragma once

#include <gtest/gtest.h>

#include <asio.hpp>
#include <atomic>
#include <chrono>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include <objwire/connection.hpp>
#include "client/workloads/workloads.hpp"
#include "daemon_fixture.hpp"
#include "proto/control.hpp"
#include "proto/errors.hpp"
#include "proto/frame.hpp"

namespace objwire::test {

class raw_peer {
  public:
    // Connects; with `greet`, also says a correct hello and reads the welcome.
    explicit raw_peer(std::uint16_t port, bool greet = true) : socket_(io_) {
        socket_.connect({asio::ip::make_address("127.0.0.1"), port});
        if (!greet) return;
        byte_buffer payload;
        encode_hello({}, payload);
        send_frame(frame_kind::hello, 0, payload.span());
        auto welcome = read_frame();
        EXPECT_EQ(welcome.header.kind, frame_kind::welcome);
    }

    // The name the daemon's log gives this peer.
    std::string name() const {
        auto ep = socket_.local_endpoint();
        return ep.address().to_string() + ":" + std::to_string(ep.port());
    }
    void send(std::span<const std::uint8_t> bytes) {
        asio::write(socket_, asio::buffer(bytes.data(), bytes.size()));
    }
    void send_frame(frame_kind kind, std::uint64_t sequence,
                    std::span<const std::uint8_t> payload) {
        byte_buffer frame;
        append_frame(frame, kind, sequence, payload);
        send(frame.span());
    }
    void close_sending() { socket_.shutdown(asio::ip::tcp::socket::shutdown_send); }
    int native_handle() { return socket_.native_handle(); }

    // The next frame from the daemon; kind 0 at end of stream.
    struct frame {
        frame_header header{};
        std::vector<std::uint8_t> payload;
    };
    frame read_frame() {
        frame_parser parser(1 << 20);
        for (;;) {
            auto r = parser.parse(buf_);
            if (r.state == frame_parser::status::frame) {
                frame f{r.frame.header, {r.frame.payload.begin(), r.frame.payload.end()}};
                buf_.erase(buf_.begin(), buf_.begin() + static_cast<std::ptrdiff_t>(r.size));
                return f;
            }
            std::uint8_t chunk[4096];
            std::error_code ec;
            std::size_t n = socket_.read_some(asio::buffer(chunk), ec);
            if (ec) return {{static_cast<frame_kind>(0)}, {}};
            buf_.insert(buf_.end(), chunk, chunk + n);
        }
    }
    // Reads to the end: the daemon's error code if it sent one, and whether it closed.
    std::optional<proto_errc> error_then_close() {
        std::optional<proto_errc> code;
        for (;;) {
            auto f = read_frame();
            if (static_cast<int>(f.header.kind) == 0) return code;
            if (f.header.kind == frame_kind::error) {
                auto e = decode_error(f.payload);
                if (e) code = static_cast<proto_errc>(e->code);
            }
        }
    }

  private:
    asio::io_context io_;
    asio::ip::tcp::socket socket_;
    std::vector<std::uint8_t> buf_;
};

class bad_input_fixture : public daemon_fixture {
  protected:
    // Runs `attack` against the daemon while a good client sends 20,000 objects, and checks
    // that every one of them was acknowledged.
    void with_good_client(const std::function<void()>& attack) {
        std::atomic<bool> good_ok{false};
        std::thread good([&] {
            client::connection c(client_settings(), "good");
            if (c.open()) return;
            auto w = workloads::make("person");
            message m;
            for (int i = 0; i < 20'000; ++i) {
                w->next(m);
                if (c.send(m)) return;
            }
            good_ok = !c.close() && c.stats().objects_acked == 20'000;
        });
        attack();
        good.join();
        EXPECT_TRUE(good_ok.load()) << "the good client was disturbed";
    }

    void expect_logged(const std::string& peer, const std::string& reason) {
        // The daemon logs after closing: wait (bounded) for the line.
        const std::string line = peer + ": " + reason;
        wait_until([&] { return log_text().find(line) != std::string::npos; });
        EXPECT_NE(log_text().find(line), std::string::npos) << "no log line '" << line << "' in:\n"
                                                            << log_text();
    }
};

}  // namespace objwire::test
