#include "proto/batch_compressor.hpp"

namespace objwire {

batch_compressor::batch_compressor(compression_options opts, clock_function clock,
                                   compression_tuning tuning)
    : policy_(opts, tuning), clock_(clock ? std::move(clock) : clock_function(&steady_now_ns)) {}

batch_compressor::packed batch_compressor::pack(byte_buffer& out, std::size_t from) {
    const std::size_t raw_len = out.size() - from;
    const packed plain{codec_id::none, static_cast<std::uint32_t>(raw_len)};
    if (!policy_.plan(raw_len)) {
        policy_.on_plain(raw_len);
        return plain;
    }
    buf_.clear();
    const std::uint64_t start = clock_();
    const auto ec =
        compressor_.compress(policy_.codec(), policy_.level(), out.span().subspan(from), buf_);
    const std::uint64_t took = clock_() - start;
    if (ec) {  // cannot happen with a built codec and a clamped level; send it plain
        policy_.on_plain(raw_len);
        return plain;
    }
    const codec_id codec = policy_.codec();  // on_result() moves on to the next attempt's
    policy_.on_result(raw_len, buf_.size(), took, compressor_.stream_fresh());
    if (buf_.size() >= raw_len) {
        // zstd_stream: the receiver's context will not see this frame, so ours must forget it
        // too - the next compressed frame starts a fresh one. (Data that does not compress
        // leaves little history worth keeping.)
        compressor_.restart_stream();
        return plain;
    }
    out.resize(from);
    out.append(buf_.span());
    return {codec, static_cast<std::uint32_t>(raw_len), compressor_.stream_flags()};
}

}  // namespace objwire
