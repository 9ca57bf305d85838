// The NATS sink's publisher (daemon/sinks/nats_publisher.hpp).
#include "daemon/sinks/nats_publisher.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "daemon/sinks/nats_block_codec.hpp"
#include "daemon/sinks/nats_options.hpp"
#include "proto/journal_block.hpp"

namespace objwire::daemon {
namespace {

// libnats statuses as error codes, so failures read as their text.
class nats_category_impl final : public std::error_category {
  public:
    const char* name() const noexcept override { return "nats"; }
    std::string message(int c) const override {
        return natsStatus_GetText(static_cast<natsStatus>(c));
    }
};
const std::error_category& nats_category() {
    static const nats_category_impl c;
    return c;
}
std::error_code nats_error(natsStatus s) {
    return {static_cast<int>(s), nats_category()};
}

// libnats may call a connection's callbacks after natsConnection_Close() returns (they are
// queued to its callback thread), so a callback must not trust its closure: it finds its
// publisher here, under this lock, which shutdown() takes to remove it before closing.
std::mutex live_mutex;
std::vector<const void*>& live_publishers() {
    static std::vector<const void*> live;
    return live;
}
// Runs f(publisher) if `closure` is still a live publisher, holding live_mutex meanwhile.
template <class P, class F>
void if_live(void* closure, F&& f) {
    std::lock_guard lock(live_mutex);
    auto& live = live_publishers();
    if (std::find(live.begin(), live.end(), closure) != live.end()) f(static_cast<P*>(closure));
}

constexpr const char* msg_id_header = "Nats-Msg-Id";
// Tells a late answer to an earlier attempt from the one in flight.
constexpr const char* attempt_header = "Objwire-Attempt";
// A batch is split into blocks that start below half the server's max_payload, so a block
// stays under it unless one object is larger than that half.
constexpr std::size_t header_allowance = 512;

}  // namespace

void nats_publisher::ack_cb(jsCtx*, natsMsg* msg, jsPubAck* pa, jsPubAckErr* pae, void* self) {
    if_live<nats_publisher>(self, [&](nats_publisher* p) { p->on_ack(msg, pa, pae); });
    natsMsg_Destroy(msg);  // with an AckHandler the message is ours (nats.h)
}

void nats_publisher::disconnected_cb(natsConnection* nc, void* self) {
    if_live<nats_publisher>(self, [&](nats_publisher* p) { disconnected_cb_live(nc, p); });
}

void nats_publisher::reconnected_cb(natsConnection* nc, void* self) {
    if_live<nats_publisher>(self, [&](nats_publisher* p) { reconnected_cb_live(nc, p); });
}

void nats_publisher::connected_cb(natsConnection* nc, void* self) {
    if_live<nats_publisher>(self, [&](nats_publisher* p) { connected_cb_live(nc, p); });
}

std::error_code nats_publisher::connect() {
    {
        std::lock_guard lock(live_mutex);
        live_publishers().push_back(this);
    }
    natsOptions* opts = nullptr;
    natsStatus s = natsOptions_Create(&opts);
    if (s == NATS_OK) s = set_common_nats_options(opts, options_, "objwired");
    // A dead server is noticed in seconds, not the default two minutes.
    if (s == NATS_OK) s = natsOptions_SetPingInterval(opts, 1000);
    if (s == NATS_OK) s = natsOptions_SetMaxPingsOut(opts, 3);
    // Publishes made while reconnecting wait in this buffer; beyond it they fail and the
    // publisher retries them itself.
    if (s == NATS_OK) s = natsOptions_SetReconnectBufSize(opts, 64 << 20);
    if (s == NATS_OK) s = natsOptions_SetDisconnectedCB(opts, &disconnected_cb, this);
    if (s == NATS_OK) s = natsOptions_SetReconnectedCB(opts, &reconnected_cb, this);
    if (s == NATS_OK) s = natsOptions_SetRetryOnFailedConnect(opts, true, &connected_cb, this);
    if (s == NATS_OK) {
        s = natsConnection_Connect(&conn_, opts);
        if (s == NATS_OK) {
            connected_ = true;
        } else if (s == NATS_NOT_YET_CONNECTED) {
            spdlog::warn("nats: no server of {} answers yet; objects wait until one does",
                         fmt::join(options_.servers, ","));
            s = NATS_OK;
        }
    }
    natsOptions_Destroy(opts);
    if (s != NATS_OK) return nats_error(s);

    jsOptions jo;
    jsOptions_Init(&jo);
    jo.Wait = std::max<std::int64_t>(options_.ack_timeout.count(), 1000);
    // The publisher keeps its own window; the library's only has to hold it with room for
    // attempts it has not yet given up on.
    jo.PublishAsync.MaxPending = static_cast<std::int64_t>(options_.publish_window) * 4 + 64;
    jo.PublishAsync.AckHandler = &ack_cb;
    jo.PublishAsync.AckHandlerClosure = this;
    jo.PublishAsync.StallWait = 100;
    s = natsConnection_JetStream(&js_, conn_, &jo);
    return s == NATS_OK ? std::error_code{} : nats_error(s);
}

void nats_publisher::disconnected_cb_live(natsConnection*, void* p) {
    auto* self = static_cast<nats_publisher*>(p);
    if (!self->connected_.exchange(false)) return;
    std::lock_guard lock(self->mutex_);
    if (self->stopping_) return;
    spdlog::warn(
        "nats: disconnected; acknowledgements wait until the cluster is back ({} blocks, {} "
        "bytes held)",
        self->flying_.size() + self->queue_.size(), self->stats_.buffered_bytes);
}

// Connected for the first time or again: the publisher goes on with what it holds.
void nats_publisher::mark_connected(natsConnection* nc, void* p, const char* how) {
    auto* self = static_cast<nats_publisher*>(p);
    {
        std::lock_guard lock(self->mutex_);  // so the publisher cannot miss the wake-up
        self->connected_ = true;
    }
    char url[256] = {0};
    natsConnection_GetConnectedUrl(nc, url, sizeof url);
    spdlog::info("nats: {} to {}", how, url);
    self->wake_.notify_all();
}

void nats_publisher::reconnected_cb_live(natsConnection* nc, void* p) {
    mark_connected(nc, p, "reconnected");
}

void nats_publisher::connected_cb_live(natsConnection* nc, void* p) {
    mark_connected(nc, p, "connected");
}

void nats_publisher::shutdown() {
    {
        std::lock_guard lock(mutex_);
        if (stopping_ && !thread_.joinable() && !conn_) return;
        stopping_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
    {
        // Waits for a callback in progress; later ones find nobody.
        std::lock_guard lock(live_mutex);
        auto& live = live_publishers();
        live.erase(std::remove(live.begin(), live.end(), this), live.end());
    }
    if (conn_) natsConnection_Close(conn_);
    if (js_) jsCtx_Destroy(js_);
    js_ = nullptr;
    if (conn_) natsConnection_Destroy(conn_);
    conn_ = nullptr;
    fail_all(std::make_error_code(std::errc::operation_canceled));
}

// A stream made by hand (or by objwired before subjects per sender) may not capture
// "<subject>.>": then every publish fails, and the log should say why.
void nats_publisher::warn_unless_captured(const jsStreamInfo* si) const {
    if (!si->Config) return;
    const auto wildcard = options_.subject + ".>";
    for (int i = 0; i < si->Config->SubjectsLen; ++i)
        if (wildcard == si->Config->Subjects[i] || std::string(">") == si->Config->Subjects[i])
            return;
    spdlog::error(
        "nats: stream '{}' does not capture subjects '{}': objwired publishes each sender's "
        "blocks on '{}.<sender>' (docs/DECISIONS.md); add the subject to the stream",
        options_.stream, wildcard, options_.subject);
}

std::optional<std::uint64_t> nats_publisher::last_stored_frame(const std::string& sender_id) {
    if (!js_) return std::nullopt;
    const auto subject = nats_sender_subject(options_.subject, sender_id);
    natsMsg* msg = nullptr;
    jsErrCode jerr = static_cast<jsErrCode>(0);
    natsStatus s = NATS_TIMEOUT;
    // A stream leader being elected (or a busy server) may let one request time out.
    for (int attempt = 0; attempt < 3 && s == NATS_TIMEOUT; ++attempt) {
        jerr = static_cast<jsErrCode>(0);
        s = js_GetLastMsg(&msg, js_, options_.stream.c_str(), subject.c_str(), nullptr, &jerr);
    }
    if (s == NATS_NOT_FOUND || jerr == JSNoMessageFoundErr || jerr == JSStreamNotFoundErr)
        return std::uint64_t{0};  // nothing of it stored (or no stream yet)
    if (s != NATS_OK) {
        log_trouble(fmt::format("cannot look up the last block of sender '{}': {} ({})", sender_id,
                                natsStatus_GetText(s), nats_GetLastError(nullptr)));
        return std::nullopt;
    }
    frame_decompressor decompressor;
    byte_buffer block;
    std::string why;
    const bool unpacked = unpack_nats_msg(msg, options_.max_block_bytes, decompressor, block, why);
    const auto parsed = parse_journal_block(block.span());
    std::optional<std::uint64_t> last;
    if (!unpacked)
        log_trouble(fmt::format("the last message on '{}' is refused: {}", subject, why));
    else if (parsed.state != journal_block_parse::status::block)
        log_trouble(fmt::format("the last message on '{}' is not an objwire block", subject));
    else if (parsed.block.sender_id != sender_id)
        // Two ids hashed to one subject token (64-bit FNV-1a: not expected in practice).
        log_trouble(fmt::format("subject '{}' holds sender '{}', not '{}'", subject,
                                std::string(parsed.block.sender_id), sender_id));
    else
        last = parsed.block.header.last_sequence;
    natsMsg_Destroy(msg);
    return last;
}

bool nats_publisher::ensure_stream() {
    jsStreamInfo* si = nullptr;
    jsErrCode jerr = static_cast<jsErrCode>(0);
    natsStatus s = js_GetStreamInfo(&si, js_, options_.stream.c_str(), nullptr, &jerr);
    if (s == NATS_OK) {
        if (si->Config && si->Config->Replicas != static_cast<int64_t>(options_.replicas))
            spdlog::warn(
                "nats: stream '{}' exists with {} replicas, nats.replicas says {}; used "
                "as it is",
                options_.stream, si->Config->Replicas, options_.replicas);
        warn_unless_captured(si);
        jsStreamInfo_Destroy(si);
        spdlog::info("nats: publishing to stream '{}' on subjects '{}.<sender>'", options_.stream,
                     options_.subject);
    } else if (s == NATS_NOT_FOUND || jerr == JSStreamNotFoundErr) {
        jsStreamConfig cfg;
        jsStreamConfig_Init(&cfg);
        const auto wildcard = options_.subject + ".>";
        const char* subjects[] = {wildcard.c_str()};
        cfg.Name = options_.stream.c_str();
        cfg.Subjects = subjects;
        cfg.SubjectsLen = 1;
        cfg.Storage = js_FileStorage;
        cfg.Replicas = static_cast<int64_t>(options_.replicas);
        cfg.Duplicates =
            std::chrono::duration_cast<std::chrono::nanoseconds>(options_.duplicate_window).count();
        s = js_AddStream(&si, js_, &cfg, nullptr, &jerr);
        if (s != NATS_OK) {
            log_trouble(fmt::format("cannot create stream '{}': {} ({})", options_.stream,
                                    natsStatus_GetText(s), nats_GetLastError(nullptr)));
            return false;
        }
        jsStreamInfo_Destroy(si);
        spdlog::info("nats: created stream '{}' on subjects '{}.>' with {} replicas",
                     options_.stream, options_.subject, options_.replicas);
    } else {
        log_trouble(
            fmt::format("cannot look up stream '{}': {}", options_.stream, natsStatus_GetText(s)));
        return false;
    }
    const auto max_payload = natsConnection_GetMaxPayload(conn_);
    if (max_payload > 0)
        part_limit_ = std::max<std::size_t>(
            (static_cast<std::size_t>(max_payload) - header_allowance) / 2, 4096);
    std::lock_guard lock(mutex_);
    stats_.stream_ready = true;
    return true;
}

bool nats_publisher::reserve(std::size_t bytes) {
    std::unique_lock lock(mutex_);
    if (stats_.buffered_bytes > 0 && stats_.buffered_bytes + bytes > options_.buffer_bytes) {
        ++stats_.refused_batches;
        const auto held = stats_.buffered_bytes;
        lock.unlock();
        log_trouble(
            fmt::format("{} bytes wait for JetStream (nats.buffer_bytes = {}): a batch "
                        "of {} bytes waits, its connection paused",
                        held, options_.buffer_bytes, bytes));
        return false;
    }
    stats_.buffered_bytes += bytes;
    return true;
}

void nats_publisher::pack(std::span<const std::uint8_t> block, entry& e) {
    std::lock_guard lock(pack_mutex_);
    pack_buf_.clear();
    pack_buf_.append(block);
    const auto packed = packer_.pack(pack_buf_, 0);
    e.codec = packed.codec;
    e.raw_len = packed.raw_len;
    e.bytes.assign(pack_buf_.span().begin(), pack_buf_.span().end());
}

// The link to JetStream as the policy sees any link: bytes acknowledged per interval. While
// the window stayed full JetStream (or the way to it) was the limit: a full sample; otherwise
// the senders were, and the rate is only a lower bound. Called under mutex_.
void nats_publisher::measure_link(std::size_t bytes, bool window_full, steady::time_point now) {
    constexpr auto interval = std::chrono::milliseconds(100);
    if (options_.compression.mode != compression_mode::automatic) return;
    if (sample_start_ == steady::time_point{}) {  // the first ack starts the first interval
        sample_start_ = now;
        return;
    }
    sample_bytes_ += bytes;
    sample_full_ = sample_full_ && window_full;
    const auto took = now - sample_start_;
    if (took < interval) return;
    const double bps =
        static_cast<double>(sample_bytes_) * 8 / std::chrono::duration<double>(took).count();
    {
        std::lock_guard lock(pack_mutex_);
        packer_.policy().on_link_sample(bps, !sample_full_);
    }
    sample_start_ = now;
    sample_bytes_ = 0;
    sample_full_ = true;
}

std::error_code nats_publisher::submit(std::vector<std::shared_ptr<entry>> blocks,
                                       sink_stream::durable_handler on_durable,
                                       std::size_t reserved) {
    std::size_t bytes = 0;
    for (const auto& b : blocks)
        bytes += b->bytes.size();
    std::unique_lock lock(mutex_);
    stats_.buffered_bytes = stats_.buffered_bytes + bytes - reserved;
    if (stopping_) {
        stats_.buffered_bytes -= bytes;
        return std::make_error_code(std::errc::operation_canceled);
    }
    const auto now = steady::now();
    blocks.back()->handler = std::move(on_durable);
    for (auto& b : blocks) {
        b->committed = now;
        b->order->entries.push_back(b);
        queue_.push_back(std::move(b));
    }
    lock.unlock();
    wake_.notify_one();
    return {};
}

void nats_publisher::run() {
    auto backoff = std::chrono::milliseconds(100);
    std::unique_lock lock(mutex_);
    while (!stopping_ && !stats_.stream_ready) {
        lock.unlock();
        const bool ok = connected_ && ensure_stream();
        lock.lock();
        if (ok) break;
        wake_.wait_for(lock, backoff);
        backoff = std::min(backoff * 2, std::chrono::milliseconds(2000));
    }
    while (!stopping_) {
        const auto now = steady::now();
        reclaim_stale(now);
        std::shared_ptr<entry> next;
        // While disconnected nothing new goes out: libnats would only pile publishes (and
        // their retries) into its reconnect buffer.
        if (connected_ && flying_.size() < options_.publish_window && !queue_.empty() &&
            queue_.front()->not_before <= now)
            next = queue_.front();
        if (!next) {
            // Woken by a submit, an ack (window space), or the next retry's time.
            auto until = now + options_.ack_timeout;
            if (connected_ && !queue_.empty() && flying_.size() < options_.publish_window)
                until = std::min(until, queue_.front()->not_before);
            wake_.wait_until(lock, until);
            continue;
        }
        queue_.pop_front();
        next->in_flight = true;
        next->sent = now;
        const auto attempt = ++next->attempt;
        if (attempt > 1) ++stats_.retries;
        ++stats_.publishes;
        flying_[next->msg_id] = next;
        stats_.window_in_use = flying_.size();
        stats_.window_peak = std::max(stats_.window_peak, stats_.window_in_use);
        lock.unlock();
        publish(next, attempt);
        lock.lock();
    }
}

void nats_publisher::publish(const std::shared_ptr<entry>& e, std::uint32_t attempt) {
    natsMsg* msg = nullptr;
    natsStatus s = natsMsg_Create(&msg, e->subject.c_str(), nullptr,
                                  reinterpret_cast<const char*>(e->bytes.data()),
                                  static_cast<int>(e->bytes.size()));
    const auto attempt_text = std::to_string(attempt);
    if (s == NATS_OK) s = natsMsgHeader_Set(msg, msg_id_header, e->msg_id.c_str());
    if (s == NATS_OK) s = natsMsgHeader_Set(msg, attempt_header, attempt_text.c_str());
    if (s == NATS_OK && e->codec != codec_id::none) {
        const std::string codec(codec_name(e->codec));
        const auto raw_len = std::to_string(e->raw_len);
        s = natsMsgHeader_Set(msg, nats_codec_header, codec.c_str());
        if (s == NATS_OK) s = natsMsgHeader_Set(msg, nats_raw_len_header, raw_len.c_str());
    }
    if (s == NATS_OK) {
        jsPubOptions po;
        jsPubOptions_Init(&po);
        po.MaxWait = options_.ack_timeout.count();
        s = js_PublishMsgAsync(js_, &msg, &po);  // takes msg on success
    }
    if (msg) natsMsg_Destroy(msg);
    if (s == NATS_OK) return;
    std::unique_lock lock(mutex_);
    ++stats_.publish_errors;
    lock.unlock();
    log_trouble(fmt::format("publishing block {} failed: {}; it is retried", e->msg_id,
                            natsStatus_GetText(s)));
    lock.lock();
    if (e->in_flight && e->attempt == attempt) on_failed(e, lock);
}

void nats_publisher::on_ack(natsMsg* msg, jsPubAck* pa, jsPubAckErr* pae) {
    const char* id = nullptr;
    const char* attempt_text = nullptr;
    if (!msg || natsMsgHeader_Get(msg, msg_id_header, &id) != NATS_OK || !id) return;
    natsMsgHeader_Get(msg, attempt_header, &attempt_text);
    const auto attempt = attempt_text ? std::strtoul(attempt_text, nullptr, 10) : 0;
    std::unique_lock lock(mutex_);
    auto it = flying_.find(id);
    if (it == flying_.end()) return;  // already acknowledged by another attempt
    auto e = it->second;
    if (pa && !pae) {
        // The window was full until this ack freed a place in it.
        measure_link(e->bytes.size(), flying_.size() >= options_.publish_window, steady::now());
        flying_.erase(it);
        e->in_flight = false;
        e->acked = true;
        ++stats_.blocks_acked;
        stats_.bytes_acked += e->bytes.size();
        if (pa->Duplicate) ++stats_.duplicates;
        const auto ns = static_cast<std::uint64_t>(
            std::chrono::duration_cast<std::chrono::nanoseconds>(steady::now() - e->committed)
                .count());
        ++stats_.latency_count;
        stats_.latency_sum_ns += ns;
        stats_.latency_max_ns = std::max(stats_.latency_max_ns, ns);
        stats_.window_in_use = flying_.size();
        complete_ready(e->order, lock);
        wake_.notify_one();
        return;
    }
    ++stats_.publish_errors;
    if (attempt != e->attempt) return;  // an earlier attempt's failure: the new one is out
    const std::string why =
        pae ? fmt::format("{}{}{}", natsStatus_GetText(pae->Err), pae->ErrText ? ": " : "",
                          pae->ErrText ? pae->ErrText : "")
            : std::string("no acknowledgement");
    lock.unlock();
    log_trouble(
        fmt::format("JetStream did not acknowledge block {} ({}); it is retried", e->msg_id, why));
    lock.lock();
    if (e->in_flight && e->attempt == attempt) on_failed(e, lock);
}

// Back to the head of the queue after a pause: the block is republished with its msg id.
void nats_publisher::on_failed(const std::shared_ptr<entry>& e, std::unique_lock<std::mutex>&) {
    flying_.erase(e->msg_id);
    e->in_flight = false;
    stats_.window_in_use = flying_.size();
    const auto pause = std::chrono::milliseconds(std::min<std::uint32_t>(e->attempt, 10) * 100);
    e->not_before = steady::now() + pause;
    queue_.push_front(e);
    wake_.notify_one();
}

// A publish whose answer never came (the library normally reports a timeout itself) is
// republished after twice the ack timeout.
void nats_publisher::reclaim_stale(steady::time_point now) {
    const auto limit = 2 * options_.ack_timeout + std::chrono::seconds(1);
    std::vector<std::shared_ptr<entry>> stale;
    for (const auto& [id, e] : flying_)
        if (now - e->sent > limit) stale.push_back(e);
    for (auto& e : stale) {
        flying_.erase(e->msg_id);
        e->in_flight = false;
        e->not_before = now;
        queue_.push_front(e);
    }
    stats_.window_in_use = flying_.size();
}

// Completes the connection's batches whose blocks are all acknowledged, in commit order.
void nats_publisher::complete_ready(const std::shared_ptr<lane>& l,
                                    std::unique_lock<std::mutex>& lock) {
    std::vector<sink_stream::durable_handler> done;
    while (!l->entries.empty() && l->entries.front()->acked) {
        auto& e = l->entries.front();
        stats_.buffered_bytes -= e->bytes.size();
        if (e->handler) done.push_back(std::move(e->handler));
        l->entries.pop_front();
    }
    if (done.empty()) return;
    lock.unlock();
    for (auto& h : done)
        h({});
    lock.lock();
}

void nats_publisher::fail_all(std::error_code ec) {
    std::vector<sink_stream::durable_handler> failed;
    {
        std::lock_guard lock(mutex_);
        for (auto* list : {&queue_})
            for (auto& e : *list)
                if (e->handler) failed.push_back(std::move(e->handler));
        for (auto& [id, e] : flying_)
            if (e->handler) failed.push_back(std::move(e->handler));
        queue_.clear();
        flying_.clear();
    }
    if (!failed.empty())
        spdlog::warn(
            "nats: closing with {} batches JetStream has not acknowledged; their "
            "senders get no ack",
            failed.size());
    for (auto& h : failed)
        h(ec);
}

// Trouble is logged at most once a second, with how many lines were left out meanwhile.
void nats_publisher::log_trouble(const std::string& what) {
    std::unique_lock lock(mutex_);
    const auto now = steady::now();
    if (now - last_trouble_log_ < std::chrono::seconds(1)) {
        ++trouble_suppressed_;
        return;
    }
    const auto suppressed = std::exchange(trouble_suppressed_, 0);
    last_trouble_log_ = now;
    lock.unlock();
    if (suppressed)
        spdlog::warn("nats: {} (and {} similar since the last report)", what, suppressed);
    else
        spdlog::warn("nats: {}", what);
}

nats_sink_stats nats_publisher::stats() const {
    std::lock_guard lock(mutex_);
    auto s = stats_;
    s.connected = connected_;
    char url[256] = {0};
    if (conn_ && natsConnection_GetConnectedUrl(conn_, url, sizeof url) == NATS_OK)
        s.connected_url = url;
    s.window_limit = options_.publish_window;
    s.buffer_limit = options_.buffer_bytes;
    std::lock_guard pack_lock(pack_mutex_);
    const auto c = packer_.policy().stats();
    s.compressing = c.compressing;
    s.link_mbit = c.link_mbit;
    s.blocks_compressed = c.frames_compressed;
    s.raw_bytes = c.raw_bytes;
    s.stored_bytes = c.wire_bytes;
    return s;
}

natsStatus set_common_nats_options(natsOptions* opts, const nats_sink_options& o,
                                   const char* name) {
    std::vector<const char*> urls;
    for (const auto& u : o.servers)
        urls.push_back(u.c_str());
    natsStatus s = natsOptions_SetServers(opts, urls.data(), static_cast<int>(urls.size()));
    if (s == NATS_OK) s = natsOptions_SetName(opts, name);
    if (s == NATS_OK) s = natsOptions_SetMaxReconnect(opts, -1);  // the cluster comes back
    if (s == NATS_OK) s = natsOptions_SetReconnectWait(opts, 250);
    if (s == NATS_OK) s = natsOptions_SetTimeout(opts, 2000);
    if (s == NATS_OK && !o.credentials_file.empty())
        s = natsOptions_SetUserCredentialsFromFiles(opts, o.credentials_file.c_str(), nullptr);
    return s;
}

}  // namespace objwire::daemon
