// The reference-bytes allowance (decoder_limits::max_reference_bytes, docs/PROTOCOL.md
// "Reference bytes"): a frame may decode only so many bytes by back-reference. The decoder
// refuses more before copying; the honest encoder and sender never send more, and normal
// workloads never come near it.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "client/workloads/workloads.hpp"
#include "proto/control.hpp"
#include "proto/decoder.hpp"
#include "proto/encoder.hpp"
#include "proto/errors.hpp"
#include "proto/receiver.hpp"
#include "proto/sender.hpp"
#include "proto/wire.hpp"
#include "test_support.hpp"

namespace objwire {
namespace {

using test::append_varint;

using bytes_t = std::vector<std::uint8_t>;

// One list: a string of `len` bytes inserted in the table (id 0), then `refs` one-byte
// references to it.
bytes_t laughs(std::size_t len, std::size_t refs) {
    bytes_t p{wire::tag_list};
    append_varint(p, refs + 1);
    p.push_back(wire::tag_string_new);
    append_varint(p, len);
    p.resize(p.size() + len, 'a');
    p.resize(p.size() + refs, wire::short_string_ref);
    return p;
}

TEST(ReferenceBytes, BillionLaughsFrameIsRefusedBeforeItsCopies) {
    // 5 MB: one string of almost 4 MiB (the whole default table budget) and a million
    // references to it would decode to 4 TB.
    // The largest string entry a 4 MiB table takes: charged 64 + its length + 16.
    const std::size_t len = (4u << 20) - 80;
    const bytes_t p = laughs(len, 999'999);  // a list of a million: max_elements
    decoder_limits limits;
    stream_decoder dec(limits);
    std::size_t delivered = 0;
    auto ec = dec.decode_payload(p, [&](message&&) { ++delivered; });
    EXPECT_EQ(ec, proto_errc::reference_bytes_exceeded);
    EXPECT_EQ(delivered, 0u);
    // It stopped at the first reference over the allowance: 4 copies fit in 16 MiB.
    EXPECT_EQ(dec.reference_bytes(), 4 * len);
    EXPECT_LE(dec.reference_bytes(), limits.max_reference_bytes);
}

TEST(ReferenceBytes, TheAllowanceIsExactAndPerFrame) {
    decoder_limits limits;
    limits.max_reference_bytes = 3000;
    stream_decoder dec(limits);
    // 1000-byte string, 3 references: exactly the allowance.
    bytes_t p = laughs(1000, 3);
    std::size_t n = 0;
    ASSERT_FALSE(dec.decode_payload(p, [&](message&&) { ++n; }));
    EXPECT_EQ(n, 1u);
    EXPECT_EQ(dec.reference_bytes(), 3000u);
    // The next frame starts a new account: three more references to the same entry go.
    bytes_t q{wire::tag_list, 3, wire::short_string_ref, wire::short_string_ref,
              wire::short_string_ref};
    ASSERT_FALSE(dec.decode_payload(q, [&](message&&) { ++n; }));
    EXPECT_EQ(n, 2u);
    // One more in a frame is one too many.
    bytes_t r{wire::tag_list,         4,
              wire::short_string_ref, wire::short_string_ref,
              wire::short_string_ref, wire::short_string_ref};
    EXPECT_EQ(dec.decode_payload(r, [&](message&&) {}), proto_errc::reference_bytes_exceeded);
}

// A kept object of 5 strings of 1000 bytes: the first travels, 4 are references.
message kept_message() {
    const std::string s(1000, 'k');
    message m{object_ref{0}, {list{s, s, s, s, s}}};
    m.shared_keys = {7};
    return m;
}

encoder_options wide_strings(decoder_limits peer) {
    encoder_options o;
    o.peer = peer;
    o.max_indexed_string = 2000;
    return o;
}

TEST(ReferenceBytes, KeptObjectsChargeWhatTheyExpandTo) {
    // Encoded for an unlimited receiver: one keep, then two kept references.
    decoder_limits unlimited;
    unlimited.max_reference_bytes = UINT64_MAX;
    stream_encoder enc(wide_strings(unlimited));
    byte_buffer buf;
    for (int i = 0; i < 3; ++i)
        ASSERT_FALSE(enc.encode(kept_message(), buf));
    stream_decoder open(unlimited);
    std::vector<message> out;
    ASSERT_FALSE(open.decode_payload(buf.span(), [&](message&& m) { out.push_back(m); }));
    ASSERT_EQ(out.size(), 3u);
    EXPECT_EQ(out[2], kept_message());
    // 4,000 by the strings inside the keep, then its expanded size (the keep's wire bytes +
    // those 4,000) for each of the two references.
    const std::uint64_t inner = 4000;
    const std::uint64_t per_ref = (open.reference_bytes() - inner) / 2;
    EXPECT_EQ(open.reference_bytes(), inner + 2 * per_ref);
    EXPECT_GT(per_ref, inner + 1000);

    // A receiver that allows less than that refuses the same frame.
    decoder_limits tight;
    tight.max_reference_bytes = inner + per_ref;
    stream_decoder dec(tight);
    EXPECT_EQ(dec.decode_payload(buf.span(), [](message&&) {}),
              proto_errc::reference_bytes_exceeded);
}

TEST(ReferenceBytes, OneMessageOverTheAllowanceTravelsLiterally) {
    decoder_limits limits;
    limits.max_reference_bytes = 600;
    const std::string s(60, 'x');
    list l(100, value{s});
    message m{value{l}};
    encoder_options o;
    o.peer = limits;
    stream_encoder enc(o);
    byte_buffer buf;
    ASSERT_FALSE(enc.encode(m, buf));
    EXPECT_EQ(enc.last_reference_bytes(), 600u);  // ten references, then literals
    stream_decoder dec(limits);
    std::vector<message> out;
    ASSERT_FALSE(dec.decode_payload(buf.span(), [&](message&& x) { out.push_back(x); }));
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0], m);
    // The table is still in step: the next message's references decode.
    byte_buffer next;
    ASSERT_FALSE(enc.encode(message{value{s}}, next));
    EXPECT_EQ(next.size(), 1u);  // one reference
    ASSERT_FALSE(dec.decode_payload(next.span(), [&](message&& x) { out.push_back(x); }));
    EXPECT_EQ(out.back(), message{value{s}});

    // A kept object over the allowance travels as its value again (tag_object_def).
    stream_encoder kenc(wide_strings(limits));
    stream_decoder kdec(limits);
    for (int i = 0; i < 3; ++i) {
        byte_buffer b;
        ASSERT_FALSE(kenc.encode(kept_message(), b));
        EXPECT_LE(kenc.last_reference_bytes(), 600u);
        std::vector<message> got;
        ASSERT_FALSE(kdec.decode_payload(b.span(), [&](message&& x) { got.push_back(x); }));
        ASSERT_EQ(got.size(), 1u);
        EXPECT_EQ(got[0], kept_message());
    }
}

// Sender and receiver through memory; returns the frames the sender sealed.
std::uint64_t stream(const std::vector<message>& in, decoder_limits limits,
                     std::uint64_t* wire_bytes = nullptr, std::uint32_t batch = 64 * 1024) {
    sender::options so;
    so.greeting.client_name = "test";
    so.batch_max_bytes = batch;
    so.compression.mode = compression_mode::never;
    sender s(so);
    receiver::options ro;
    ro.limits = limits;
    receiver r(ro);
    std::vector<message> got;
    std::uint64_t bytes = 0;
    auto pump = [&] {
        for (int round = 0; round < 1000; ++round) {
            auto out = s.output();
            auto& back = r.output();
            if (out.empty() && back.empty()) return;
            bytes += test::deliver(s, r, got);
            r.acknowledge();
            if (!back.empty()) {
                auto space = s.prepare();
                std::copy_n(back.data(), back.size(), space.data());
                s.commit(back.size());
                back.clear();
                EXPECT_FALSE(s.process());
            }
        }
    };
    pump();
    EXPECT_EQ(s.current(), sender::state::streaming);
    EXPECT_EQ(s.peer().limits.max_reference_bytes, limits.max_reference_bytes);
    for (const auto& m : in) {
        EXPECT_FALSE(s.add(m));
        pump();
    }
    s.finish();
    pump();
    EXPECT_EQ(r.current(), receiver::state::finished) << r.error_detail();
    EXPECT_EQ(got.size(), in.size());
    for (std::size_t i = 0; i < in.size() && i < got.size(); ++i) {
        EXPECT_EQ(got[i], in[i]) << i;
    }
    if (wire_bytes) *wire_bytes = bytes;
    return s.frames_sent();
}

TEST(ReferenceBytes, SenderClosesTheFrameBeforeTheAllowanceIsPassed) {
    std::vector<message> in;
    for (int i = 0; i < 1000; ++i)
        in.push_back({make_record(make_record_type("P", {"a", "b"}), {"Heinz", "Kabutz"})});
    decoder_limits limits;
    EXPECT_EQ(stream(in, limits), 1u);
    // 11 bytes by reference per message: at most 9 messages a frame under 100.
    limits.max_reference_bytes = 100;
    EXPECT_GE(stream(in, limits), 1000u / 9);
}

// The default allowance never changes a workload's bytes: the same frames and wire bytes as
// with no allowance at all, at the default batch size.
TEST(ReferenceBytes, WorkloadsAreUnchangedByTheDefault) {
    for (auto [name, n] :
         {std::pair{"person", 20000}, {"events", 5000}, {"graph", 100}, {"blobs", 100}}) {
        auto w = workloads::make(name);
        std::vector<message> in(static_cast<std::size_t>(n));
        for (auto& m : in)
            w->next(m);
        decoder_limits unlimited;
        unlimited.max_reference_bytes = UINT64_MAX;
        std::uint64_t with_default = 0;
        std::uint64_t without = 0;
        EXPECT_EQ(stream(in, decoder_limits{}, &with_default), stream(in, unlimited, &without))
            << name;
        EXPECT_EQ(with_default, without) << name;  // the sender's bytes: hello and frames
    }
}

TEST(ReferenceBytes, AnnouncedInTheWelcomeAsField10) {
    welcome w;
    w.limits.max_reference_bytes = 123456;
    byte_buffer b;
    encode_welcome(w, b);
    auto back = decode_welcome(b.span());
    ASSERT_TRUE(back);
    EXPECT_EQ(back->limits.max_reference_bytes, 123456u);
    // Field 10 = key 0x0A, length 3, varint 123456 = C0 C4 07.
    const bytes_t field{0x0A, 3, 0xC0, 0xC4, 0x07};
    const bytes_t all(b.data(), b.data() + b.size());
    auto at = std::search(all.begin(), all.end(), field.begin(), field.end());
    ASSERT_NE(at, all.end());
    // A welcome without it (an older receiver) leaves the default.
    bytes_t without(all.begin(), at);
    without.insert(without.end(), at + 5, all.end());
    byte_buffer old;
    old.append(without.data(), without.size());
    auto older = decode_welcome(old.span());
    ASSERT_TRUE(older);
    EXPECT_EQ(older->limits.max_reference_bytes, decoder_limits{}.max_reference_bytes);
}

}  // namespace
}  // namespace objwire
