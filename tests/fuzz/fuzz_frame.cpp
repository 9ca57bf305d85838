// Fuzz target: the frame parser and the frame reader (proto/frame.hpp, proto/frame_reader.hpp).
// Whatever the bytes: a frame handed out lies inside the input, sealing its payload again gives
// back exactly its bytes, a need_more asks for more than there is and no more than a frame may
// hold, and the reader fed the same bytes in reads of any size yields the same frames and the
// same verdict as the parser.
//
// Input: one knob byte (bit 0: max_frame_bytes 64 or 1 MiB; bits 1..7: read size 1..128), then
// the byte stream.
#include <algorithm>
#include <cstring>
#include <vector>

#include "fuzz_support.hpp"
#include "proto/frame.hpp"
#include "proto/frame_reader.hpp"

using namespace objwire;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const std::uint8_t knob = data[0];
    const std::span<const std::uint8_t> in(data + 1, size - 1);
    const std::uint32_t max_frame = (knob & 1) ? 64 : 1u << 20;
    const std::size_t read_size = 1 + (knob >> 1);

    // The parser over the whole input, frame after frame.
    frame_parser parser(max_frame);
    std::vector<std::span<const std::uint8_t>> frames;
    frame_parser::status verdict = frame_parser::status::need_more;
    std::error_code error;
    for (std::size_t pos = 0;;) {
        const auto rest = in.subspan(pos);
        auto r = parser.parse(rest);
        verdict = r.state;
        if (r.state == frame_parser::status::error) {
            FUZZ_CHECK(r.error);
            error = r.error;
            break;
        }
        if (r.state == frame_parser::status::need_more) {
            FUZZ_CHECK(r.size > rest.size());
            FUZZ_CHECK(r.size <= frame_header_size + max_frame);
            break;
        }
        const auto& f = r.frame;
        FUZZ_CHECK(r.size == frame_header_size + f.payload.size());
        FUZZ_CHECK(r.size <= rest.size());
        FUZZ_CHECK(f.payload.data() == rest.data() + frame_header_size);
        FUZZ_CHECK(f.payload.size() <= max_frame && f.header.raw_len <= max_frame);
        byte_buffer again;
        again.resize(r.size);
        if (!f.payload.empty())
            std::memcpy(again.data() + frame_header_size, f.payload.data(), f.payload.size());
        seal_frame(again.span(), f.header.kind, f.header.sequence, f.header.codec,
                   f.header.raw_len);
        FUZZ_CHECK(std::memcmp(again.data(), rest.data(), r.size) == 0);
        frames.push_back(rest.first(r.size));
        pos += r.size;
    }

    // The reader, fed in reads of read_size bytes, hands out the same frames.
    frame_reader reader(max_frame, 16);
    std::size_t fed = 0;
    std::size_t got = 0;
    // Each round hands out a frame, takes in at least one byte, or ends.
    for (std::size_t round = 0; round <= 2 * in.size() + 1; ++round) {
        auto r = reader.next();
        if (r.state == frame_parser::status::frame) {
            FUZZ_CHECK(got < frames.size());
            const auto expected = frames[got].subspan(frame_header_size);
            FUZZ_CHECK(std::equal(r.frame.payload.begin(), r.frame.payload.end(), expected.begin(),
                                  expected.end()));
            ++got;
            continue;
        }
        if (r.state == frame_parser::status::error) {
            FUZZ_CHECK(verdict == frame_parser::status::error && r.error == error);
            FUZZ_CHECK(got == frames.size());
            return 0;
        }
        if (fed == in.size()) {
            FUZZ_CHECK(verdict == frame_parser::status::need_more && got == frames.size());
            FUZZ_CHECK(reader.buffered() <= in.size());
            return 0;
        }
        auto space = reader.prepare();
        FUZZ_CHECK(!space.empty());
        const std::size_t n = std::min({space.size(), read_size, in.size() - fed});
        std::memcpy(space.data(), in.data() + fed, n);
        reader.commit(n);
        fed += n;
    }
    fuzz::invariant_failed("the reader made no progress", __FILE__, __LINE__);
}
