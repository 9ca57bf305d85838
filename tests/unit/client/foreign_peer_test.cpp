// The first bytes of a reply to a hello: objwired's welcome or error frame passes, a server
// of another protocol is named as such with its first line.
#include "client/lib/foreign_peer.hpp"

#include <gtest/gtest.h>

#include <string_view>
#include <vector>

#include <objwire/proto/frame.hpp>

namespace objwire::client {
namespace {

std::vector<std::uint8_t> bytes(std::string_view text) {
    return {text.begin(), text.end()};
}

TEST(ForeignPeer, AWelcomeOrAnErrorFrameIsObjwired) {
    for (const auto kind : {frame_kind::welcome, frame_kind::error}) {
        std::vector<std::uint8_t> frame(frame_header_size, 0);
        frame[0] = static_cast<std::uint8_t>(kind);
        EXPECT_EQ(foreign_reply(frame), "");
        EXPECT_EQ(foreign_reply(std::span(frame).first(1)), "");  // a frame's first byte
    }
}

TEST(ForeignPeer, ATextReplyIsNamedByItsFirstLine) {
    EXPECT_EQ(foreign_reply(bytes("HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\n\r\n")),
              "the peer is not objwired: it answered \"HTTP/1.1 400 Bad Request\"");
    EXPECT_EQ(foreign_reply(bytes("220 mail ESMTP\r\n")),
              "the peer is not objwired: it answered \"220 mail ESMTP\"");
    EXPECT_EQ(foreign_reply(bytes("SSH-2.0-OpenSSH_9.2\r\n")),
              "the peer is not objwired: it answered \"SSH-2.0-OpenSSH_9.2\"");
}

TEST(ForeignPeer, ControlBytesAndLongLinesStayReadable) {
    const auto hello_back = std::vector<std::uint8_t>{1, 0, 0xff, 'x'};  // a hello: not an answer
    EXPECT_EQ(foreign_reply(hello_back),
              "the peer is not objwired: it answered \"\\x01\\x00\\xffx\"");
    const auto reply = foreign_reply(bytes(std::string(500, 'a')));
    EXPECT_EQ(reply, "the peer is not objwired: it answered \"" + std::string(60, 'a') + "\"");
}

TEST(ForeignPeer, ATlsServerIsToldApart) {
    const std::vector<std::uint8_t> alert{21, 3, 3, 0, 2, 2, 50};
    EXPECT_EQ(foreign_reply(alert),
              "the peer is not objwired without TLS: it answered in TLS (tls.enabled)");
}

TEST(ForeignPeer, NothingYetIsNoVerdict) {
    EXPECT_EQ(foreign_reply({}), "");
}

}  // namespace
}  // namespace objwire::client
