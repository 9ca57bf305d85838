// The events workload, exactly as docs/WORKLOADS.md defines it (client/workloads/workloads.hpp).
#include "client/workloads/workload_text.hpp"
#include "client/workloads/workload_values.hpp"
#include "client/workloads/workloads.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <vector>

namespace objwire::workloads {
namespace {

using namespace detail;

constexpr std::array<std::string_view, 50> event_templates = {
    "user {n} logged in from session {x}",
    "request {x} completed in {n} ms",
    "cache miss for key {x}",
    "cache hit for key {x} after {n} lookups",
    "connection pool exhausted: {n} waiters",
    "retrying job {x} attempt {n} of {n}",
    "disk usage at {n} blocks on volume {x}",
    "payment {x} authorized for amount {n}",
    "payment {x} declined with code {n}",
    "order {n} shipped in parcel {x}",
    "order {n} cancelled by user {n}",
    "slow query {x} took {n} ms scanning {n} rows",
    "index rebuild finished for table {n}",
    "gc pause of {n} us in region {n}",
    "heartbeat from node {x}",
    "leader election won by node {x} in term {n}",
    "replica {x} lagging by {n} entries",
    "snapshot {x} written with {n} keys",
    "rate limit exceeded for client {x}: {n} requests",
    "token {x} expired after {n} seconds",
    "file {x} uploaded with {n} bytes",
    "file {x} deleted by user {n}",
    "message {x} enqueued on partition {n}",
    "message {x} acked after {n} ms",
    "consumer {n} rebalanced to {n} partitions",
    "batch {x} flushed with {n} records in {n} ms",
    "tls handshake with peer {x} failed: code {n}",
    "dns lookup for zone {n} took {n} ms",
    "http {n} returned for route {n}",
    "circuit breaker {x} opened after {n} failures",
    "circuit breaker {x} closed",
    "config reload {n} applied",
    "feature flag {n} evaluated for user {n}",
    "email {x} sent to user {n}",
    "sms {x} queued for user {n}",
    "thread {n} blocked for {n} ms on lock {x}",
    "worker {n} started job {x}",
    "worker {n} finished job {x} in {n} ms",
    "session {x} timed out after {n} s",
    "password reset requested by user {n}",
    "invoice {n} generated for account {x}",
    "webhook {x} delivered after {n} attempts",
    "webhook {x} failed with status {n}",
    "shard {n} moved to node {x}",
    "compaction of segment {x} reclaimed {n} bytes",
    "upstream {x} responded in {n} ms",
    "queue depth {n} exceeds threshold {n}",
    "backup {x} completed with {n} files",
    "license check {x} passed",
    "user {n} did {n} things in {n} ms",
};

// The shortest and longest msg the templates make ({n} is 1-5 digits, {x} 8), as next()
// relies on: it copies msg with copy_between<min_msg, max_msg>.
constexpr std::size_t min_msg = 16, max_msg = 64;
constexpr bool event_msgs_within(std::size_t lo, std::size_t hi) {
    for (std::string_view t : event_templates) {
        std::size_t shortest = 0, longest = 0;
        for (std::size_t i = 0; i < t.size(); ++i) {
            if (t[i] != '{') {
                ++shortest;
                ++longest;
                continue;
            }
            shortest += t[i + 1] == 'x' ? 8 : 1;
            longest += t[i + 1] == 'x' ? 8 : 5;
            i += 2;
        }
        if (shortest < lo || longest > hi) return false;
    }
    return true;
}
static_assert(event_msgs_within(min_msg, max_msg));

// The templates split at their placeholders, all literal text in one pool with slack after
// it, so that draw() copies every piece with one fixed-size (inlined) copy instead of a call
// to memcpy: the bytes copied past a piece's end are overwritten next or lie past the message.
class event_pieces {
  public:
    static constexpr std::size_t copy_size = 48;  // >= the longest piece (33)
    static constexpr std::size_t max_pieces = 4;  // the most literal pieces in a template

    struct piece {
        std::uint16_t offset = 0;  // into the pool
        std::uint8_t size = 0;
        char hole = 0;  // after the text: 'n', 'x', or 0 at the end of the template
    };
    struct parsed {
        std::array<piece, max_pieces> pieces{};
        std::size_t count = 0;
    };

    event_pieces() {
        for (std::size_t i = 0; i < event_templates.size(); ++i) {
            std::string_view t = event_templates[i];
            for (;;) {
                auto open = t.find('{');
                auto text = t.substr(0, open);
                parsed_[i].pieces[parsed_[i].count++] = {
                    static_cast<std::uint16_t>(pool_.size()),
                    static_cast<std::uint8_t>(text.size()),
                    open == std::string_view::npos ? '\0' : t[open + 1]};
                pool_ += text;
                if (open == std::string_view::npos) break;
                t.remove_prefix(open + 3);
            }
        }
        pool_.append(copy_size, '\0');
    }

    const parsed& operator[](std::size_t i) const { return parsed_[i]; }

    // Copies `p`'s text to `out` (writing copy_size bytes) and returns the end of the text.
    char* put(char* out, const piece& p) const {
        std::memcpy(out, pool_.data() + p.offset, copy_size);
        return out + p.size;
    }

  private:
    std::string pool_;
    std::array<parsed, event_templates.size()> parsed_{};
};

// `prefix` and then i in decimal, zero-padded to `size` characters in all, for i < count.
template <std::size_t count, std::size_t size>
constexpr auto numbered_names(std::string_view prefix) {
    std::array<std::array<char, size>, count> names{};
    for (std::size_t i = 0; i < count; ++i) {
        std::copy(prefix.begin(), prefix.end(), names[i].begin());
        std::size_t rest = i;
        for (std::size_t k = size; k > prefix.size(); --k, rest /= 10)
            names[i][k - 1] = static_cast<char>('0' + rest % 10);
    }
    return names;
}

// Every value of the events' level, host and service draws, spelled out once, so that
// draw() turns a draw into its text with one table load instead of divisions into digits
// and a chain of comparisons.
struct event_names {
    // 4 or 5 letters each, as next() relies on (it copies them with copy_between<4, 5>).
    static constexpr std::array<std::string_view, 5> levels = {"TRACE", "DEBUG", "INFO", "WARN",
                                                               "ERROR"};
    // level for r = below(100): r<5 TRACE, r<20 DEBUG, r<80 INFO, r<95 WARN, else ERROR.
    static constexpr auto level_of = [] {
        std::array<std::uint8_t, 100> t{};
        for (std::size_t r = 0; r < t.size(); ++r)
            t[r] = r < 5 ? 0 : r < 20 ? 1 : r < 80 ? 2 : r < 95 ? 3 : 4;
        return t;
    }();
    static constexpr auto hosts = numbered_names<200, 8>("host-");   // "host-%03d"
    static constexpr auto services = numbered_names<30, 6>("svc-");  // "svc-%02d"
};

static_assert(std::ranges::all_of(event_names::levels, [](std::string_view l) {
    return l.size() == 4 || l.size() == 5;
}));

class events_workload final : public workload {
  public:
    explicit events_workload(std::uint64_t seed) : rng_(seed) {}

    std::string_view name() const override { return "events"; }
    std::uint64_t default_count() const override { return 1'000'000; }

    void next(message& out) override {
        draw();
        auto& f = assign_record(out.root, type_);
        assign_int(f[0], ts_);
        assign_string_between<4, 5>(f[1], level_);
        assign_fixed_string(f[2], host_);
        assign_fixed_string(f[3], service_);
        assign_string_between<min_msg, max_msg>(f[4], {msg_, msg_size_});
        assign_fixed_string(f[5], user_);
        assign_double(f[6], latency_ms_);
        out.objects.clear();
    }

    void next_json(std::string& out) override {
        draw();
        char buf[512];  // the longest line is under 300 bytes
        char* p = put(buf, R"({"$type":"Event","ts":)");
        p = put_int(p, ts_);
        p = put(p, R"(,"level":")");
        p = put(p, level_);
        p = put(p, R"(","host":")");
        p = put(p, {host_.data(), host_.size()});
        p = put(p, R"(","service":")");
        p = put(p, {service_.data(), service_.size()});
        p = put(p, R"(","msg":")");
        p = put(p, {msg_, msg_size_});
        p = put(p, R"(","user":")");
        p = put(p, {user_.data(), user_.size()});
        p = put(p, R"(","latency_ms":)");
        p = std::to_chars(p, p + 32, latency_ms_, std::chars_format::fixed, 3).ptr;
        *p++ = '}';
        out.append(buf, p);
    }

  private:
    // One event, in the draw order of the definition. The generator runs on a local copy:
    // the stores into msg_ (char, which may alias anything) would otherwise make the
    // compiler store and reload its state around every draw.
    void draw() {
        splitmix64 rng = rng_;
        ts_ = clock_;
        level_ = event_names::levels[event_names::level_of[rng.below(100)]];
        host_ = event_names::hosts[rng.below(200)];
        service_ = event_names::services[rng.below(30)];

        char* p = msg_;
        const auto& t = templates_[rng.below(event_templates.size())];
        // The last piece, and only it, has no hole after it.
        for (const auto* piece = t.pieces.data();; ++piece) {
            p = templates_.put(p, *piece);
            if (piece->hole == 'n')
                p = put_below_100000(p, static_cast<std::uint32_t>(rng.below(100000)));
            else if (piece->hole == 'x')
                p = put_hex8(p, static_cast<std::uint32_t>(rng.next()));
            else
                break;
        }
        msg_size_ = static_cast<std::size_t>(p - msg_);

        put_hex16(user_.data(), rng.next());
        latency_ms_ = static_cast<double>(rng.below(500000)) / 1000.0;
        clock_ += static_cast<std::int64_t>(rng.below(1001));
        rng_ = rng;
    }

    splitmix64 rng_;
    std::int64_t clock_ = 1'700'000'000'000'000;  // microseconds
    record_type_ptr type_ =
        make_record_type("Event", {"ts", "level", "host", "service", "msg", "user", "latency_ms"});
    event_pieces templates_;

    std::int64_t ts_ = 0;
    std::string_view level_;
    std::array<char, 8> host_{};
    std::array<char, 6> service_{};
    // The longest template filled is 55 characters; a piece copy writes up to
    // event_pieces::copy_size bytes from where the text goes.
    char msg_[128] = {};
    std::size_t msg_size_ = 0;
    std::array<char, 16> user_{};
    double latency_ms_ = 0;
};

}  // namespace

std::unique_ptr<workload> make_events_workload(std::uint64_t seed) {
    return std::make_unique<events_workload>(seed);
}

}  // namespace objwire::workloads
