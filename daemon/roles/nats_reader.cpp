#include "daemon/roles/nats_reader.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "daemon/sinks/nats_block_codec.hpp"
#include "daemon/sinks/nats_options.hpp"
#include "proto/journal_block.hpp"

namespace objwire::daemon {
namespace {

// Blocks queued for the connection's writer, at most (or one larger block).
constexpr std::size_t queue_limit_bytes = 1u << 20;
// The consumer's thread wakes this often to notice a stop.
constexpr int poll_ms = 200;
// What libnats itself may hold for the subscription before it counts a slow consumer (the
// ordered consumer then starts again after the last block delivered).
constexpr int pending_limit_bytes = 32 << 20;
// A server lost takes a new meta or stream leader to be elected (seconds), meanwhile requests
// time out: they are made again until this long has passed (well inside a reader's 30 s
// idle timeout).
constexpr auto request_patience = std::chrono::seconds(20);

template <class F>
natsStatus retry_timeouts(F&& request) {
    const auto give_up = std::chrono::steady_clock::now() + request_patience;
    natsStatus s = request();
    while (s == NATS_TIMEOUT && std::chrono::steady_clock::now() < give_up)
        s = request();
    return s;
}

std::string status_text(natsStatus s) {
    const char* last = nats_GetLastError(nullptr);
    return fmt::format("{}{}{}", natsStatus_GetText(s), last && *last ? ": " : "",
                       last ? last : "");
}

}  // namespace

struct nats_block_source::nats_handles {
    natsConnection* conn = nullptr;
    jsCtx* js = nullptr;
    natsSubscription* sub = nullptr;
    ~nats_handles() {
        if (sub) {
            natsSubscription_Unsubscribe(sub);  // deletes the ephemeral consumer
            natsSubscription_Destroy(sub);
        }
        if (js) jsCtx_Destroy(js);
        if (conn) {
            natsConnection_Close(conn);
            natsConnection_Destroy(conn);
        }
    }
};

namespace {

natsStatus connect(const nats_sink_options& o, natsConnection** conn) {
    natsOptions* opts = nullptr;
    natsStatus s = natsOptions_Create(&opts);
    if (s == NATS_OK) s = set_common_nats_options(opts, o, "objwired reader");
    if (s == NATS_OK) s = natsConnection_Connect(conn, opts);
    natsOptions_Destroy(opts);
    return s;
}

// The stream sequence of the newest message on `subject`: 0 when there is none.
natsStatus last_on_subject(jsCtx* js, const std::string& stream, const std::string& subject,
                           std::uint64_t& seq) {
    natsMsg* msg = nullptr;
    jsErrCode jerr = static_cast<jsErrCode>(0);
    const natsStatus s = retry_timeouts(
        [&] { return js_GetLastMsg(&msg, js, stream.c_str(), subject.c_str(), nullptr, &jerr); });
    seq = 0;
    if (s == NATS_NOT_FOUND || jerr == JSNoMessageFoundErr) return NATS_OK;
    if (s != NATS_OK) return s;
    seq = natsMsg_GetSequence(msg);
    natsMsg_Destroy(msg);
    return NATS_OK;
}

}  // namespace

std::unique_ptr<nats_block_source> nats_block_source::open(const nats_sink_options& options,
                                                           request r,
                                                           std::function<void()> on_ready,
                                                           std::string& error) {
    std::unique_ptr<nats_block_source> src(new nats_block_source());
    src->request_ = std::move(r);
    // How long a publisher may take to republish a block (daemon/sinks/nats_publisher.cpp).
    src->hold_time_ = 2 * options.ack_timeout + std::chrono::seconds(1);
    src->max_block_bytes_ = options.max_block_bytes;
    src->on_ready_ = std::move(on_ready);
    src->nats_ = std::make_unique<nats_handles>();
    auto& n = *src->nats_;
    natsStatus s = connect(options, &n.conn);
    if (s != NATS_OK) {
        error = "cannot connect to " + fmt::format("{}", fmt::join(options.servers, ",")) + ": " +
                status_text(s);
        return nullptr;
    }
    jsOptions jo;
    jsOptions_Init(&jo);
    jo.Wait = std::max<std::int64_t>(options.ack_timeout.count(), 1000);
    if ((s = natsConnection_JetStream(&n.js, n.conn, &jo)) != NATS_OK) {
        error = "no JetStream context: " + status_text(s);
        return nullptr;
    }
    const auto subject = src->request_.sender.empty()
                             ? options.subject + ".>"
                             : nats_sender_subject(options.subject, src->request_.sender);
    // The sender's newest block first, then the stream's end: every block of the sender up
    // to the former was there before the latter was read.
    std::uint64_t last_of_sender = 0;
    if (!src->request_.sender.empty() &&
        (s = last_on_subject(n.js, options.stream, subject, last_of_sender)) != NATS_OK) {
        error = "cannot look up stream '" + options.stream + "': " + status_text(s);
        return nullptr;
    }
    jsStreamInfo* si = nullptr;
    jsErrCode jerr = static_cast<jsErrCode>(0);
    s = retry_timeouts(
        [&] { return js_GetStreamInfo(&si, n.js, options.stream.c_str(), nullptr, &jerr); });
    if (s != NATS_OK) {
        error = "cannot look up stream '" + options.stream + "': " + status_text(s);
        return nullptr;
    }
    src->first_ = si->State.FirstSeq;
    src->end_ = si->State.LastSeq + 1;
    jsStreamInfo_Destroy(si);
    src->last_wanted_ = src->request_.sender.empty() ? src->end_ - 1 : last_of_sender;
    const auto start = std::max<std::uint64_t>({src->request_.from, src->first_, 1});
    if (!src->request_.follow && (src->last_wanted_ == 0 || start > src->last_wanted_)) {
        src->done_ = true;  // nothing to serve
        return src;
    }
    jsSubOptions so;
    jsSubOptions_Init(&so);
    so.Stream = options.stream.c_str();
    so.Ordered = true;
    so.Config.DeliverPolicy = js_DeliverByStartSequence;
    so.Config.OptStartSeq = start;
    s = retry_timeouts(
        [&] { return js_SubscribeSync(&n.sub, n.js, subject.c_str(), nullptr, &so, &jerr); });
    if (s != NATS_OK) {
        error = "cannot read stream '" + options.stream + "': " + status_text(s);
        return nullptr;
    }
    natsSubscription_SetPendingLimits(n.sub, -1, pending_limit_bytes);
    src->thread_ = std::thread([p = src.get()] { p->run(); });
    return src;
}

nats_block_source::~nats_block_source() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    room_.notify_all();
    if (thread_.joinable()) thread_.join();
}

void nats_block_source::run() {
    std::vector<ordered_block> ready;
    auto last_arrival = std::chrono::steady_clock::now();
    for (;;) {
        {
            std::lock_guard lock(mutex_);
            if (stopping_) return;
        }
        natsMsg* msg = nullptr;
        const natsStatus s = natsSubscription_NextMsg(&msg, nats_->sub, poll_ms);
        if (s == NATS_TIMEOUT || s == NATS_SLOW_CONSUMER) {
            // Nothing new for as long as a publisher takes to republish a block: what waits
            // for a block that is not coming goes out. (A slow consumer: the ordered consumer
            // starts again by itself after the last block delivered.)
            if (reorder_.holding() &&
                std::chrono::steady_clock::now() - last_arrival >= hold_time_) {
                reorder_.flush(ready);
                if (!push_all(ready)) return;
            }
            continue;
        }
        if (s != NATS_OK) return finish("the stream cannot be read: " + status_text(s));
        last_arrival = std::chrono::steady_clock::now();
        jsMsgMetaData* meta = nullptr;
        std::uint64_t seq = 0;
        if (natsMsg_GetMetaData(&meta, msg) == NATS_OK) {
            seq = meta->Sequence.Stream;
            jsMsgMetaData_Destroy(meta);
        }
        ordered_block b;
        b.stream_sequence = seq;
        if (!unpack(msg, b)) return;
        const auto parsed = parse_journal_block(b.bytes);
        if (parsed.state != journal_block_parse::status::block || parsed.size != b.bytes.size())
            return finish(fmt::format("stream message {} is not an objwire block", seq));
        const bool past_end = !request_.follow && seq > last_wanted_;
        if (past_end) break;
        // A subject token names a hash of long ids: another id could share it.
        const auto& h = parsed.block.header;
        b.sender = std::string(parsed.block.sender_id);
        b.first_sequence = h.first_sequence;
        b.last_sequence = h.last_sequence;
        b.first_offset = h.first_offset;
        b.objects = h.message_count;
        if (request_.sender.empty() || b.sender == request_.sender)
            reorder_.add(std::move(b), ready);
        if (!push_all(ready)) return;
        if (!request_.follow && seq >= last_wanted_) break;
    }
    reorder_.flush(ready);
    if (push_all(ready)) finish("");
}

// The message's block as formed, decompressed when it was stored compressed. A message that
// does not decompress to what it claims ends the read: serving around it would hide a loss.
bool nats_block_source::unpack(natsMsg* msg, ordered_block& b) {
    std::string why;
    const bool ok = unpack_nats_msg(msg, max_block_bytes_, decompressor_, unpacked_, why);
    natsMsg_Destroy(msg);
    if (!ok) {
        const auto error = fmt::format("stream message {} is refused: {}", b.stream_sequence, why);
        spdlog::error("nats reader: {}", error);
        finish(error);
        return false;
    }
    b.bytes.assign(unpacked_.span().begin(), unpacked_.span().end());
    return true;
}

bool nats_block_source::push_all(std::vector<ordered_block>& blocks) {
    for (auto& b : blocks)
        if (!push(std::move(b))) return false;
    blocks.clear();
    return true;
}

// Waits (bounded by the stop) for room in the queue; false when stopping.
bool nats_block_source::push(ordered_block b) {
    {
        std::unique_lock lock(mutex_);
        while (queued_bytes_ >= queue_limit_bytes && !stopping_)
            room_.wait_for(lock, std::chrono::milliseconds(poll_ms));
        if (stopping_) return false;
        queued_bytes_ += b.bytes.size();
        queue_.push_back(std::move(b));
    }
    on_ready_();
    return true;
}

void nats_block_source::finish(std::string error) {
    {
        std::lock_guard lock(mutex_);
        done_ = true;
        error_ = std::move(error);
    }
    on_ready_();
}

nats_block_source::status nats_block_source::take(std::vector<ordered_block>& out,
                                                  std::size_t max_bytes) {
    std::size_t taken = 0;
    {
        std::lock_guard lock(mutex_);
        while (!queue_.empty() &&
               (taken == 0 || taken + queue_.front().bytes.size() <= max_bytes)) {
            taken += queue_.front().bytes.size();
            queued_bytes_ -= queue_.front().bytes.size();
            out.push_back(std::move(queue_.front()));
            queue_.pop_front();
        }
        if (out.empty()) {
            if (!done_) return status::empty;
            return error_.empty() ? status::finished : status::failed;
        }
    }
    room_.notify_all();
    return status::blocks;
}

}  // namespace objwire::daemon
