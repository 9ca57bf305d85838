// Bad input sent to a running daemon: each case gets its own error and a log line naming the
// peer and the reason, that connection closes, and a good client sending at the same time
// is unaffected.
#include <gtest/gtest.h>

#include <asio.hpp>

#include "client/connection.hpp"
#include "client/workloads.hpp"
#include "daemon_fixture.hpp"
#include "proto/control.hpp"
#include "proto/encoder.hpp"
#include "proto/errors.hpp"
#include "proto/frame.hpp"
#include "proto/wire.hpp"

namespace objwire::test {
namespace {

using asio::ip::tcp;

// A hand-driven connection: a correct handshake, then whatever bytes the test chooses.
class raw_peer {
public:
    explicit raw_peer(std::uint16_t port) : socket_(io_) {
        socket_.connect({asio::ip::make_address("127.0.0.1"), port});
        byte_buffer payload;
        encode_hello({}, payload);
        byte_buffer frame;
        append_frame(frame, frame_kind::hello, 0, payload.span());
        send(frame.span());
        auto welcome = read_frame();
        EXPECT_EQ(welcome.header.kind, frame_kind::welcome);
    }

    std::string name() const {
        auto ep = socket_.local_endpoint();
        return ep.address().to_string() + ":" + std::to_string(ep.port());
    }
    void send(std::span<const std::uint8_t> bytes) { asio::write(socket_, asio::buffer(bytes.data(), bytes.size())); }
    void close_sending() { socket_.shutdown(tcp::socket::shutdown_send); }

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
    tcp::socket socket_;
    std::vector<std::uint8_t> buf_;
};

byte_buffer person_frame(std::uint64_t sequence) {
    byte_buffer frame;
    frame.resize(frame_header_size);
    stream_encoder enc({});
    message m{make_record(make_record_type("Person", {"firstName", "surname", "age"}), {"Heinz", "Kabutz", 1}), {}};
    EXPECT_FALSE(enc.encode(m, frame));
    seal_frame(frame.span(), frame_kind::data, sequence);
    return frame;
}

class BadInput : public daemon_fixture {
protected:
    // Runs `attack` against the daemon while a good client sends 20,000 objects.
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
        // The daemon logs after closing; give it a moment without depending on speed.
        for (int i = 0; i < 200 && log_text().find(peer + ": " + reason) == std::string::npos; ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        EXPECT_NE(log_text().find(peer + ": " + reason), std::string::npos)
            << "no log line '" << peer << ": " << reason << "' in:\n"
            << log_text();
    }
};

TEST_F(BadInput, CorruptedChecksum) {
    start();
    with_good_client([&] {
        raw_peer p(port());
        auto frame = person_frame(1);
        frame.data()[frame.size() - 1] ^= 0x01;
        p.send(frame.span());
        EXPECT_EQ(p.error_then_close(), proto_errc::bad_checksum);
        expect_logged(p.name(), "closing connection: frame checksum mismatch");
    });
}

TEST_F(BadInput, OversizedFrame) {
    start();
    with_good_client([&] {
        raw_peer p(port());
        byte_buffer header;
        header.resize(frame_header_size);
        seal_frame(header.span(), frame_kind::data, 1);
        store_le<std::uint32_t>(header.data() + 4, settings_.max_frame_bytes + 1);  // claims more
        store_le<std::uint32_t>(header.data() + 16, settings_.max_frame_bytes + 1);
        p.send(header.span());
        EXPECT_EQ(p.error_then_close(), proto_errc::frame_too_large);
        expect_logged(p.name(), "closing connection: frame larger than the agreed maximum");
    });
}

TEST_F(BadInput, UnknownTag) {
    start();
    with_good_client([&] {
        raw_peer p(port());
        const std::uint8_t payload[] = {0x14};  // a reserved tag
        byte_buffer frame;
        append_frame(frame, frame_kind::data, 1, payload);
        p.send(frame.span());
        EXPECT_EQ(p.error_then_close(), proto_errc::unknown_tag);
        expect_logged(p.name(), "closing connection: unknown value tag");
    });
}

TEST_F(BadInput, TruncatedFrameThenClose) {
    start();
    with_good_client([&] {
        raw_peer p(port());
        auto frame = person_frame(1);
        p.send(frame.span().first(frame.size() / 2));
        p.close_sending();
        EXPECT_EQ(p.error_then_close(), std::nullopt);  // closed, nothing acknowledged
        expect_logged(p.name(), "connection closed mid-frame");
    });
}

TEST_F(BadInput, GoodFramesBeforeABadOneAreStoredAndAcked) {
    start();
    raw_peer p(port());
    auto good = person_frame(1);
    const std::uint8_t payload[] = {0x14};  // a reserved tag
    byte_buffer bad;
    append_frame(bad, frame_kind::data, 2, payload);
    byte_buffer both;
    both.append(good.span());
    both.append(bad.span());
    p.send(both.span());
    auto ack_frame = p.read_frame();
    ASSERT_EQ(ack_frame.header.kind, frame_kind::ack);
    EXPECT_EQ(decode_ack(ack_frame.payload)->sequence, 1u);
    EXPECT_EQ(p.error_then_close(), proto_errc::unknown_tag);
    stop();
    EXPECT_EQ(stored().size(), 1u);
}

}  // namespace
}  // namespace objwire::test
