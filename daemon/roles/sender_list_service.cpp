#include "daemon/roles/sender_list_service.hpp"

#include <spdlog/spdlog.h>

#include "daemon/roles/reader_support.hpp"
#include "daemon/serve/roles.hpp"
#include "daemon/store/journal_index.hpp"
#include "proto/errors.hpp"
#include "proto/frame.hpp"

namespace objwire::daemon {

using namespace reader_support;

namespace {

// Entries per frame until its payload passes this: a frame stays far below any reader's
// frame cap whatever the ids (at most 4 KiB each), and the list arrives in one write.
constexpr std::size_t frame_payload_target = 32 * 1024;

byte_buffer sender_list_frames(const sender_list& all) {
    byte_buffer frames, payload;
    sender_list part;
    auto flush = [&] {
        payload.clear();
        encode_sender_list(part, payload);
        append_frame(frames, frame_kind::sender_list, 0, payload.span());
        part.senders.clear();
    };
    std::size_t part_bytes = 0;
    for (const auto& s : all.senders) {
        part.senders.push_back(s);
        part_bytes += s.id.size() + 48;
        if (part_bytes >= frame_payload_target) {
            flush();
            part_bytes = 0;
        }
    }
    if (!part.senders.empty()) flush();
    append_frame(frames, frame_kind::goodbye, 0, {});
    return frames;
}

}  // namespace

asio::awaitable<void> serve_sender_list(journal& j, peer_stream& stream, const std::string& peer,
                                        std::chrono::milliseconds idle) {
    sender_list l;
    journal_index_scan stats;
    // Headers only, as at start-up; the durable end keeps a block being appended out of it.
    if (auto ec = list_senders(j.segments(), j.durable_offset(), l, stats)) {
        spdlog::warn("{}: sender list refused: cannot read the journal: {}", peer, ec.message());
        co_await refuse_role(
            stream, proto_errc::not_available,
            "cannot read the journal in " + j.options().dir.string() + ": " + ec.message());
        co_return;
    }
    // A user who may read only some streams learns of no other.
    if (const auto& id = stream.identity(); id && !id->reads_everything())
        std::erase_if(l.senders, [&](const auto& s) { return !id->may_read(s.id); });
    spdlog::info("{}: listed {} sender ids from {} blocks ({} KiB of headers read)", peer,
                 l.senders.size(), stats.blocks, stats.bytes_read / 1024);
    if (auto ec = co_await write_bytes_within(stream, sender_list_frames(l), idle);
        ec == std::errc::timed_out)
        spdlog::warn(
            "{}: sender list abandoned: the peer took none of it for {} s "
            "(limits.idle_timeout)",
            peer, std::chrono::duration<double>(idle).count());
}

}  // namespace objwire::daemon
