#include "daemon/telemetry/metrics.hpp"

#include <algorithm>

#include "proto/errors.hpp"
#include "proto/receiver.hpp"

namespace objwire::daemon {

void metrics::count_error(std::error_code ec, const char* other_kind) {
    std::string kind = ec.category() == proto_category()
                           ? proto_errc_name(static_cast<proto_errc>(ec.value()))
                           : other_kind;
    std::lock_guard lock(errors_mutex_);
    ++errors_[kind];
}

void metrics::count_refusal(const std::string& user, const std::string& reason) {
    std::lock_guard lock(errors_mutex_);
    auto key = std::pair(user, reason);
    if (!refusals_.contains(key) && refusals_.size() >= max_refusal_series) key.first.clear();
    ++refusals_[key];
}

std::map<std::pair<std::string, std::string>, std::uint64_t> metrics::refusals() const {
    std::lock_guard lock(errors_mutex_);
    return refusals_;
}

std::map<std::string, std::uint64_t> metrics::errors() const {
    std::lock_guard lock(errors_mutex_);
    return errors_;
}

void metrics::set_link_estimate(std::uint64_t connection, double bits_per_second) {
    std::lock_guard lock(links_mutex_);
    links_[connection] = bits_per_second;
    last_link_bps_ = bits_per_second;
}

void metrics::drop_link_estimate(std::uint64_t connection) {
    std::lock_guard lock(links_mutex_);
    links_.erase(connection);
}

metrics::link_summary metrics::link_estimates() const {
    std::lock_guard lock(links_mutex_);
    link_summary s;
    s.last_bps = last_link_bps_;
    s.connections = links_.size();
    for (const auto& [key, bps] : links_)
        s.max_bps = std::max(s.max_bps, bps);
    return s;
}

namespace {
// Adds now - before to `counter` and remembers now.
void add_delta(std::atomic<std::uint64_t>& counter, std::uint64_t& before, std::uint64_t now) {
    if (now > before) counter.fetch_add(now - before, std::memory_order_relaxed);
    before = now;
}
}  // namespace

void receiver_meter::report(const receiver& r, metrics& m) {
    add_delta(m.frames_in, frames_, r.frames());
    add_delta(m.frames_compressed, frames_compressed_, r.compressed_frames());
    add_delta(m.compressed_bytes, compressed_bytes_, r.compressed_bytes());
    add_delta(m.decompressed_bytes, decompressed_bytes_, r.decompressed_bytes());
    const table_stats& t = r.table();
    // A reset or a smaller table after the hello may shrink the table: the gauge moves both ways.
    m.table_bytes.fetch_add(
        static_cast<std::int64_t>(t.bytes) - static_cast<std::int64_t>(table_.bytes),
        std::memory_order_relaxed);
    table_.bytes = t.bytes;
    add_delta(m.table_hits, table_.hits, t.hits);
    add_delta(m.table_misses, table_.misses, t.misses);
    add_delta(m.table_evictions, table_.evictions, t.evictions);
    add_delta(m.table_resets, table_.resets, t.resets);
}

void receiver_meter::resume_at(const receiver& r) {
    frames_ = r.frames();
}

void receiver_meter::close(metrics& m) {
    m.table_bytes.fetch_sub(static_cast<std::int64_t>(table_.bytes), std::memory_order_relaxed);
    table_.bytes = 0;
}

}  // namespace objwire::daemon
