// Hostile input over 127.0.0.1, the rows of docs/SECURITY.md that are cheap to send: random
// bytes, a wrong magic or version, deep nesting, a huge string claim, references to unknown
// entries, invalid UTF-8, a table overflow, a zlib bomb, a silent peer. Each gets its own error
// frame (or, where there is no frame to answer, a close) and a log line naming the peer and the
// reason; that connection closes, and a good client sending at the same time is unaffected.
#include <zlib.h>

#include <filesystem>
#include <random>

#include "bad_peer.hpp"
#include "daemon/serve/store_allowance.hpp"
#include "proto/codec.hpp"
#include "proto/wire.hpp"

namespace objwire::test {
namespace {

using bytes_t = std::vector<std::uint8_t>;

class HostileInput : public bad_input_fixture {
  protected:
    // One data frame (sequence 1) with `payload` after a correct handshake: the daemon's error.
    std::optional<proto_errc> send_data(const bytes_t& payload, std::string* peer_name = nullptr) {
        raw_peer p(port());
        if (peer_name) *peer_name = p.name();
        p.send_frame(frame_kind::data, 1, payload);
        return p.error_then_close();
    }
    // As send_data, and the daemon logged `reason` for that peer.
    void expect_refused(const bytes_t& payload, proto_errc code) {
        std::string peer;
        EXPECT_EQ(send_data(payload, &peer), code) << make_error_code(code).message();
        expect_logged(peer, "closing connection: " + make_error_code(code).message());
    }
};

// Bytes of every file under `dir`.
std::uint64_t bytes_under(const std::filesystem::path& dir) {
    std::uint64_t total = 0;
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir))
        if (e.is_regular_file()) total += e.file_size();
    return total;
}

bytes_t random_bytes(std::uint32_t seed, std::size_t n) {
    std::mt19937 rng(seed);
    bytes_t out(n);
    for (auto& b : out)
        b = static_cast<std::uint8_t>(rng());
    return out;
}

// A frame can only fail at its header or checksum before anything is decoded.
bool is_frame_error(std::optional<proto_errc> e) {
    return e == proto_errc::unknown_frame_kind || e == proto_errc::bad_reserved ||
           e == proto_errc::bad_codec || e == proto_errc::frame_too_large ||
           e == proto_errc::bad_checksum;
}

TEST_F(HostileInput, RandomBytesInsteadOfAHello) {
    start();
    with_good_client([&] {
        for (std::uint32_t seed = 1; seed <= 8; ++seed) {
            raw_peer p(port(), /*greet=*/false);
            p.send(random_bytes(seed, 256));
            const auto e = p.error_then_close();
            EXPECT_TRUE(is_frame_error(e)) << "seed " << seed;
            expect_logged(p.name(), "closing connection: ");
        }
    });
}

TEST_F(HostileInput, RandomBytesAfterTheHandshake) {
    start();
    with_good_client([&] {
        for (std::uint32_t seed = 100; seed < 108; ++seed) {
            raw_peer p(port());
            p.send(random_bytes(seed, 256));
            EXPECT_TRUE(is_frame_error(p.error_then_close())) << "seed " << seed;
            expect_logged(p.name(), "closing connection: ");
        }
    });
}

TEST_F(HostileInput, WrongMagicAndWrongVersion) {
    start();
    with_good_client([&] {
        byte_buffer good;
        encode_hello({}, good);
        {
            byte_buffer bad;
            bad.append(good.span());
            bad.data()[0] = 'X';  // "XBJW"
            raw_peer p(port(), false);
            p.send_frame(frame_kind::hello, 0, bad.span());
            EXPECT_EQ(p.error_then_close(), proto_errc::bad_magic);
            expect_logged(p.name(), "closing connection: bad magic (not an objwire peer)");
        }
        {
            hello h;
            h.version = protocol_version + 1;
            byte_buffer bad;
            encode_hello(h, bad);
            raw_peer p(port(), false);
            p.send_frame(frame_kind::hello, 0, bad.span());
            EXPECT_EQ(p.error_then_close(), proto_errc::unsupported_version);
            expect_logged(p.name(), "closing connection: unsupported protocol version");
        }
        {
            raw_peer p(port(), false);  // a data frame where the hello belongs
            p.send_frame(frame_kind::data, 1, bytes_t{wire::tag_null});
            EXPECT_EQ(p.error_then_close(), proto_errc::unexpected_frame);
            expect_logged(p.name(), "closing connection: frame not valid in this state");
        }
    });
}

TEST_F(HostileInput, HundredThousandDeepNesting) {
    start();
    with_good_client([&] {
        bytes_t payload;
        for (int i = 0; i < 100'000; ++i)
            payload.insert(payload.end(), {wire::tag_list, 1});
        payload.push_back(wire::tag_null);
        expect_refused(payload, proto_errc::depth_exceeded);
    });
}

TEST_F(HostileInput, HugeStringAndBytesClaims) {
    start();
    with_good_client([&] {
        // 2^40 bytes announced: over max_string_bytes, refused before anything is reserved.
        const bytes_t huge_varint = {0x80, 0x80, 0x80, 0x80, 0x80, 0x20};
        bytes_t s{wire::tag_string};
        s.insert(s.end(), huge_varint.begin(), huge_varint.end());
        expect_refused(s, proto_errc::string_too_long);
        bytes_t b{wire::tag_bytes};
        b.insert(b.end(), huge_varint.begin(), huge_varint.end());
        expect_refused(b, proto_errc::string_too_long);
        // 1,000,000 bytes announced, within the limit, 3 sent: a lie about the frame's length.
        expect_refused({wire::tag_string, 0xC0, 0x84, 0x3D, 'a', 'b', 'c'}, proto_errc::truncated);
        // A list of a billion elements: over max_elements.
        expect_refused({wire::tag_list, 0x80, 0x94, 0xEB, 0xDC, 0x03},
                       proto_errc::too_many_elements);
    });
}

TEST_F(HostileInput, ReferencesToUnknownEntries) {
    start();
    with_good_client([&] {
        expect_refused({wire::tag_string_ref, 0xE8, 0x07},
                       proto_errc::unknown_reference);  // id 1000
        expect_refused({wire::short_string_ref + 5}, proto_errc::unknown_reference);
        expect_refused({wire::short_record + 9}, proto_errc::unknown_reference);
        expect_refused({wire::tag_record, 0x40}, proto_errc::unknown_reference);
        expect_refused({wire::tag_object_ref, 5}, proto_errc::unknown_object);
    });
}

TEST_F(HostileInput, InvalidUtf8) {
    start();
    with_good_client([&] {
        expect_refused({wire::tag_string, 2, 0xC3, 0x28}, proto_errc::invalid_utf8);
        expect_refused({wire::tag_string, 2, 0xC0, 0xAF}, proto_errc::invalid_utf8);  // overlong
        expect_refused({wire::tag_string_new, 3, 0xED, 0xA0, 0x80}, proto_errc::invalid_utf8);
        // In a map key and in the hello's client name too.
        expect_refused({wire::tag_map, 1, wire::tag_string, 1, 0xFF, wire::tag_null},
                       proto_errc::invalid_utf8);
        byte_buffer hello_payload;
        hello h;
        h.client_name = "\xF4\x90\x80\x80";  // above U+10FFFF
        encode_hello(h, hello_payload);
        raw_peer p(port(), false);
        p.send_frame(frame_kind::hello, 0, hello_payload.span());
        EXPECT_EQ(p.error_then_close(), proto_errc::invalid_utf8);
        expect_logged(p.name(), "closing connection: string is not valid UTF-8");
    });
}

TEST_F(HostileInput, TableOverflowWithASmallBudget) {
    settings_.table_budget = 64;
    start();
    with_good_client([&] {  // the good client keeps within the same 64 bytes
        // One indexed 40-byte string costs 72 accounted bytes: no eviction can make room.
        bytes_t payload(2 + 40, 'a');
        payload[0] = wire::tag_string_new;
        payload[1] = 40;
        expect_refused(payload, proto_errc::table_budget_exceeded);
    });
}

// "Billion laughs": one string of almost the whole table budget, then a million one-byte
// references to it - a 5 MB frame that would decode to 4 TB. Refused at the first reference
// over limits.max_reference_bytes (16 MiB: the fifth), before that copy is made.
TEST_F(HostileInput, BillionLaughsIsRefused) {
    start();
    with_good_client([&] {
        // The largest string entry a 4 MiB table takes: charged 64 + its length + 16.
        const std::size_t len = (4u << 20) - 80;
        bytes_t payload{wire::tag_list, 0xC0, 0x84, 0x3D, wire::tag_string_new};  // 1,000,000
        byte_buffer n;
        n.put_varint(len);
        payload.insert(payload.end(), n.data(), n.data() + n.size());
        payload.resize(payload.size() + len, 'a');
        payload.resize(payload.size() + 999'999, wire::short_string_ref);
        expect_refused(payload, proto_errc::reference_bytes_exceeded);
    });
}

TEST_F(HostileInput, ZlibBombIsRefused) {
    start();
    with_good_client([&] {
        // 16 MiB of zeros in about 16 KiB, claiming to expand to 4 KiB.
        const bytes_t zeros(16u << 20, 0);
        uLongf n = compressBound(static_cast<uLong>(zeros.size()));
        bytes_t frame(frame_header_size + n);
        ASSERT_EQ(compress2(frame.data() + frame_header_size, &n, zeros.data(),
                            static_cast<uLong>(zeros.size()), 9),
                  Z_OK);
        frame.resize(frame_header_size + n);
        seal_frame(frame, frame_kind::data, 1, codec_id::zlib, 4096);
        {
            // Inflating stops at the announced raw size: nothing past 4 KiB is produced.
            raw_peer p(port());
            p.send(frame);
            EXPECT_EQ(p.error_then_close(), proto_errc::decompress_failed);
            expect_logged(p.name(),
                          "closing connection: decompression failed or exceeded raw size");
        }
        {
            // Announcing more than max_frame_bytes once inflated: refused from the header.
            seal_frame(frame, frame_kind::data, 1, codec_id::zlib, settings_.max_frame_bytes + 1);
            raw_peer p(port());
            p.send(std::span(frame).first(frame_header_size));
            EXPECT_EQ(p.error_then_close(), proto_errc::frame_too_large);
        }
    });
}

// Before: 542 bytes of zstd (16 MiB of null messages, within max_frame_bytes) were stored as
// 16 MiB: received bytes were counted decompressed only.
TEST_F(HostileInput, ACompressedFrameStoresAtMostTheRatioTimesItsWireBytes) {
    start();
    const bytes_t nulls(settings_.max_frame_bytes, wire::tag_null);
    frame_compressor z;
    byte_buffer packed;
    ASSERT_FALSE(z.compress(codec_id::zstd, 0, nulls, packed));
    bytes_t frame(frame_header_size);
    frame.insert(frame.end(), packed.data(), packed.data() + packed.size());
    seal_frame(frame, frame_kind::data, 1, codec_id::zstd,
               static_cast<std::uint32_t>(nulls.size()));
    const std::uint64_t may_store =
        settings_.max_stored_wire_ratio * frame.size() + daemon::store_allowance::free_bytes;
    ASSERT_LT(may_store, nulls.size()) << "the frame must expand past the allowance";
    const auto before = bytes_under(dir_);
    {
        raw_peer p(port());
        p.send(frame);
        EXPECT_EQ(p.error_then_close(), proto_errc::store_limit_exceeded);
        expect_logged(p.name(), "closing connection: ");
    }
    const auto log = log_text();
    EXPECT_NE(log.find(" bytes received on the wire: over limits.max_stored_wire_ratio"),
              std::string::npos)
        << log;
    EXPECT_LE(bytes_under(dir_) - before, settings_.max_stored_wire_ratio * frame.size());
    EXPECT_TRUE(stored().empty()) << "objects of the refused frame were stored";
}

TEST_F(HostileInput, SilentPeerDoesNotHoldUpOthers) {
    start();
    raw_peer silent(port());  // said hello, then nothing: the daemon keeps serving the rest
    raw_peer half(port(), false);
    const std::uint8_t one_byte[] = {static_cast<std::uint8_t>(frame_kind::hello)};
    half.send(one_byte);  // a hello that never finishes
    with_good_client([] {});
    stop();  // and a graceful stop does not wait for them
    EXPECT_EQ(silent.error_then_close(), std::nullopt);
}

TEST_F(HostileInput, PeerWithoutAHelloIsClosedAtTheHandshakeDeadline) {
    start();
    raw_peer p(port(), false);
    const std::uint8_t one_byte[] = {static_cast<std::uint8_t>(frame_kind::hello)};
    p.send(one_byte);  // one byte, then nothing: bounded by the daemon's handshake deadline
    EXPECT_EQ(p.error_then_close(), std::nullopt);
    expect_logged(p.name(), "closing connection: no hello within");
}

}  // namespace
}  // namespace objwire::test
