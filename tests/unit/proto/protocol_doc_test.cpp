// The worked example of docs/PROTOCOL.md, byte for byte: if the encoding changes, this test
// fails until the document is updated with it.
#include <gtest/gtest.h>

#include "proto/control.hpp"
#include "proto/encoder.hpp"
#include "proto/frame.hpp"
#include "proto/metric_families.hpp"

namespace objwire {
namespace {

std::vector<std::uint8_t> hex(std::string_view text) {
    std::vector<std::uint8_t> out;
    for (std::size_t i = 0; i + 1 < text.size(); ++i) {
        if (text[i] == ' ' || text[i] == '\n') continue;
        out.push_back(
            static_cast<std::uint8_t>(std::stoi(std::string(text.substr(i, 2)), nullptr, 16)));
        ++i;
    }
    return out;
}

std::vector<std::uint8_t> bytes_of(const byte_buffer& b) {
    return {b.data(), b.data() + b.size()};
}

TEST(ProtocolDoc, HelloFrame) {
    hello h;
    h.client_name = "demo";
    byte_buffer payload;
    encode_hello(h, payload);
    byte_buffer frame;
    append_frame(frame, frame_kind::hello, 0, payload.span());
    EXPECT_EQ(bytes_of(frame), hex("01 00 00 00 1a 00 00 00 00 00 00 00 00 00 00 00"
                                   "1a 00 00 00 f0 bf 5c 1b 4f 42 4a 57 01 00 01 04"
                                   "64 65 6d 6f 02 00 03 04 80 80 80 08 04 01 01 05"
                                   "01 00"));
}

TEST(ProtocolDoc, DataFrameAndTableBytes) {
    stream_encoder enc({});
    byte_buffer frame;
    frame.resize(frame_header_size);
    auto point = make_record_type("Point", {"x", "y"});
    ASSERT_FALSE(enc.encode({make_record(point, {1, 200}), {}}, frame));
    ASSERT_FALSE(enc.encode({make_record(point, {-3, "hi"}), {}}, frame));
    seal_frame(frame.span(), frame_kind::data, 1);
    EXPECT_EQ(bytes_of(frame), hex("03 00 00 00 19 00 00 00 01 00 00 00 00 00 00 00"
                                   "19 00 00 00 a4 23 75 66 0b 06 05 50 6f 69 6e 74"
                                   "02 06 01 78 06 01 79 d1 03 90 03 83 cd 06 02 68 69"));
    EXPECT_EQ(enc.table().entries, 5u);
    EXPECT_EQ(enc.table().bytes, 768u);
    byte_buffer third;
    ASSERT_FALSE(enc.encode({make_record(point, {1, "hi"}), {}}, third));
    EXPECT_EQ(bytes_of(third), hex("83 d1 44"));
}

// Section 1.3: the stats payload of one gauge family with two labelled samples.
TEST(ProtocolDoc, StatsPayload) {
    const std::vector<metric_family> families = {
        {"up",
         metric_type::gauge,
         "Up.",
         {{"up", {{"role", "x"}}, std::uint64_t{1}}, {"up", {{"role", "y"}}, 0.5}}}};
    byte_buffer payload;
    encode_metric_families(families, payload);
    const auto doc =
        hex("01 02 75 70 02 01 01 03 03 55 70 2e 04 02 75 70"
            "05 04 72 6f 6c 65 06 01 78 07 01 01 04 02 75 70"
            "05 04 72 6f 6c 65 06 01 79 08 08 00 00 00 00 00"
            "00 e0 3f");
    EXPECT_EQ(bytes_of(payload), doc);
    auto back = decode_metric_families(doc);
    ASSERT_TRUE(back) << back.error().message();
    EXPECT_EQ(*back, families);
}

}  // namespace
}  // namespace objwire
