// The four benchmark workloads (see workloads.hpp for their definitions). Each generator draws
// one message into plain members, then either copies it into a `message` (next) or prints it
// as a JSON line (next_json); the hot paths format into stack buffers and reuse storage so
// they can feed benchmarks of millions of messages per second.
#include "client/workloads.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cstring>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace objwire::workloads {
namespace {

// docs/WORKLOADS.md: all arithmetic unsigned 64-bit with wrap-around.
class splitmix64 {
  public:
    explicit splitmix64(std::uint64_t seed) : state_(seed) {}

    std::uint64_t next() {
        state_ += 0x9E3779B97F4A7C15ULL;
        std::uint64_t z = state_;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31);
    }
    std::uint64_t below(std::uint64_t n) { return next() % n; }

  private:
    std::uint64_t state_;
};

// --- Writing into an existing message without giving up its storage ---

void assign_int(value& v, std::int64_t i) {
    if (auto* p = v.get_if<std::int64_t>())
        *p = i;
    else
        v = value(i);
}

void assign_double(value& v, double d) {
    if (auto* p = v.get_if<double>())
        *p = d;
    else
        v = value(d);
}

void assign_string(value& v, std::string_view s) {
    if (auto* p = v.get_if<std::string>())
        assign_text(*p, s);
    else
        v = value(s);
}

// The string `v` holds, which it becomes first if it holds anything else. (ensure() checks
// the alternative twice.)
std::string& string_in(value& v) {
    if (auto* text = v.get_if<std::string>()) [[likely]]
        return *text;
    return v.ensure<std::string>();
}

// Copies n bytes, lo <= n <= hi (both known to the compiler), as two fixed-size copies per
// `lo` bytes from either end that overlap in the middle: no call to memcpy, no loop.
template <std::size_t lo, std::size_t hi>
void copy_between(char* dst, const char* src, std::size_t n) {
    static_assert(lo <= hi && hi <= 4 * lo);
    std::memcpy(dst, src, lo);
    std::memcpy(dst + n - lo, src + n - lo, lo);
    if constexpr (hi > 2 * lo) {
        if (n > 2 * lo) {
            std::memcpy(dst + lo, src + lo, lo);
            std::memcpy(dst + n - 2 * lo, src + n - 2 * lo, lo);
        }
    }
}

// v = s, where lo <= s.size() <= hi, for strings whose length changes between messages (the
// events' level and msg). resize() shortens in place and lengthens within the capacity the
// string already has (its final size is soon reached), and the bytes go in by copy_between:
// this skips the general std::string::_M_replace that assign() goes through, which has to
// handle a source inside the string itself.
template <std::size_t lo, std::size_t hi>
void assign_string_between(value& v, std::string_view s) {
    auto& text = string_in(v);
    text.resize(s.size());
    copy_between<lo, hi>(text.data(), s.data(), s.size());
}

// v = the N characters of s, for strings of one fixed length (the events' host, service,
// user): from the second message on only the bytes move, in one copy of a size the compiler
// knows, so no call.
template <std::size_t N>
void assign_fixed_string(value& v, const std::array<char, N>& s) {
    auto& text = string_in(v);
    if (text.size() == N)
        std::memcpy(text.data(), s.data(), N);
    else
        text.assign(s.data(), N);
}

void assign_ref(value& v, std::uint32_t index) {
    if (auto* p = v.get_if<object_ref>())
        p->index = index;
    else
        v = value(object_ref{index});
}

// Makes `v` a record of `type`, keeping its field vector when it already is a record.
[[gnu::noinline]] std::vector<value>& remake_record(value& v, const record_type_ptr& type) {
    auto* r = v.get_if<record>();
    if (r == nullptr) {
        v = value(record{type, {}});
        r = v.get_if<record>();
    }
    if (r->type != type) r->type = type;
    r->fields.resize(type->fields.size());
    return r->fields;
}

// The same, with the case of every message after a workload's first (`v` already is the
// record, of this type) checked inline.
inline std::vector<value>& assign_record(value& v, const record_type_ptr& type) {
    auto* r = v.get_if<record>();
    if (r != nullptr && r->type == type && r->fields.size() == type->fields.size())
        return r->fields;
    return remake_record(v, type);
}

list& assign_list(value& v, std::size_t size) {
    auto* l = v.get_if<list>();
    if (l == nullptr) {
        v = value(list{});
        l = v.get_if<list>();
    }
    l->resize(size);
    return *l;
}

std::vector<std::uint8_t>& assign_bytes(value& v) {
    auto* b = v.get_if<bytes>();
    if (b == nullptr) {
        v = value(bytes{});
        b = v.get_if<bytes>();
    }
    return b->data;
}

// --- JSON text pieces ---

constexpr char hex_digits[] = "0123456789abcdef";

char* put(char* p, std::string_view s) {
    std::memcpy(p, s.data(), s.size());
    return p + s.size();
}

char* put_int(char* p, std::int64_t i) {
    return std::to_chars(p, p + 20, i).ptr;
}

// `digits` lowercase hex digits of the low bits of `x`, zero-padded.
char* put_hex(char* p, std::uint64_t x, int digits) {
    for (int i = digits - 1; i >= 0; --i) {
        p[i] = hex_digits[x & 0xF];
        x >>= 4;
    }
    return p + digits;
}

// The 8 lowercase hex digits of `x`, most significant first, as the bytes of the result in
// memory order: each nibble is spread into its own byte and turned into a digit, all 8 at
// once (no per-digit loop or table).
std::uint64_t hex8(std::uint32_t x) {
    std::uint64_t v = x;
    v = (v | v << 16) & 0x0000'FFFF'0000'FFFFULL;
    v = (v | v << 8) & 0x00FF'00FF'00FF'00FFULL;
    v = (v | v << 4) & 0x0F0F'0F0F'0F0F'0F0FULL;  // nibble k in byte k
    // 0x01 in the bytes whose nibble is 10..15, which get 'a' - '0' - 10 = 39 more.
    std::uint64_t letters = ((v + 0x0606'0606'0606'0606ULL) >> 4) & 0x0101'0101'0101'0101ULL;
    v += 0x3030'3030'3030'3030ULL + letters * 39;
    return __builtin_bswap64(v);  // the most significant nibble first in memory (little-endian)
}

char* put_hex8(char* p, std::uint32_t x) {
    static_assert(std::endian::native == std::endian::little);
    std::uint64_t digits = hex8(x);
    std::memcpy(p, &digits, 8);
    return p + 8;
}

// The 16 lowercase hex digits of `x`, most significant first (the events' user). With SSE2
// all 16 nibbles are spread into bytes and turned into digits in one register, about a third
// of the instructions of two put_hex8.
char* put_hex16(char* p, std::uint64_t x) {
#if defined(__SSE2__)
    const __m128i low_nibbles = _mm_set1_epi8(0x0F);
    __m128i b = _mm_cvtsi64_si128(static_cast<long long>(__builtin_bswap64(x)));  // MSB first
    __m128i high = _mm_and_si128(_mm_srli_epi16(b, 4), low_nibbles);
    __m128i low = _mm_and_si128(b, low_nibbles);
    __m128i nibbles = _mm_unpacklo_epi8(high, low);  // one per byte, in digit order
    // '0' + nibble, and 'a' - '0' - 10 = 39 more for the nibbles 10..15.
    __m128i letters = _mm_and_si128(_mm_cmpgt_epi8(nibbles, _mm_set1_epi8(9)), _mm_set1_epi8(39));
    __m128i digits = _mm_add_epi8(_mm_add_epi8(nibbles, _mm_set1_epi8('0')), letters);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), digits);
    return p + 16;
#else
    return put_hex8(put_hex8(p, static_cast<std::uint32_t>(x >> 32)),
                    static_cast<std::uint32_t>(x));
#endif
}

// Decimal digits of n < 100,000 (the events' {n}) from a table of digit pairs.
char* put_below_100000(char* p, std::uint32_t n) {
    static constexpr auto pairs = [] {
        std::array<char, 200> t{};
        for (int i = 0; i < 100; ++i) {
            t[2 * i] = static_cast<char>('0' + i / 10);
            t[2 * i + 1] = static_cast<char>('0' + i % 10);
        }
        return t;
    }();
    auto pair = [&](std::uint32_t two) {
        std::memcpy(p, &pairs[2 * two], 2);
        p += 2;
    };
    if (n < 100) {
        if (n < 10)
            *p++ = static_cast<char>('0' + n);
        else
            pair(n);
        return p;
    }
    std::uint32_t high = n / 100, low = n % 100;  // high < 1000
    if (high < 10)
        *p++ = static_cast<char>('0' + high);
    else if (high < 100)
        pair(high);
    else {
        *p++ = static_cast<char>('0' + high / 100);
        pair(high % 100);
    }
    pair(low);
    return p;
}

void append_int(std::string& out, std::int64_t i) {
    char buf[24];
    out.append(buf, put_int(buf, i));
}

// A JSON string literal escaping only `"`, `\` and control characters (\n, \r, \t, the rest
// as \u00xx), as proto/json_writer does.
void append_json_string(std::string& out, std::string_view s) {
    out += '"';
    std::size_t run = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        auto c = static_cast<unsigned char>(s[i]);
        if (c >= 0x20 && c != '"' && c != '\\') continue;
        out.append(s.data() + run, i - run);
        run = i + 1;
        switch (c) {
            case '"':
                out += "\\\"";
                break;
            case '\\':
                out += "\\\\";
                break;
            case '\n':
                out += "\\n";
                break;
            case '\r':
                out += "\\r";
                break;
            case '\t':
                out += "\\t";
                break;
            default: {
                char esc[6] = {'\\', 'u', '0', '0'};
                put_hex(esc + 4, c, 2);
                out.append(esc, sizeof esc);
            }
        }
    }
    out.append(s.data() + run, s.size() - run);
    out += '"';
}

// Standard base64 alphabet with `=` padding.
void append_base64(std::string& out, std::span<const std::uint8_t> data) {
    static constexpr char alphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::size_t start = out.size();
    out.resize(start + (data.size() + 2) / 3 * 4);
    char* p = out.data() + start;
    std::size_t i = 0;
    for (; i + 3 <= data.size(); i += 3) {
        std::uint32_t n =
            (std::uint32_t{data[i]} << 16) | (std::uint32_t{data[i + 1]} << 8) | data[i + 2];
        *p++ = alphabet[(n >> 18) & 63];
        *p++ = alphabet[(n >> 12) & 63];
        *p++ = alphabet[(n >> 6) & 63];
        *p++ = alphabet[n & 63];
    }
    if (std::size_t rest = data.size() - i; rest > 0) {
        std::uint32_t n = std::uint32_t{data[i]} << 16;
        if (rest == 2) n |= std::uint32_t{data[i + 1]} << 8;
        *p++ = alphabet[(n >> 18) & 63];
        *p++ = alphabet[(n >> 12) & 63];
        *p++ = rest == 2 ? alphabet[(n >> 6) & 63] : '=';
        *p++ = '=';
    }
}

// --- person ---

class person_workload final : public workload {
  public:
    std::string_view name() const override { return "person"; }
    std::uint64_t default_count() const override { return 1'500'000; }

    void next(message& out) override {
        auto& f = assign_record(out.root, type_);
        assign_string(f[0], first_name);
        assign_string(f[1], surname);
        assign_int(f[2], age_++);
        out.objects.clear();
    }

    void next_json(std::string& out) override {
        char buf[96];
        char* p = put(buf, R"({"$type":"Person","firstName":"Heinz","surname":"Kabutz","age":)");
        p = put_int(p, age_++);
        *p++ = '}';
        out.append(buf, p);
    }

  private:
    static constexpr std::string_view first_name = "Heinz";
    static constexpr std::string_view surname = "Kabutz";

    record_type_ptr type_ = make_record_type("Person", {"firstName", "surname", "age"});
    std::int64_t age_ = 0;
};

// --- events (docs/WORKLOADS.md, exactly) ---

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

// --- graph ---

class graph_workload final : public workload {
  public:
    explicit graph_workload(std::uint64_t seed) : rng_(seed) {}

    std::string_view name() const override { return "graph"; }
    std::uint64_t default_count() const override { return 10'000; }

    void next(message& out) override {
        draw();
        assign_ref(out.root, 0);
        out.objects.reserve(1 + point_count);  // the point count varies; keep one buffer
        out.objects.resize(1 + points_.size());

        auto& trip = assign_record(out.objects[0], trip_type_);
        assign_int(trip[0], id_);
        auto& stops = assign_list(trip[1], stop_count);
        for (std::size_t i = 0; i < stop_count; ++i)
            assign_ref(stops[i], stops_[i]);
        assign_ref(trip[2], 0);

        for (std::size_t i = 0; i < points_.size(); ++i) {
            auto& point = assign_record(out.objects[1 + i], point_type_);
            assign_int(point[0], points_[i].x);
            assign_int(point[1], points_[i].y);
        }
    }

    void next_json(std::string& out) override {
        draw();
        char buf[64];
        char* p = put(buf, R"({"$id":0,"$type":"Trip","id":)");
        p = put_int(p, id_);
        p = put(p, R"(,"stops":[)");
        out.append(buf, p);

        std::uint32_t next_new = 1;  // canonical order: a point is new exactly when it is next
        for (std::size_t i = 0; i < stop_count; ++i) {
            p = buf;
            if (i > 0) *p++ = ',';
            auto index = stops_[i];
            if (index == next_new) {
                ++next_new;
                p = put(p, R"({"$id":)");
                p = put_int(p, index);
                p = put(p, R"(,"$type":"Point","x":)");
                p = put_int(p, points_[index - 1].x);
                p = put(p, R"(,"y":)");
                p = put_int(p, points_[index - 1].y);
            } else {
                p = put(p, R"({"$ref":)");
                p = put_int(p, index);
            }
            *p++ = '}';
            out.append(buf, p);
        }
        out += R"(],"back":{"$ref":0}})";
    }

  private:
    static constexpr std::size_t point_count = 100;
    static constexpr std::size_t stop_count = 1000;

    struct point {
        std::int64_t x = 0;
        std::int64_t y = 0;
    };

    // One Trip: the points, then the stops; stops_ holds canonical object indexes (1..).
    void draw() {
        id_ = next_id_++;
        for (auto& pt : drawn_) {
            pt.x = static_cast<std::int64_t>(rng_.below(10000));
            pt.y = static_cast<std::int64_t>(rng_.below(10000));
        }
        index_of_.fill(0);  // 0: not met yet (object 0 is the Trip)
        points_.clear();
        for (auto& stop : stops_) {
            auto which = rng_.below(point_count);
            if (index_of_[which] == 0) {
                points_.push_back(drawn_[which]);
                index_of_[which] = static_cast<std::uint32_t>(points_.size());
            }
            stop = index_of_[which];
        }
    }

    splitmix64 rng_;
    std::int64_t next_id_ = 0;
    record_type_ptr trip_type_ = make_record_type("Trip", {"id", "stops", "back"});
    record_type_ptr point_type_ = make_record_type("Point", {"x", "y"});

    std::int64_t id_ = 0;
    std::array<point, point_count> drawn_;
    std::array<std::uint32_t, point_count> index_of_{};
    std::vector<point> points_ = std::vector<point>(point_count);  // in canonical order
    std::array<std::uint32_t, stop_count> stops_{};
};

// --- blobs ---

class blobs_workload final : public workload {
  public:
    explicit blobs_workload(std::uint64_t seed) : rng_(seed) {
        make_vocabulary();
        title_.reserve(128);
        body_.reserve(body_size + 128);
        thumb_.resize(thumb_size);
    }

    std::string_view name() const override { return "blobs"; }
    std::uint64_t default_count() const override { return 20'000; }

    void next(message& out) override {
        draw();
        auto& f = assign_record(out.root, type_);
        assign_int(f[0], id_);
        assign_string(f[1], title_);
        assign_string(f[2], body_);
        assign_bytes(f[3]).assign(thumb_.begin(), thumb_.end());
        out.objects.clear();
    }

    void next_json(std::string& out) override {
        draw();
        out += R"({"$type":"Doc","id":)";
        append_int(out, id_);
        out += R"(,"title":)";
        append_json_string(out, title_);
        out += R"(,"body":)";
        append_json_string(out, body_);
        out += R"(,"thumb":{"$bytes":")";
        append_base64(out, thumb_);
        out += R"("}})";
    }

  private:
    static constexpr std::size_t vocabulary_size = 320;
    static constexpr std::size_t body_size = 16 * 1024;
    static constexpr std::size_t thumb_size = 4 * 1024;
    // A word is picked by below(zipf_range) through a table: word r gets a share of the range
    // proportional to 1/(r+1), so a few short words dominate as in natural text.
    static constexpr std::size_t zipf_range = 1 << 16;

    // Pronounceable words of 1-3 syllables, all distinct, shortest first so that the most
    // frequent words are the short ones.
    void make_vocabulary() {
        static constexpr std::string_view consonants = "bcdfghklmnprstvwz";
        static constexpr std::string_view vowels = "aeiou";
        while (vocabulary_.size() < vocabulary_size) {
            std::string word;
            auto syllables = 1 + rng_.below(3);
            for (std::uint64_t s = 0; s < syllables; ++s) {
                word += consonants[rng_.below(consonants.size())];
                word += vowels[rng_.below(vowels.size())];
                if (rng_.below(3) == 0) word += consonants[rng_.below(consonants.size())];
            }
            if (std::find(vocabulary_.begin(), vocabulary_.end(), word) == vocabulary_.end())
                vocabulary_.push_back(std::move(word));
        }
        std::stable_sort(vocabulary_.begin(), vocabulary_.end(),
                         [](const auto& a, const auto& b) { return a.size() < b.size(); });

        // Integer shares keep the table identical everywhere; every word gets at least one slot.
        std::array<std::uint64_t, vocabulary_size> weight{};
        std::uint64_t total = 0;
        for (std::size_t r = 0; r < vocabulary_size; ++r)
            total += weight[r] = 1'000'000 / (r + 1);
        zipf_table_.resize(zipf_range);
        std::size_t slot = 0;
        std::uint64_t cumulative = 0;
        for (std::size_t r = 0; r < vocabulary_size; ++r) {
            cumulative += weight[r];
            auto end = std::max<std::size_t>(slot + 1, cumulative * zipf_range / total);
            if (r + 1 == vocabulary_size) end = zipf_range;
            for (; slot < end; ++slot)
                zipf_table_[slot] = static_cast<std::uint16_t>(r);
        }
        for (auto& next : successor_)
            next = zipf_word();
    }

    std::size_t zipf_word() { return zipf_table_[rng_.below(zipf_range)]; }

    // Appends word `w`, capitalised when it starts a sentence.
    void append_word(std::string& s, std::size_t w, bool capital) {
        auto start = s.size();
        s += vocabulary_[w];
        if (capital) s[start] = static_cast<char>(s[start] - 'a' + 'A');
    }

    // One Doc: title words, body sentences, thumb bytes.
    void draw() {
        id_ = next_id_++;

        title_.assign("Document ");
        append_int(title_, id_);
        title_ += ':';
        for (auto n = 2 + rng_.below(4); n > 0; --n) {
            title_ += ' ';
            append_word(title_, zipf_word(), false);
        }

        body_.clear();
        while (body_.size() < body_size) {
            auto words = 4 + rng_.below(12);
            std::size_t w = zipf_word();
            append_word(body_, w, true);
            for (std::uint64_t n = 1; n < words; ++n) {
                // Phrases repeat as in real text; without them zlib only reaches about 2.4x.
                w = rng_.below(10) < 7 ? successor_[w] : zipf_word();
                body_ += rng_.below(8) == 0 ? ", " : " ";
                append_word(body_, w, false);
            }
            body_ += rng_.below(5) == 0 ? ".\n" : ". ";
        }
        body_.resize(body_size);

        for (std::size_t i = 0; i < thumb_size; i += 8) {
            auto x = rng_.next();
            for (std::size_t b = 0; b < 8; ++b)
                thumb_[i + b] = static_cast<std::uint8_t>(x >> 8 * b);
        }
    }

    splitmix64 rng_;
    std::int64_t next_id_ = 0;
    record_type_ptr type_ = make_record_type("Doc", {"id", "title", "body", "thumb"});
    std::vector<std::string> vocabulary_;
    std::vector<std::uint16_t> zipf_table_;
    std::array<std::size_t, vocabulary_size> successor_{};  // the word that usually follows

    std::int64_t id_ = 0;
    std::string title_;
    std::string body_;
    std::vector<std::uint8_t> thumb_;
};

constexpr std::array<std::string_view, 4> workload_names = {"person", "events", "graph", "blobs"};

}  // namespace

std::unique_ptr<workload> make(std::string_view name, std::uint64_t seed) {
    if (name == "person") return std::make_unique<person_workload>();
    if (name == "events") return std::make_unique<events_workload>(seed);
    if (name == "graph") return std::make_unique<graph_workload>(seed);
    if (name == "blobs") return std::make_unique<blobs_workload>(seed);
    return nullptr;
}

std::span<const std::string_view> names() {
    return workload_names;
}

}  // namespace objwire::workloads
