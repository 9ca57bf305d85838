#include "proto/compression_policy.hpp"

#include <algorithm>
#include <cmath>

#include "proto/codec.hpp"

namespace objwire {
namespace {

// Decompression speed assumed until the receiver reports one: about twice the compression
// speed, the low end of what the codecs measure (2-10x: docs/COMPRESSION.md, "The codecs on
// this machine").
constexpr double assumed_decompress_share = 0.5;
// Receiver reports cover at least this many new raw bytes, so one small frame is not a sample.
constexpr std::uint64_t min_receiver_bytes = 64 * 1024;

}  // namespace

std::string_view mode_name(compression_mode m) {
    switch (m) {
        case compression_mode::never:
            return "never";
        case compression_mode::always:
            return "always";
        case compression_mode::automatic:
            return "auto";
    }
    return "unknown";
}

std::optional<compression_mode> parse_mode(std::string_view name) {
    for (auto m : {compression_mode::never, compression_mode::always, compression_mode::automatic})
        if (mode_name(m) == name) return m;
    return std::nullopt;
}

compression_policy::compression_policy(compression_options opts, compression_tuning tuning)
    : opts_(opts), tune_(tuning) {
    stats_.mode = opts_.mode;
    stats_.compressing = opts_.mode == compression_mode::always;
    if (opts_.link_bits_per_second) link_bps_ = static_cast<double>(opts_.link_bits_per_second);
    set_accepted(built_codecs());
}

namespace {

// The levels auto climbs through: each step costs about twice the CPU of the one before for
// a few percent of ratio (docs/COMPRESSION.md, "The codecs on this machine"), and beyond these the
// ratio barely moves.
std::vector<int> ladder_levels(codec_id c) {
    switch (c) {
        case codec_id::zstd:
        case codec_id::zstd_stream:
            return {1, 3, 6, 9};
        case codec_id::zlib:
            return {1, 6};
        case codec_id::lz4:
            return {1, 9};
        case codec_id::none:
            break;
    }
    return {0};
}

}  // namespace

void compression_policy::set_accepted(std::uint32_t peer_codecs) {
    const std::uint32_t usable = peer_codecs & built_codecs();
    codec_id c = codec_id::none;
    int level = 0;
    if (opts_.codec == codec_id::zstd && has_codec(usable, codec_id::zstd_stream)) {
        // A peer that keeps a zstd context per connection gets the stream: same codec, same
        // levels, a better ratio (later frames match earlier ones).
        c = codec_id::zstd_stream;
        level = opts_.level;
    } else if (opts_.codec != codec_id::none && has_codec(usable, opts_.codec)) {
        c = opts_.codec;
        level = opts_.level;
    } else if (has_codec(usable, codec_id::zlib)) {
        c = codec_id::zlib;  // zlib is in every build: the fallback every peer can take
        // Another codec's level means nothing to zlib: its fast level, which pays far more
        // often than 6 (docs/COMPRESSION.md, "The codecs on this machine") - or the climb, when the
        // level was left to the policy.
        level = opts_.level == 0 ? 0 : 1;
    }
    std::vector<int> levels{level};
    if (level == 0 && opts_.mode == compression_mode::automatic) {
        levels = ladder_levels(c);
    } else {
        const auto range = levels_of(c);
        levels[0] = std::clamp(level == 0 ? range.fallback : level, range.min, range.max);
    }
    ladder_.clear();
    // Auto with zstd chooses the codec too: lz4 is the rung below zstd's fastest level - it
    // wins where the CPU or the daemon's acks, not the link, are the limit (about twice
    // zstd-1's speed for a third less ratio: docs/COMPRESSION.md, "The codecs on this machine").
    const bool zstd = c == codec_id::zstd || c == codec_id::zstd_stream;
    if (zstd && levels.size() > 1 && has_codec(usable, codec_id::lz4))
        ladder_.push_back({{.codec = codec_id::lz4, .level = 1}});
    for (int l : levels)
        ladder_.push_back({{.codec = c, .level = l}});
    step_ = tried_ = 0;
    stats_.codec = c;
    stats_.level = ladder_[0].level;
}

void compression_policy::average(double& avg, bool& known, double sample) const {
    avg = known ? avg + tune_.weight * (sample - avg) : sample;
    known = true;
}

bool compression_policy::plan(std::size_t raw_bytes) {
    ++stats_.frames;
    stats_.raw_bytes += raw_bytes;
    interval_raw_ += raw_bytes;
    tried_ = step_;
    if (opts_.mode == compression_mode::never || stats_.codec == codec_id::none) return false;
    if (raw_bytes < opts_.min_frame_bytes) return false;
    const bool attempt = opts_.mode == compression_mode::always || plan_auto();
    if (attempt) ++stats_.frames_tried;
    return attempt;
}

namespace {
// A zstd stream's figures depend on the history of its own connection and layout: each
// connection measures them itself.
bool shareable(codec_id c) {
    return c != codec_id::zstd_stream;
}
}  // namespace

void compression_policy::recall_shared() {
    recalled_ = true;
    if (!opts_.shared) return;
    for (const auto& m : opts_.shared->recall())
        for (auto& f : ladder_)
            if (!f.known && f.codec == m.codec && f.level == m.level && shareable(f.codec)) {
                static_cast<codec_measure&>(f) = m;
                f.known = true;
            }
}

void compression_policy::share(const level_figures& f) const {
    if (opts_.shared && f.known && shareable(f.codec)) opts_.shared->remember(f);
}

bool compression_policy::plan_auto() {
    ++since_try_;
    if (!recalled_) recall_shared();
    bool attempt = false;
    if (stats_.incompressible) {
        attempt = since_try_ >= probe_every_;  // a rare probe: has the data changed?
    } else if (!ladder_[step_].known) {
        attempt = true;  // nothing measured yet: this frame opens the first sample run
        run_left_ = tune_.sample_run > 0 ? tune_.sample_run - 1 : 0;
    } else {
        decide();
        // Past the link the model cannot see what compression costs or saves: use what was
        // measured with and without it.
        if (stats_.downstream) stats_.compressing = downstream_choice_;
        if (stats_.compressing) climb();
        if (stats_.compressing) {
            attempt = true;
            run_left_ = 0;
        } else if (run_left_ > 0) {
            attempt = true;  // the sample run goes on: this frame's time counts
            --run_left_;
        } else if (since_try_ >= sample_interval()) {
            attempt = true;
            run_left_ = tune_.sample_run > 0 ? tune_.sample_run - 1 : 0;
        }
    }
    if (attempt) since_try_ = 0;
    cold_ = attempt && !last_attempt_;
    last_attempt_ = attempt;
    return attempt;
}

// How many frames apart sample runs are while not compressing. A run of k frames costs the
// sender k c per raw byte of a frame; spread over N frames that is k c / N, and it is held to
// sample_budget of the time per raw byte without compression - counted as if the sender were
// the bottleneck, where it costs most. Far from break-even (loopback: the link takes 0.2-1 ns/B,
// lz4 2-3, zstd 5+) the samples thin out to sample_max; near it, the figures are kept fresher
// (sample_every).
std::uint32_t compression_policy::sample_interval() const {
    const auto& f = ladder_[step_];
    double off = 0;
    if (link_bps_ > 0)
        off = time_plain();
    else if (sender_known_)
        off = sender_ns_;
    if (!f.known || off <= 0 || tune_.sample_budget <= 0) return tune_.sample_every;
    const double run = std::max(1U, tune_.sample_run);
    const double n = std::ceil(run * f.ns / (tune_.sample_budget * off));
    return static_cast<std::uint32_t>(std::clamp(n, static_cast<double>(tune_.sample_every),
                                                 static_cast<double>(tune_.sample_max)));
}

// Per raw byte, the time of the slowest stage of the pipeline: the sender, the link, the
// receiver's decompression (docs/COMPRESSION.md). Without the sender's own time, the serial
// model: the stages one after the other.
double compression_policy::time_plain() const {
    return sender_known_ ? std::max(sender_ns_, link_ns()) : link_ns();
}

double compression_policy::time_compressed(const level_figures& f) const {
    const double d = decompress_known_ ? decompress_ns_ : f.ns * assumed_decompress_share;
    if (!sender_known_) return f.ns + f.ratio * link_ns() + d;
    // Pipelined: the sender compresses the next frame while the kernel sends this one.
    return std::max({sender_ns_ + f.ns, f.ratio * link_ns(), d});
}

void compression_policy::decide() {
    if (link_bps_ <= 0) {
        // Only lower bounds (or nothing): the link has not been shown to be the limit.
        stats_.compressing = false;
        return;
    }
    const double off = time_plain();
    // Compare with the best level measured, not just the current one: a climb that went a
    // level too far (or a sender that got slower) means stepping down, not giving up.
    double on = time_compressed(ladder_[step_]);
    for (std::size_t i = 0; i < ladder_.size(); ++i) {
        const double t = ladder_[i].known ? time_compressed(ladder_[i]) : on;
        if (t < on * (1 - tune_.hysteresis)) {
            step_ = tried_ = i;
            on = t;
        }
    }
    if (stats_.compressing)
        stats_.compressing = on <= off * (1 + tune_.hysteresis);
    else
        stats_.compressing = on < off * (1 - tune_.hysteresis);
}

// Hill-climbing over the codec's levels while compressing: move to a measured neighbour that
// is faster by the hysteresis margin; measure the level above while the link is still the
// slowest stage (once, then now and then), and the one below now and then.
void compression_policy::climb() {
    if (ladder_.size() < 2) return;
    const double now = time_compressed(ladder_[step_]);
    for (std::size_t n : {step_ - 1, step_ + 1}) {  // step_ - 1 wraps past the end at step 0
        if (n < ladder_.size() && ladder_[n].known &&
            time_compressed(ladder_[n]) < now * (1 - tune_.hysteresis)) {
            step_ = tried_ = n;
            since_revisit_ = 0;
            return;
        }
    }
    const auto& cur = ladder_[step_];
    const double cpu = (sender_known_ ? sender_ns_ : 0) + cur.ns;
    const bool link_bound = cur.ratio * link_ns() >= cpu;
    if (stream()) {
        // Up as many levels as the link would stay the slowest stage for, at twice the CPU per
        // level (about what each costs), in one move: every move starts a fresh context.
        // decide() steps back down if a measured level below turns out faster.
        std::size_t to = step_;
        for (double cost = 2 * cpu; to + 1 < ladder_.size() && cur.ratio * link_ns() >= cost;
             cost *= 2)
            ++to;
        step_ = tried_ = to;
        return;
    }
    const bool revisit = ++since_revisit_ >= tune_.revisit_every;
    if (step_ + 1 < ladder_.size() && link_bound && (!ladder_[step_ + 1].known || revisit))
        tried_ = step_ + 1;
    else if (step_ > 0 && revisit)
        tried_ = step_ - 1;
    if (tried_ != step_) since_revisit_ = 0;
}

void compression_policy::on_result(std::size_t raw_bytes, std::size_t compressed_bytes,
                                   std::uint64_t ns, bool fresh_context) {
    if (raw_bytes == 0) return;
    const std::size_t sent = std::min(compressed_bytes, raw_bytes);
    if (compressed_bytes < raw_bytes) {
        ++stats_.frames_compressed;
        interval_packed_raw_ += raw_bytes;
    }
    stats_.wire_bytes += sent;
    interval_wire_ += sent;
    interval_compress_ns_ += ns;
    const double raw = static_cast<double>(raw_bytes);
    const double ratio = static_cast<double>(sent) / raw;
    if (ratio < tune_.incompressible_ratio) {
        incompressible_run_ = 0;
        if (stats_.incompressible) {
            stats_.incompressible = false;  // the data changed: what we knew is stale
            for (auto& f : ladder_)
                f.known = f.ns_warm = false;
        }
    } else if (++incompressible_run_ >= tune_.incompressible_after &&
               opts_.mode == compression_mode::automatic) {
        // Still random: wait longer before the next probe. Newly random: stop trying.
        probe_every_ =
            stats_.incompressible ? std::min(probe_every_ * 2, tune_.probe_max) : tune_.probe_first;
        stats_.incompressible = true;
        stats_.compressing = false;
    }
    auto& f = ladder_[tried_];
    if (fresh_context && f.codec == codec_id::zstd_stream) {
        tried_ = step_;
        return;
    }
    // A frame compressed after a plain one runs with the codec's tables and buffers cold, 2-3x
    // slower than in a run of compressed frames - which is what compressing would cost. Its
    // time stands in only until a warm frame's replaces it.
    const bool had_ns = f.known;  // a time, if only a cold one
    bool ns_known = f.known && f.ns_warm;
    average(f.ratio, f.known, ratio);
    if (!cold_ || !f.ns_warm) {
        // Interruptions (preemption on a shared machine, page faults) only add time. So a
        // frame that took more than twice the average counts as twice (a codec that really got
        // slower still moves the average up by a quarter per frame), and the first warm frame,
        // if slower than the cold one before it, was interrupted: the cold time stays.
        double sample = static_cast<double>(ns) / raw;
        if (ns_known)
            sample = std::min(sample, 2 * f.ns);
        else if (had_ns && !cold_)
            sample = std::min(sample, f.ns);
        average(f.ns, ns_known, sample);
        f.ns_warm = !cold_;
    }
    share(f);
    tried_ = step_;
}

void compression_policy::on_plain(std::size_t raw_bytes) {
    stats_.wire_bytes += raw_bytes;
    interval_wire_ += raw_bytes;
}

void compression_policy::on_layout(bool columns) {
    if (columns == columns_) return;
    columns_ = columns;
    for (auto& f : ladder_)
        if (f.codec == codec_id::zstd_stream) f.known = f.ns_warm = false;
}

void compression_policy::on_link_sample(double bits_per_second, bool lower_bound) {
    if (opts_.link_bits_per_second || bits_per_second <= 0) return;
    stats_.link_measured = true;
    link_floor_bps_ = std::max(link_floor_bps_, bits_per_second);
    // A lower bound counts only where it says much more than we believe: the link carried at
    // least that much. Below, it says nothing (we, or the receiver, were the limit); and just
    // above, it is as likely a shaper's burst as a faster link - counted, those drift the
    // estimate upwards while compression keeps the sender app-limited.
    if (lower_bound && !(link_bps_ > 0 && bits_per_second > tune_.raise_factor * link_bps_)) return;
    add_link_sample(bits_per_second);
}

void compression_policy::add_link_sample(double bits_per_second) {
    link_samples_[link_count_ % link_samples_.size()] = bits_per_second;
    ++link_count_;
    const std::size_t n = std::min(link_count_, link_samples_.size());
    std::array<double, 5> sorted = link_samples_;
    std::sort(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(n));
    link_bps_ = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

void compression_policy::on_interval(std::uint64_t wall_ns, std::uint64_t socket_blocked_ns,
                                     std::uint64_t ack_blocked_ns) {
    ack_blocked_ns = std::min(ack_blocked_ns, wall_ns);
    interval_wall_ns_ += wall_ns;
    interval_blocked_ns_ += std::min(socket_blocked_ns + ack_blocked_ns, wall_ns);
    interval_ack_ns_ += ack_blocked_ns;
    if (interval_raw_ < tune_.interval_bytes) return;
    const std::uint64_t used = interval_blocked_ns_ + interval_compress_ns_;
    const std::uint64_t busy = interval_wall_ns_ > used ? interval_wall_ns_ - used : 0;
    average(sender_ns_, sender_known_,
            static_cast<double>(busy) / static_cast<double>(interval_raw_));
    if (opts_.mode == compression_mode::automatic && interval_wall_ns_ > 0) judge_interval();
    interval_raw_ = interval_compress_ns_ = interval_wall_ns_ = interval_blocked_ns_ = 0;
    interval_ack_ns_ = 0;
    interval_wire_ = interval_packed_raw_ = 0;
}

// When the sender spends much of its time waiting for acks (its in-flight window full) while
// the link is not full, what holds it back is past the link - the receiver's decoding or
// storage, or how fast acks return - and whether compression helps depends on costs the sender
// cannot see. There the policy measures: raw bytes per second over phases of phase_ns with and
// without compression, re-measures the other choice in a one-phase trial now and then, and
// keeps the faster (with the same hysteresis). Phases are long because the blocking comes in
// bursts (a full in-flight window waits for the next ack, every fsync interval).
void compression_policy::judge_interval() {
    // The first part of a phase settles: the in-flight window still holds frames of the
    // previous choice, and what they cost is not this choice's.
    settle_ns_ += interval_wall_ns_;
    if (settle_ns_ < tune_.settle_ns) return;
    phase_.wall += interval_wall_ns_;
    phase_.ack_blocked += interval_ack_ns_;
    phase_.raw += interval_raw_;
    phase_.packed += interval_packed_raw_;
    phase_.wire += interval_wire_;
    if (phase_.wall < tune_.phase_ns) return;
    const phase_totals p = phase_;
    phase_ = {};
    settle_ns_ = 0;
    const double wall = static_cast<double>(p.wall);
    const double wire_bps = 8e9 * static_cast<double>(p.wire) / wall;
    const bool link_bound = link_bps_ > 0 && wire_bps > tune_.link_bound_share * link_bps_;
    const bool blocked = static_cast<double>(p.ack_blocked) >= tune_.downstream_blocked * wall;
    const std::size_t was = p.packed * 2 > p.raw ? 1 : 0;
    trial_ = false;
    // Measuring starts with a phase spent waiting for acks. Once started, a compressed phase
    // counts even without waiting: compression may be what removed it. Only a plain phase
    // that is not held back ends the measuring.
    stats_.downstream =
        !link_bound && !stats_.incompressible && (blocked || (was == 1 && stats_.downstream));
    if (!stats_.downstream) return;
    average(throughput_[was], throughput_known_[was], static_cast<double>(p.raw) / wall);
    throughput_age_[was] = 0;
    ++throughput_age_[1 - was];
    bool on = downstream_choice_;
    if (throughput_known_[0] && throughput_known_[1]) {
        const double gain = throughput_[1] / throughput_[0];
        on = on ? gain >= 1 - tune_.hysteresis : gain > 1 + tune_.hysteresis;
    }
    const std::size_t other = on ? 0 : 1;
    if (!throughput_known_[other] || throughput_age_[other] >= tune_.retrial_phases) {
        on = other == 1;  // measure the other choice for a phase
        trial_ = true;
    }
    downstream_choice_ = on;
}

void compression_policy::on_receiver_report(std::uint64_t raw_bytes, std::uint64_t ns) {
    if (raw_bytes < receiver_raw_ + min_receiver_bytes || ns < receiver_ns_) return;
    const double sample =
        static_cast<double>(ns - receiver_ns_) / static_cast<double>(raw_bytes - receiver_raw_);
    average(decompress_ns_, decompress_known_, sample);
    receiver_raw_ = raw_bytes;
    receiver_ns_ = ns;
}

compression_stats compression_policy::stats() const {
    compression_stats s = stats_;
    // 1 byte per ns is 1000 MB/s.
    const auto mb_s = [](bool known, double ns_per_byte) {
        return known && ns_per_byte > 0 ? 1000.0 / ns_per_byte : 0.0;
    };
    s.link_estimated = link_bps_ > 0;
    s.link_mbit = (link_bps_ > 0 ? link_bps_ : link_floor_bps_) / 1e6;  // used, else floor
    const auto& f = ladder_[step_];
    s.codec = f.codec;
    s.level = f.level;
    s.ratio = f.known ? f.ratio : 1.0;
    s.compress_mb_s = mb_s(f.known, f.ns);
    s.decompress_mb_s = mb_s(decompress_known_, decompress_ns_);
    s.sender_mb_s = mb_s(sender_known_, sender_ns_);
    return s;
}

}  // namespace objwire
