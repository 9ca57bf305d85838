// The stored form of NATS blocks (daemon/sinks/nats_block_codec.hpp): a message without the codec
// headers is the block itself; a compressed one decompresses to exactly the raw length it
// claims, which is capped before anything is allocated; anything else is refused with why.
#include "daemon/sinks/nats_block_codec.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace objwire::daemon {
namespace {

std::vector<std::uint8_t> sample_block() {
    std::vector<std::uint8_t> b;
    for (int i = 0; i < 4096; ++i)
        b.push_back(static_cast<std::uint8_t>("objwire events "[i % 15]));
    return b;
}

struct unpacked {
    bool ok = false;
    std::vector<std::uint8_t> bytes;
    std::string why;
};

unpacked unpack(const char* codec, const char* raw_len, std::span<const std::uint8_t> payload,
                std::size_t max_raw = 1u << 20) {
    frame_decompressor d;
    byte_buffer out;
    unpacked r;
    r.ok = unpack_nats_block(codec, raw_len, payload, max_raw, d, out, r.why);
    r.bytes.assign(out.span().begin(), out.span().end());
    return r;
}

byte_buffer compressed(codec_id c, std::span<const std::uint8_t> raw) {
    frame_compressor comp;
    byte_buffer out;
    EXPECT_FALSE(comp.compress(c, 0, raw, out));
    return out;
}

TEST(nats_block_codec, plain_message_is_the_block) {
    const auto block = sample_block();
    const auto r = unpack(nullptr, nullptr, block);
    ASSERT_TRUE(r.ok) << r.why;
    EXPECT_EQ(r.bytes, block);
}

TEST(nats_block_codec, every_per_block_codec_round_trips) {
    const auto block = sample_block();
    const auto len = std::to_string(block.size());
    for (const char* name : {"zlib", "zstd", "lz4"}) {
        const auto c = parse_codec(name);
        ASSERT_TRUE(c);
        if (!has_codec(built_codecs(), *c)) continue;  // not built: nothing to round-trip
        const auto packed = compressed(*c, block);
        EXPECT_LT(packed.size(), block.size()) << name;
        const auto r = unpack(name, len.c_str(), packed.span());
        ASSERT_TRUE(r.ok) << name << ": " << r.why;
        EXPECT_EQ(r.bytes, block) << name;
    }
}

TEST(nats_block_codec, refuses_lies_and_bombs) {
    const auto block = sample_block();
    const auto packed = compressed(codec_id::zstd, block);
    const auto shorter = std::to_string(block.size() - 1);
    const auto longer = std::to_string(block.size() + 1);
    const auto exact = std::to_string(block.size());
    struct bad {
        const char* codec;
        const char* raw_len;
        std::size_t max_raw;
        std::string says;
    };
    const std::vector<bad> cases{
        {"zstd", shorter.c_str(), 1u << 20, "does not decompress"},
        {"zstd", longer.c_str(), 1u << 20, "does not decompress"},
        {"zstd", exact.c_str(), block.size() - 1, "over the limit"},  // capped first
        {"zstd", "99999999999", 1u << 20, "over the limit"},
        {"zstd", "12x", 1u << 20, "not a number"},
        {"zstd", "0", 1u << 20, "not a number"},
        {"zstd-stream", exact.c_str(), 1u << 20, "not one this objwired decompresses"},
        {"none", exact.c_str(), 1u << 20, "not one this objwired decompresses"},
        {"brotli", exact.c_str(), 1u << 20, "not one this objwired decompresses"},
        {"zstd", nullptr, 1u << 20, "without"},
        {nullptr, exact.c_str(), 1u << 20, "without"},
    };
    for (const auto& c : cases) {
        const auto r = unpack(c.codec, c.raw_len, packed.span(), c.max_raw);
        EXPECT_FALSE(r.ok) << c.says;
        EXPECT_NE(r.why.find(c.says), std::string::npos) << r.why;
        EXPECT_TRUE(r.bytes.empty());
    }
}

}  // namespace
}  // namespace objwire::daemon
