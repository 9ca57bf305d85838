// What objwired's NATS connections share - the publisher's (daemon/sinks/nats_publisher.cpp) and
// each stream reader's (daemon/roles/nats_reader.cpp): the servers, a client name, reconnecting
// forever every 250 ms, a 2 s connect timeout and the credentials file; and reading a stored block.
// Includes libnats: for those two files only.
#pragma once

#include <nats/nats.h>

#include <string>

#include "daemon/sinks/nats_block_codec.hpp"
#include "daemon/sinks/nats_sink.hpp"

namespace objwire::daemon {

natsStatus set_common_nats_options(natsOptions* opts, const nats_sink_options& o, const char* name);

// The block a stream message stores (daemon/sinks/nats_block_codec.hpp), read from its headers and
// data: false with `why` when it is refused.
inline bool unpack_nats_msg(natsMsg* msg, std::size_t max_raw, frame_decompressor& decompressor,
                            byte_buffer& out, std::string& why) {
    const char* codec = nullptr;
    const char* raw_len = nullptr;
    natsMsgHeader_Get(msg, nats_codec_header, &codec);
    natsMsgHeader_Get(msg, nats_raw_len_header, &raw_len);
    return unpack_nats_block(codec, raw_len,
                             {reinterpret_cast<const std::uint8_t*>(natsMsg_GetData(msg)),
                              static_cast<std::size_t>(natsMsg_GetDataLength(msg))},
                             max_raw, decompressor, out, why);
}

}  // namespace objwire::daemon
