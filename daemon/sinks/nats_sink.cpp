#include "daemon/sinks/nats_sink.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <mutex>
#include <random>

#include "daemon/sinks/nats_publisher.hpp"
#include "daemon/telemetry/metric_writer.hpp"
#include "daemon/telemetry/metrics.hpp"
#include "proto/journal_block.hpp"

namespace objwire::daemon {
namespace {

std::vector<std::string> split_servers(const std::string& text) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start <= text.size()) {
        auto end = text.find(',', start);
        if (end == std::string::npos) end = text.size();
        auto item = text.substr(start, end - start);
        item.erase(0, item.find_first_not_of(" \t"));
        item.erase(item.find_last_not_of(" \t") + 1);
        if (!item.empty()) out.push_back(item);
        start = end + 1;
    }
    return out;
}

std::string random_hex64() {
    static std::mutex m;
    static std::mt19937_64 rng{std::random_device{}()};
    std::lock_guard lock(m);
    return fmt::format("{:016x}", rng());
}

std::uint64_t now_ms() {
    return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                          std::chrono::system_clock::now().time_since_epoch())
                                          .count());
}

}  // namespace

// ---- one connection's stream ----------------------------------------------------------------

namespace {

class nats_stream final : public sink_stream {
  public:
    nats_stream(std::shared_ptr<nats_publisher> p, const std::string& sender_id)
        : publisher_(std::move(p)),
          sender_id_(sender_id),
          prefix_(nats_sender_key(sender_id) + ":" + random_hex64()),
          subject_(nats_sender_subject(publisher_->options().subject, sender_id)),
          lane_(std::make_shared<nats_publisher::lane>()) {
        parts_.emplace_back(sender_id_, true);  // decoded, so checked
    }

    std::error_code add(const message& m) override {
        if (!parts_[used_ - 1].empty() && parts_[used_ - 1].bytes() >= publisher_->part_limit()) {
            if (used_ == parts_.size())
                parts_.emplace_back(sender_id_, true);  // decoded, so checked
            ++used_;
        }
        return parts_[used_ - 1].add(m);
    }
    void mark() override {
        mark_used_ = used_;
        parts_[used_ - 1].mark();
    }
    void rollback() override {
        for (std::size_t i = mark_used_; i < used_; ++i)
            parts_[i].clear();
        used_ = mark_used_;
        parts_[used_ - 1].rollback();
    }
    bool empty() const override { return used_ == 1 && parts_[0].empty(); }
    std::size_t bytes() const override {
        std::size_t n = 0;
        for (std::size_t i = 0; i < used_; ++i)
            n += parts_[i].bytes();
        return n;
    }

    // A block's first offset counts the objects this connection published before it, so a
    // reader can tell that a connection's blocks are all there.
    std::error_code commit(std::uint64_t first_sequence, std::uint64_t last_sequence,
                           durable_handler on_durable) override {
        // A full buffer answers like a full disk under the journal: the batch stays open and
        // the session stops reading and acknowledging, then commits it again (the same msg
        // ids) until it fits (daemon/serve/session_limits.cpp).
        const auto reserved = bytes();
        if (!publisher_->reserve(reserved))
            return std::make_error_code(std::errc::no_space_on_device);
        std::vector<std::shared_ptr<nats_publisher::entry>> blocks;
        const auto stamp = now_ms();
        auto offset = offset_;
        for (std::size_t i = 0; i < used_; ++i) {
            auto span = parts_[i].finish(first_sequence, last_sequence, stamp);
            seal_journal_block(span, offset);
            offset += parts_[i].messages();
            auto e = std::make_shared<nats_publisher::entry>();
            publisher_->pack(span, *e);
            e->msg_id =
                nats_msg_id(prefix_, first_sequence, last_sequence, static_cast<std::uint32_t>(i),
                            static_cast<std::uint32_t>(used_));
            e->subject = subject_;
            e->order = lane_;
            blocks.push_back(std::move(e));
            parts_[i].clear();
        }
        used_ = mark_used_ = 1;
        auto ec = publisher_->submit(std::move(blocks), std::move(on_durable), reserved);
        if (!ec) offset_ = offset;
        return ec;
    }

  private:
    std::shared_ptr<nats_publisher> publisher_;
    std::string sender_id_;
    std::string prefix_;
    std::string subject_;
    std::shared_ptr<nats_publisher::lane> lane_;
    std::vector<journal_block_writer> parts_;
    std::size_t used_ = 1;
    std::size_t mark_used_ = 1;  // used_ at mark()
    std::uint64_t offset_ = 0;
};

}  // namespace

// ---- the sink -------------------------------------------------------------------------------

namespace {
// The sender id itself when it is short and made of `allowed` characters, else a hash of it.
std::string sender_token(const std::string& sender_id, bool allow_dot) {
    if (sender_id.empty()) return "anon";
    const bool plain =
        sender_id.size() <= 64 &&
        std::all_of(sender_id.begin(), sender_id.end(), [&](unsigned char c) {
            return std::isalnum(c) || c == '-' || c == '_' || (allow_dot && c == '.');
        });
    if (plain) return sender_id;
    std::uint64_t h = 14695981039346656037ull;  // FNV-1a
    for (unsigned char c : sender_id) {
        h ^= c;
        h *= 1099511628211ull;
    }
    return fmt::format("h{:016x}", h);
}
}  // namespace

std::string nats_sender_key(const std::string& sender_id) {
    return sender_token(sender_id, true);
}

// A subject token may not hold '.', '*' or '>': ids with them are hashed.
std::string nats_sender_subject(const std::string& subject, const std::string& sender_id) {
    return subject + "." + sender_token(sender_id, false);
}

std::string nats_msg_id(const std::string& stream_prefix, std::uint64_t first_sequence,
                        std::uint64_t last_sequence, std::uint32_t part, std::uint32_t parts) {
    if (parts <= 1) return fmt::format("{}:{}-{}", stream_prefix, first_sequence, last_sequence);
    return fmt::format("{}:{}-{}.{}", stream_prefix, first_sequence, last_sequence, part);
}

nats_sink_options nats_options_from(const config::daemon_settings& s) {
    nats_sink_options o;
    o.servers = split_servers(s.nats_servers);
    o.subject = s.nats_subject;
    o.stream = s.nats_stream;
    o.replicas = s.nats_replicas;
    o.credentials_file = s.nats_credentials_file;
    o.publish_window = s.nats_publish_window;
    o.buffer_bytes = s.nats_buffer_bytes;
    o.ack_timeout = s.nats_ack_timeout;
    o.duplicate_window = s.nats_duplicate_window;
    // The texts were validated when the settings were loaded.
    if (auto m = parse_mode(s.nats_compression)) o.compression.mode = *m;
    if (auto c = parse_codec(s.nats_compression_codec)) o.compression.codec = *c;
    o.compression.level = static_cast<int>(s.nats_compression_level);
    o.max_block_bytes = s.max_frame_bytes;
    return o;
}

std::unique_ptr<nats_sink> nats_sink::open(nats_sink_options options, std::error_code& ec) {
    if (options.servers.empty()) {
        ec = std::make_error_code(std::errc::invalid_argument);
        spdlog::error("nats: nats.servers names no server");
        return nullptr;
    }
    auto p = std::make_shared<nats_publisher>(std::move(options));
    if ((ec = p->connect())) {
        spdlog::error("nats: cannot connect to {}: {} ({})", fmt::join(p->options().servers, ","),
                      ec.message(), nats_GetLastError(nullptr));
        return nullptr;
    }
    p->start();
    return std::unique_ptr<nats_sink>(new nats_sink(std::move(p)));
}

nats_sink::~nats_sink() {
    publisher_->shutdown();
}

std::string nats_sink::describe() const {
    const auto& o = publisher_->options();
    return fmt::format("nats:{}@{}", o.stream, fmt::join(o.servers, ","));
}

std::unique_ptr<sink_stream> nats_sink::open_stream(const std::string& sender_id) {
    return std::make_unique<nats_stream>(publisher_, sender_id);
}

nats_sink_stats nats_sink::stats() const {
    return publisher_->stats();
}

std::optional<std::uint64_t> nats_sink::last_stored_frame(const std::string& sender_id) {
    return publisher_->last_stored_frame(sender_id);
}

const nats_sink_options& nats_sink::options() const {
    return publisher_->options();
}

void nats_sink::write_metrics(metric_writer& out, const metrics& /*m*/) const {
    write_nats_metrics(out, stats());
}

void write_nats_metrics(metric_writer& x, const nats_sink_stats& s) {
    const auto one = [&](const char* name, metric_type type, const char* help, auto value) {
        x.one(name, type, help, value);
    };
    one("objwire_nats_connected", metric_type::gauge, "1 while connected to a NATS server.",
        s.connected ? 1 : 0);
    one("objwire_nats_blocks_acked_total", metric_type::counter, "Blocks JetStream acknowledged.",
        s.blocks_acked);
    one("objwire_nats_bytes_acked_total", metric_type::counter,
        "Bytes of blocks JetStream acknowledged.", s.bytes_acked);
    one("objwire_nats_publishes_total", metric_type::counter, "Block publishes, retries included.",
        s.publishes);
    one("objwire_nats_retries_total", metric_type::counter,
        "Blocks published again after a timeout, an error or a lost server.", s.retries);
    one("objwire_nats_duplicates_total", metric_type::counter,
        "Acks JetStream flagged as duplicate (a retry of a stored block).", s.duplicates);
    one("objwire_nats_publish_errors_total", metric_type::counter,
        "Failed publishes and negative or missing acks.", s.publish_errors);
    one("objwire_nats_window_in_use", metric_type::gauge,
        "Blocks published and not yet acknowledged.", s.window_in_use);
    one("objwire_nats_window_peak", metric_type::gauge, "Most blocks unacknowledged at once.",
        s.window_peak);
    one("objwire_nats_window_limit", metric_type::gauge, "nats.publish_window.", s.window_limit);
    one("objwire_nats_buffered_bytes", metric_type::gauge, "Bytes of blocks held for JetStream.",
        s.buffered_bytes);
    one("objwire_nats_buffer_limit_bytes", metric_type::gauge, "nats.buffer_bytes.",
        s.buffer_limit);
    one("objwire_nats_refused_batches_total", metric_type::counter,
        "Batch commits that waited because nats.buffer_bytes was full.", s.refused_batches);
    one("objwire_nats_publish_latency_seconds_sum", metric_type::counter,
        "Commit to JetStream ack, summed over blocks.",
        static_cast<double>(s.latency_sum_ns) / 1e9);
    one("objwire_nats_publish_latency_seconds_count", metric_type::counter, "Blocks timed.",
        s.latency_count);
    one("objwire_nats_publish_latency_seconds_max", metric_type::gauge,
        "Longest commit to ack so far.", static_cast<double>(s.latency_max_ns) / 1e9);
    one("objwire_nats_compressing", metric_type::gauge,
        "1 while nats.compression compresses blocks.", s.compressing ? 1 : 0);
    one("objwire_nats_link_mbit", metric_type::gauge,
        "Link to JetStream as measured from its acks (Mbit/s; 0 while unknown).", s.link_mbit);
    one("objwire_nats_blocks_compressed_total", metric_type::counter,
        "Blocks published compressed.", s.blocks_compressed);
    one("objwire_nats_raw_bytes_total", metric_type::counter, "Bytes of blocks before compression.",
        s.raw_bytes);
    one("objwire_nats_stored_bytes_total", metric_type::counter,
        "Bytes of blocks as published (compressed or not); / raw_bytes is the ratio.",
        s.stored_bytes);
}

std::vector<metric_family> nats_metric_families(const nats_sink_stats& s) {
    metric_writer x;
    write_nats_metrics(x, s);
    return x.take();
}

}  // namespace objwire::daemon
