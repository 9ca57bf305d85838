// last_error() says why a connection cannot be used even when no daemon was asked: a send
// before open(), and a port where something other than objwired answers (an HTTP server's
// text reply), which fails at once with a message naming the peer as not objwired instead of
// waiting for a welcome that will never come, or that closes without a word.
#include <gtest/gtest.h>

#include <array>
#include <asio.hpp>
#include <chrono>
#include <string>
#include <thread>

#include <objwire/connection.hpp>
#include "config/settings.hpp"
#include "proto/errors.hpp"

namespace objwire::test {
namespace {

using namespace std::chrono_literals;

message point() {
    static const auto type = make_record_type("Point", {"x", "y"});
    return {make_record(type, {1, 2}), {}};
}

TEST(LastError, ASendBeforeOpenSaysTheConnectionIsNotOpen) {
    config::client_settings s;
    client::connection c(s);
    EXPECT_EQ(c.send(point()), client::client_errc::not_open);
    EXPECT_NE(c.last_error().find("not open: open() it first"), std::string::npos)
        << c.last_error();
    EXPECT_EQ(c.flush(), client::client_errc::not_open);
    EXPECT_NE(c.last_error(), "");
}

// A server on 127.0.0.1 that reads the hello, answers `reply` and then holds the connection
// open until the test is done with it: only the reply can end the client's wait early. With
// no reply it closes the connection instead. Its thread runs for at most 60 s, whatever the
// client does.
class text_server {
  public:
    explicit text_server(std::string reply)
        : reply_(std::move(reply)), acceptor_(io_, {asio::ip::make_address("127.0.0.1"), 0}) {
        acceptor_.async_accept(peer_, [this](std::error_code ec) {
            if (ec) return;
            peer_.async_read_some(asio::buffer(hello_), [this](std::error_code e, std::size_t) {
                if (reply_.empty()) peer_.close(e);
                if (!e && !reply_.empty())
                    asio::async_write(peer_, asio::buffer(reply_),
                                      [](std::error_code, std::size_t) {});
            });
        });
        thread_ = std::thread([this] { io_.run_for(60s); });
    }
    ~text_server() {
        io_.stop();
        thread_.join();
    }
    std::uint16_t port() const { return acceptor_.local_endpoint().port(); }

  private:
    std::string reply_;
    asio::io_context io_;
    asio::ip::tcp::acceptor acceptor_;
    asio::ip::tcp::socket peer_{io_};
    std::array<char, 256> hello_{};
    std::thread thread_;
};

TEST(LastError, APortThatIsNotObjwiredFailsAtOnceSayingSo) {
    text_server http("HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\n\r\nbad request\n");
    config::client_settings s;
    s.to_host = "127.0.0.1";
    s.to_port = http.port();
    client::connection c(s);
    // Waiting for a welcome would end after 30 s with "no reply from the daemon".
    EXPECT_EQ(c.open(), proto_errc::bad_handshake);
    EXPECT_EQ(c.last_error(),
              "the peer is not objwired: it answered \"HTTP/1.1 400 Bad Request\" (127.0.0.1:" +
                  std::to_string(http.port()) + ")");
    EXPECT_FALSE(c.is_open());
}

// A server that takes the hello and closes without a word: objwired would have answered, so
// the error asks whether the peer is objwired.
TEST(LastError, APeerThatClosesWithoutAWordIsAskedAbout) {
    text_server silent("");
    config::client_settings s;
    s.to_host = "127.0.0.1";
    s.to_port = silent.port();
    client::connection c(s);
    EXPECT_EQ(c.open(), client::client_errc::connection_lost);
    EXPECT_NE(c.last_error().find("connection lost: "), std::string::npos) << c.last_error();
    EXPECT_NE(c.last_error().find(": nothing came back from 127.0.0.1:" +
                                  std::to_string(silent.port()) + ", is it objwired?"),
              std::string::npos)
        << c.last_error();
}

}  // namespace
}  // namespace objwire::test
